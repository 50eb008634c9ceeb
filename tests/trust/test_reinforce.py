"""Reinforcement as the issue spells it: `cairn reinforce REF --outcome ... --note` (the
positional outcome still works), the MCP tool, and neutral exposure at most once per
record per session when it is on."""

from __future__ import annotations

import pytest

from cairn.errors import InvalidInput
from cairn.mcp.registry import call


def test_reinforce_takes_outcome_as_an_option_or_positionally(cli, cairn):
    rec = cairn.remember("Releases are cut on Mondays", kind="fact").memory
    by_option = cli("--json", "reinforce", rec.id[:8], "--outcome", "explicit_reinforcement", "--note", "user said so")
    assert by_option.code == 0 and by_option.json()["recorded"] is True
    by_position = cli("--json", "reinforce", rec.id[:8], "implicit_success")
    assert by_position.code == 0 and by_position.json()["recorded"] is True
    same_twice = cli("reinforce", rec.id[:8], "implicit_success", "--outcome", "implicit_success")
    assert same_twice.code == 0
    got = cairn.reinforcements(rec.id)
    assert [(r.outcome, r.note) for r in got] == [("explicit_reinforcement", "user said so"),
                                                 ("implicit_success", None), ("implicit_success", None)]


@pytest.mark.parametrize("args", [(), ("explicit_correction", "--outcome", "implicit_success"),
                                  ("--outcome", "praise")])
def test_a_missing_conflicting_or_unknown_outcome_is_refused_and_nothing_written(cli, cairn, args):
    rec = cairn.remember("Releases are cut on Mondays", kind="fact").memory
    events = cairn.store.count_events(cairn.space)
    result = cli("reinforce", rec.id[:8], *args)
    assert result.code == 1 and result.err.count("\n") == 1  # one line
    assert cairn.store.count_events(cairn.space) == events


def test_the_mcp_tool_records_outcome_and_note(cairn):
    rec = cairn.remember("The cache TTL is ten minutes", kind="fact").memory
    reply = call(cairn, "memory_reinforce", {"id": rec.id, "outcome": "explicit_correction", "note": "now 5 min"})
    assert reply.doc["recorded"] is True
    [got] = cairn.reinforcements(rec.id)
    assert (got.outcome, got.weight, got.note) == ("explicit_correction", -1.0, "now 5 min")


def test_neutral_exposure_is_once_per_record_per_session_and_needs_a_session(cairn):
    a = cairn.remember("The VPN gateway is vpn-3", kind="fact").memory
    b = cairn.remember("The proxy is proxy-2", kind="fact").memory
    with pytest.raises(InvalidInput):
        cairn.reinforce(a.id, "neutral_exposure", neutral=True)  # no session: "once per session" cannot hold
    first = cairn.reinforce(a.id, "neutral_exposure", session="s1", neutral=True)
    assert first.recorded and first.event is not None
    assert cairn.reinforce(a.id, "neutral_exposure", session="s1", neutral=True).reason == "neutral-exposure-once-per-session"
    assert cairn.reinforce(b.id, "neutral_exposure", session="s1", neutral=True).recorded  # per record
    assert cairn.reinforce(a.id, "neutral_exposure", session="s2", neutral=True).recorded  # per session
    cairn.undo(first.event.id)
    assert cairn.reinforce(a.id, "neutral_exposure", session="s1", neutral=True).recorded  # the undone one no longer counts
    assert [r.session for r in cairn.reinforcements(a.id)] == ["s2", "s1"]
