"""The replacement-authority policy as pure decisions (priority table, guards, exceptions)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cairn.model import (
    Basis,
    Evidence,
    Feedback,
    Kind,
    Layer,
    Memory,
    Method,
    SourceKind,
    Status,
    Verdict,
    VerdictSlot,
)
from cairn.policy.authority import Incoming, Reaffirm, Refuse, Replace, Withhold, decide
from cairn.policy.priority import record_priority, source_priority
from testkit.batches import T0, day


def record(kind=Kind.FACT, basis=Basis.SUMMARY, at=T0, **fields) -> Memory:
    return Memory(
        id="a" * 24, space="default", origin="acme", kind=kind, content="old text",
        created_at=at, updated_at=at, **fields,
        evidence=Evidence(basis, Method.MANUAL if basis is Basis.MANUAL_CORRECTION else Method.MODEL, "s0", at),
    )


def incoming(basis, kind=SourceKind.SUMMARY, at=None) -> Incoming:
    # Only the literal correction act carries manual_correction, always with method manual.
    method = Method.MANUAL if basis is Basis.MANUAL_CORRECTION else Method.MODEL
    return Incoming(Evidence(basis, method, "s1", at or day(1)), kind)


@pytest.mark.parametrize(
    ("kind", "basis", "priority"),
    [
        (Kind.FACT, Basis.UNKNOWN, 0),
        (Kind.FACT, Basis.SUMMARY, 1),
        (Kind.FACT, Basis.USER_STATEMENT, 2),
        (Kind.PROJECT_STATE, Basis.USER_STATEMENT, 2),
        (Kind.PREFERENCE, Basis.USER_STATEMENT, 3),
        (Kind.DECISION, Basis.USER_STATEMENT, 3),
        (Kind.PROJECT_STATE, Basis.TOOL_OBSERVATION, 3),
        (Kind.FACT, Basis.TOOL_OBSERVATION, 0),  # a tool output about a non-state earns nothing
        (Kind.FACT, Basis.MANUAL_CORRECTION, 4),
    ],
)
def test_priority_table(kind, basis, priority):
    assert source_priority(kind, basis) == priority


def test_confirmed_and_accurate_are_protected_at_4_but_incorrect_is_not():
    assert record_priority(record(status=Status.CONFIRMED)) == 4
    accurate = Feedback(accuracy=VerdictSlot(Verdict.ACCURATE, "fb", T0))
    assert record_priority(record(feedback=accurate)) == 4
    incorrect = Feedback(accuracy=VerdictSlot(Verdict.INCORRECT, "fb", T0))
    assert record_priority(record(feedback=incorrect)) == 1  # negative control


def test_weaker_source_is_withheld_and_equal_or_stronger_replaces():
    old = record(basis=Basis.USER_STATEMENT)  # fact, priority 2
    assert decide(old, Kind.FACT, False, incoming(Basis.SUMMARY), day(1)) == Withhold("weaker", 2, 1)
    assert decide(old, Kind.FACT, False, incoming(Basis.USER_STATEMENT, SourceKind.MANUAL), day(1)) == Replace("priority", 2, 2)
    correction = incoming(Basis.MANUAL_CORRECTION, SourceKind.MANUAL)
    assert decide(old, Kind.FACT, False, correction, day(1)) == Replace("priority", 2, 4)


def test_unknown_legacy_evidence_defends_with_nothing():
    old = record(basis=Basis.UNKNOWN)
    assert isinstance(decide(old, Kind.FACT, False, incoming(Basis.SUMMARY), day(1)), Replace)


def test_kind_change_is_refused():
    decision = decide(record(), Kind.DECISION, False, incoming(Basis.SUMMARY), day(1))
    assert isinstance(decision, Refuse) and "kind" in decision.reason
    assert not isinstance(decide(record(), Kind.FACT, False, incoming(Basis.SUMMARY), day(1)), Refuse)


def test_pinned_record_is_never_replaced_even_by_a_stronger_source():
    pinned = record(layer=Layer.PINNED)
    decision = decide(pinned, Kind.FACT, False, incoming(Basis.MANUAL_CORRECTION, SourceKind.MANUAL), day(1))
    assert decision == Withhold("pinned", 1, 4)
    assert isinstance(decide(record(), Kind.FACT, False, incoming(Basis.MANUAL_CORRECTION, SourceKind.MANUAL), day(1)), Replace)


def test_older_source_never_replaces_a_newer_record():
    old = record(at=day(5))
    decision = decide(old, Kind.FACT, False, incoming(Basis.MANUAL_CORRECTION, SourceKind.MANUAL, at=day(4)), day(6))
    assert decision == Withhold("older-source", 1, 4)
    same_time = decide(old, Kind.FACT, False, incoming(Basis.SUMMARY, at=day(5)), day(6))
    assert isinstance(same_time, Replace)  # a source of the same moment is not older


def test_current_user_statement_supersedes_protected_testimony():
    # A user preference marked accurate (protected at 4) can still be changed by the user.
    accurate = Feedback(accuracy=VerdictSlot(Verdict.ACCURATE, "fb", T0))
    old = record(kind=Kind.PREFERENCE, basis=Basis.USER_STATEMENT, feedback=accurate)
    decision = decide(old, Kind.PREFERENCE, False, incoming(Basis.USER_STATEMENT, SourceKind.CONVERSATION), day(1))
    assert decision == Replace("user-correction", 4, 3)


@pytest.mark.parametrize(
    ("old_basis", "source_kind", "layer", "at"),
    [
        (Basis.TOOL_OBSERVATION, SourceKind.CONVERSATION, Layer.DURABLE, 1),  # not testimony
        (Basis.USER_STATEMENT, SourceKind.MANUAL, Layer.DURABLE, 1),  # not a conversation
        (Basis.USER_STATEMENT, SourceKind.CONVERSATION, Layer.PINNED, 1),  # pins still win
        (Basis.USER_STATEMENT, SourceKind.CONVERSATION, Layer.DURABLE, -1),  # older source still loses
    ],
)
def test_user_correction_exception_negative_controls(old_basis, source_kind, layer, at):
    old = record(kind=Kind.PROJECT_STATE, basis=old_basis, status=Status.CONFIRMED, layer=layer)
    decision = decide(old, Kind.PROJECT_STATE, False, incoming(Basis.USER_STATEMENT, source_kind, at=day(at)), day(2))
    assert isinstance(decision, Withhold)


def test_fresh_progress_updates_state_after_manual_correction():
    old = record(kind=Kind.PROJECT_STATE, basis=Basis.MANUAL_CORRECTION)
    decision = decide(old, Kind.PROJECT_STATE, False, incoming(Basis.TOOL_OBSERVATION, SourceKind.PROGRESS, at=day(1)), day(2))
    assert decision == Replace("fresh-progress", 4, 3)


@pytest.mark.parametrize(
    ("fields", "source_kind", "observed", "now"),
    [
        ({}, SourceKind.PROGRESS, 1, 10),  # stale observation: not fresh
        ({"layer": Layer.PINNED}, SourceKind.PROGRESS, 1, 2),  # pins still win
        ({}, SourceKind.PROGRESS, -1, 0),  # observed before the correction
        ({"status": Status.CONFIRMED, "basis": Basis.USER_STATEMENT}, SourceKind.PROGRESS, 1, 2),  # not a manual correction
    ],
)
def test_fresh_progress_exception_negative_controls(fields, source_kind, observed, now):
    basis = fields.pop("basis", Basis.MANUAL_CORRECTION)
    old = record(kind=Kind.PROJECT_STATE, basis=basis, **fields)
    decision = decide(old, Kind.PROJECT_STATE, False, incoming(Basis.TOOL_OBSERVATION, source_kind, at=day(observed)), day(now))
    assert isinstance(decision, Withhold)


def test_reaffirmation_refreshes_only_from_a_non_summary_source_with_authority():
    old = record(basis=Basis.USER_STATEMENT)
    said = incoming(Basis.USER_STATEMENT, SourceKind.CONVERSATION)
    assert decide(old, Kind.FACT, True, said, day(1)) == Reaffirm(True, "refreshed")
    assert decide(old, Kind.FACT, True, incoming(Basis.SUMMARY, SourceKind.SUMMARY), day(1)) == Reaffirm(False, "summary")
    pinned = replace(old, layer=Layer.PINNED)
    assert decide(pinned, Kind.FACT, True, said, day(1)) == Reaffirm(False, "pinned")
    stronger = record(basis=Basis.MANUAL_CORRECTION)
    weak = incoming(Basis.SUMMARY, SourceKind.CONVERSATION)
    assert decide(stronger, Kind.FACT, True, weak, day(1)) == Reaffirm(False, "weaker")
