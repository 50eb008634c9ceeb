"""The head of a correction/supersession chain is found by following the relations.

Records written at one instant carry equal timestamps and random ids, so neither may decide
which record of a chain is current. Through the CLI (records written with one ``--now``,
each ``--supersedes`` the previous) and as a property over random chains, written and
related in random order at one instant: recall returns exactly the head as current.
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn import Cairn

NOW = "2026-11-10T12:00:00Z"
PHASES = ["one", "two", "three"]


def chain_through_cli(cli, kind: str) -> list[str]:
    ids: list[str] = []
    for phase in PHASES:
        args = ["--now", NOW, "--json", "remember", f"Atlas rollout reached phase {phase}", "--kind", kind]
        if ids:
            args += ["--supersedes", ids[-1]]
        out = cli(*args)
        assert out.code == 0, out.err
        ids.append(out.json()["id"])
    return ids


def current(results: Sequence[Mapping[str, Any]]) -> list[str]:
    """The results offered as current: everything but history shown as history."""
    return [r["id"] for r in results if "historical-rationale" not in r["markers"]]


@pytest.mark.parametrize("attempt", range(6))  # ids are random: one lucky order proves nothing
@pytest.mark.parametrize("kind", ["project_state", "decision"])
def test_a_chain_written_at_one_instant_resolves_to_its_head(tmp_path, cli, kind, attempt):
    ids = chain_through_cli(cli, kind)
    results = cli("--now", NOW, "--json", "recall", "Atlas rollout phase").json()["results"]
    assert current(results) == [ids[-1]]
    assert results[0]["id"] == ids[-1] and results[0]["corrects"] == [ids[1], ids[0]]


def test_control_without_relations_every_phase_is_current(cli):
    ids = []
    for phase in PHASES:
        out = cli("--now", NOW, "--json", "remember", f"Atlas rollout reached phase {phase}", "--kind", "project_state")
        ids.append(out.json()["id"])
    results = cli("--now", NOW, "--json", "recall", "Atlas rollout phase").json()["results"]
    assert sorted(current(results)) == sorted(ids)


AT = datetime(2026, 11, 10, 12, tzinfo=UTC)
WORDS = ["amber", "basalt", "cobalt", "dune", "ember", "fjord"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    length=st.integers(2, 5),
    roles=st.lists(st.sampled_from(["corrects", "supersedes"]), min_size=4, max_size=4),
    kind=st.sampled_from(["fact", "project_state", "decision"]),
    forgotten=st.sets(st.integers(0, 3)),
    seed=st.integers(0, 2**16),
)
def test_random_chains_at_one_instant_return_exactly_their_head(length, roles, kind, forgotten, seed):
    shuffle = random.Random(seed).shuffle
    with tempfile.TemporaryDirectory(dir="/dev/shm" if Path("/dev/shm").is_dir() else None) as folder:
        with Cairn(Path(folder) / "c.db", now=lambda: AT) as cairn:
            order = list(range(length))
            shuffle(order)  # written in any order: creation order must not matter either
            ids = {i: cairn.remember(f"Glacier project {WORDS[i]} milestone reached", kind=kind).memory.id for i in order}
            links = list(range(1, length))
            shuffle(links)
            for i in links:  # declared newer -> older, in any order
                cairn.relate(ids[i], roles[i - 1], ids[i - 1])
            for i in forgotten:
                if i < length - 1:  # a withdrawn link in the middle corrects nothing
                    cairn.forget(ids[i])
            results = cairn.recall("Glacier project milestone", trace=False).to_dict()["results"]
            assert current(results) == [ids[length - 1]]
            assert results[0]["id"] == ids[length - 1]


@pytest.mark.parametrize("attempt", range(4))
def test_timeline_orders_states_written_at_one_instant_by_their_relations(cli, attempt):
    ids = chain_through_cli(cli, "project_state")
    states = cli("--now", NOW, "--json", "timeline", "Atlas rollout").json()["states"]
    assert [s["id"] for s in states] == ids
    assert [s["current"] for s in states] == [False, False, True]


def test_control_timeline_without_relations_keeps_time_order(cli):
    first = cli("--now", "2026-11-01T00:00:00Z", "--json", "remember", "Atlas rollout reached phase two",
                "--kind", "project_state").json()["id"]
    second = cli("--now", NOW, "--json", "remember", "Atlas rollout reached phase one",
                 "--kind", "project_state").json()["id"]
    states = cli("--now", NOW, "--json", "timeline", "Atlas rollout").json()["states"]
    assert [s["id"] for s in states] == [first, second]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kinds=st.lists(st.sampled_from(["fact", "project_state", "decision"]), min_size=2, max_size=6),
    links=st.lists(st.tuples(st.integers(0, 5), st.sampled_from(["corrects", "supersedes", "contradicts"]),
                             st.integers(0, 5)), max_size=6),
    forgotten=st.sets(st.integers(0, 5), max_size=2),
    limit=st.integers(1, 3),
    history=st.booleans(),
)
def test_every_candidate_ends_selected_or_with_one_reason(kinds, links, forgotten, limit, history):
    with tempfile.TemporaryDirectory(dir="/dev/shm" if Path("/dev/shm").is_dir() else None) as folder:
        with Cairn(Path(folder) / "r.db", now=lambda: AT) as cairn:
            ids = [cairn.remember(f"Glacier project {WORDS[i]} milestone reached", kind=k).memory.id
                   for i, k in enumerate(kinds)]
            for newer, role, older in links:
                if newer < len(ids) and older < len(ids):
                    try:
                        cairn.relate(ids[newer], role, ids[older])
                    except Exception:  # noqa: BLE001 - refusals (cycles, duplicates) have their own tests
                        pass
            for i in forgotten:
                if i < len(ids):
                    cairn.forget(ids[i])
            options = {"limit": limit, "include_history": history}
            results = [r["id"] for r in cairn.recall("Glacier project milestone", trace=False, **options).to_dict()["results"]]
            explained = cairn.explain("Glacier project milestone", **options)
            reasons = {c["id"]: c["reason"] for c in explained["candidates"]}
            assert explained["selected"] == results
            assert {i for i, r in reasons.items() if r == "selected"} == set(results)
            assert set(results) <= set(reasons)
