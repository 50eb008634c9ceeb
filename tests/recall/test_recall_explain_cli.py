"""explain (no bodies, ≤8 KB, every candidate's numbers and reason) and the CLI contract
of recall/search/explain (docs/recall.md): options, JSON keys, errors that write nothing."""

from __future__ import annotations

import json

import pytest

from cairn.recall.explain import EXPLAIN_MAX_BYTES
from cairn.recall.gates import Reason
from testkit.db import full_fingerprint, records_fingerprint, trace_count

REASONS = {r.value for r in Reason}


def test_explain_has_every_stage_number_and_no_bodies(cairn, mem):
    hit = mem("The zeppelin hangar opens at dawn", basis="tool_observation", method="agent")
    mem("Hangar doors stick in the cold", aliases=["zeppelin"])
    doc = cairn.explain("zeppelin hangar")
    assert doc["query"]["features"] == ["zeppelin", "hangar"]
    assert doc["selected"][0] == hit
    for c in doc["candidates"]:
        assert {"id", "raw", "rank_score", "factors", "reason"} <= set(c)
        assert c["reason"] in REASONS
    top = doc["candidates"][0]
    assert {"bm25", "coverage", "freshness", "priority", "evidence_weight", "utility", "accuracy"} <= set(top["factors"])
    text = json.dumps(doc)
    assert "dawn" not in text and "doors" not in text


def test_explain_is_capped_at_8_kb(cairn, mem):
    for i in range(60):
        mem(f"Zeppelin hangar inspection log entry {i} for the north field")
    doc = cairn.explain("zeppelin hangar inspection north field", limit=3)
    assert len(json.dumps(doc, ensure_ascii=False).encode()) <= EXPLAIN_MAX_BYTES
    assert doc["omitted"] > 0
    assert [c["id"] for c in doc["candidates"][:3]] == doc["selected"]  # selected never hidden


def test_cli_recall_json_keys(cli):
    cli("remember", "The API service is deployed with Docker Compose", "--kind", "fact", "--alias", "deployment",
        "--basis", "tool_observation", "--method", "agent", "--source", "ci-1")
    r = cli("--json", "recall", "api deployment")
    assert r.code == 0, r.err
    doc = r.json()
    assert {"results", "digest", "trace"} <= set(doc)
    item = doc["results"][0]
    assert {"id", "kind", "status", "content", "relevance", "rank_score", "freshness", "aging", "dormant",
            "evidence", "markers"} <= set(item)
    assert item["evidence"] == {"basis": "tool_observation", "method": "agent", "source_id": "ci-1", "at": item["evidence"]["at"]}
    assert doc["trace"] and "Docker Compose" in doc["digest"]


def test_cli_recall_text_and_options(cli, db_path):
    cli("remember", "The sprint board lives in Linear", "--kind", "project_state", "--now", "2026-10-01T00:00:00Z")
    r = cli("--now", "2026-11-01T00:00:00Z", "recall", "sprint board")
    assert r.code == 0 and "nothing" in r.out
    r = cli("--now", "2026-11-01T00:00:00Z", "recall", "sprint board", "--include-dormant", "--limit", "1",
            "--budget", "512", "--lane", "all", "--as-of", "2026-10-02", "--known-at", "2026-10-02", "--include-history")
    assert r.code == 0, r.err
    assert "Linear" in r.out and "dormant" in r.out
    before = trace_count(db_path)
    r = cli("--now", "2026-11-01T00:00:00Z", "--json", "search", "sprint board", "--no-trace")
    assert r.code == 0 and r.json()["trace"] is None and len(r.json()["results"]) == 1
    assert trace_count(db_path) == before


def test_cli_explain(cli):
    cli("remember", "SQLite timeout is 5 seconds", "--kind", "fact")
    r = cli("explain", "sqlite timeout")
    assert r.code == 0 and "selected" in r.out and "subject: sqlit" in r.out
    doc = cli("--json", "explain", "sqlite timeout").json()
    assert {"query", "candidates"} <= set(doc)


@pytest.mark.parametrize(
    "args",
    [
        ("recall", ""),
        ("recall", "   "),
        ("recall", "x" * 65537),  # longer than a whole prompt is read
        ("recall", "api", "--budget", "100"),
        ("recall", "api", "--budget", "0"),
        ("recall", "api", "--as-of", "yesterday"),
        ("recall", "api", "--known-at", "2026-13-45"),
        ("search", "api", "--limit", "11"),
        ("explain", ""),
    ],
)
def test_bad_input_is_refused_and_nothing_is_written(cli, db_path, args):
    cli("remember", "The API service is deployed with Docker Compose", "--kind", "fact")
    before = full_fingerprint(db_path)
    r = cli(*args)
    assert r.code == 1
    assert r.err.startswith("cairn: ") and len(r.err.strip().splitlines()) == 1
    assert full_fingerprint(db_path) == before


def test_an_unknown_lane_is_a_usage_error_listing_the_lanes(cli, db_path):
    cli("remember", "The API service is deployed with Docker Compose", "--kind", "fact")
    before = full_fingerprint(db_path)
    r = cli("recall", "api", "--lane", "everything")
    assert r.code == 2 and "'claims', 'episodes', 'all'" in r.err
    assert full_fingerprint(db_path) == before
    assert cli("recall", "api", "--lane", "all").code == 0  # negative control: a known lane passes


def test_usage_error_on_non_numeric_limit(cli):
    assert cli("recall", "api", "--limit", "x").code == 2


@pytest.mark.parametrize("command", ["recall", "search", "explain"])
def test_help_exists(cli, command):
    r = cli(command, "--help")
    assert r.code == 0 and "--budget" in r.out and "--lane" in r.out and "--as-of" in r.out


def test_context_free_cli_says_so(cli, db_path):
    cli("remember", "The API service is deployed with Docker Compose", "--kind", "fact")
    before = records_fingerprint(db_path)
    r = cli("--json", "recall", "continue")
    assert r.code == 0 and r.json()["results"] == [] and "context-free" in r.json()["note"]
    assert records_fingerprint(db_path) == before


def test_cli_episode_lane(cli):
    cli("remember", "turn 1: we talked about the glacier trip", "--kind", "episode", "--basis", "transcript", "--method", "local")
    cli("remember", "turn 2: glacier", "--kind", "episode", "--basis", "transcript", "--method", "local")
    cli("remember", "The glacier trip is planned for June", "--kind", "fact")
    doc = cli("--json", "recall", "glacier trip talked", "--lane", "episodes", "--limit", "5").json()
    assert [r["kind"] for r in doc["results"]] == ["episode", "episode"]
    assert all(r["lane"] == "episodes" for r in doc["results"])
    r = cli("explain", "glacier trip talked", "--lane", "episodes", "--limit", "5")
    assert r.code == 0 and "gate (reported, not applied)" in r.out
    doc = cli("--json", "recall", "glacier trip", "--lane", "all", "--limit", "3").json()
    assert doc["results"][0]["kind"] == "fact" and doc["results"][1]["kind"] == "episode"
