"""A third-party lane, found through its entry point, used by a recall: the pipeline
excludes what it returns, scores it when the lane does not, and gates it or only
reports the gates as the lane declares."""

from __future__ import annotations

import importlib
import sys

import pytest

from cairn.recall.gates import Reason

LANES = {"cairn.lanes": {"pinned": "toy_lanes:PinnedLane", "gated": "toy_lanes:GatedLane"}}


@pytest.fixture
def pinned(install):
    install("toy-lanes", LANES, ("toy_lanes",))
    # The module the entry points load, from the fake distribution (written at run time,
    # so imported by name).
    toy_lanes = importlib.import_module("toy_lanes")

    toy_lanes.PINNED.clear()
    return toy_lanes.PINNED


def reasons(cairn, query, **options) -> dict[str, str]:
    return {c["id"]: c["reason"] for c in cairn.explain(query, **options)["candidates"]}


def test_a_third_party_lane_answers_a_recall(cairn, pinned):
    api = cairn.remember("The API service is deployed with Docker Compose", kind="fact").memory.id
    office = cairn.remember("The office is in Lisbon", kind="fact").memory.id
    pinned += [office, api]
    recalled = cairn.recall("api service docker", lane="pinned")
    # Gates reported, not applied: the lane's order stands, the unrelated record included.
    assert recalled.ids == [office, api] and {r.lane for r in recalled.results} == {"pinned"}
    entry = {c["id"]: c for c in cairn.explain("api service docker", lane="pinned")["candidates"]}
    assert entry[office]["factors"]["gate_reported"] == Reason.NO_MATCH.value
    assert "gate_reported" not in entry[api]["factors"]


def test_a_gated_third_party_lane_is_gated_by_the_pipeline(cairn, pinned):
    api = cairn.remember("The API service is deployed with Docker Compose", kind="fact").memory.id
    office = cairn.remember("The office is in Lisbon", kind="fact").memory.id
    pinned += [office, api]
    # The lane gives no lexical score; the pipeline computes it and applies the gates.
    assert cairn.recall("api service docker", lane="gated").ids == [api]
    assert reasons(cairn, "api service docker", lane="gated")[office] == Reason.NO_MATCH.value


def test_what_a_lane_returns_is_still_excluded(cairn, pinned):
    kept = cairn.remember("The API service is deployed with Docker Compose", kind="fact").memory.id
    gone = cairn.remember("The API service was deployed by hand", kind="fact").memory.id
    cairn.forget(gone)
    pinned += [gone, kept, "0" * 26]  # forgotten, live, and an id this space cannot read
    assert cairn.recall("api service deployed", lane="pinned").ids == [kept]
    found = reasons(cairn, "api service deployed", lane="pinned")
    assert found[gone] == Reason.FORGOTTEN.value and found["0" * 26] == Reason.OTHER_SPACE.value


def test_the_cli_accepts_an_installed_lane(cli, pinned):
    cli("remember", "The API service is deployed with Docker Compose", "--kind", "fact")
    doc = cli("--json", "recall", "api service", "--lane", "pinned").json()
    assert doc["results"] == []  # nothing pinned yet, but the lane ran
    assert cli("recall", "--help").out.count("pinned") >= 1
    assert "toy_lanes" in sys.modules


def test_all_stays_claims_and_episodes_only(cairn, pinned):
    api = cairn.remember("The API service is deployed with Docker Compose", kind="fact").memory.id
    office = cairn.remember("The office is in Lisbon", kind="fact").memory.id
    pinned += [office]
    assert cairn.recall("api service docker", lane="all").ids == [api]  # the pinned lane is not part of all
