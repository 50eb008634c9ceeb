"""The LoCoMo harness: the quick CI variant, the JSON contract, the evidence clean-up,
the baseline and the missing-data message. The full run stays out of the suite."""

from __future__ import annotations

import json

import pytest

from cairn.bench import locomo

KEYS = {"any@5", "all@5", "any@10", "all@10"}


@pytest.mark.slow
def test_quick_variant_prints_the_contracted_json(cli, locomo_path, db_path):
    result = cli("--json", "bench", "locomo", "--quick", "--data", str(locomo_path))
    assert result.code == 0, result.err
    doc = result.json()
    assert set(doc) == {"split", "questions", "cairn", "baseline", "categories"}
    assert doc["split"] == "quick" and doc["questions"] > 200
    for side in ("cairn", "baseline"):
        assert set(doc[side]) == KEYS | {"latency_ms"}
        assert set(doc[side]["latency_ms"]) == {"median", "p95"}
        assert all(0.0 <= doc[side][k] <= 1.0 for k in KEYS)
        assert doc[side]["all@5"] <= doc[side]["any@5"] <= doc[side]["any@10"]
    assert set(doc["categories"]) == {"1", "2", "3", "4"}
    assert sum(c["questions"] for c in doc["categories"].values()) == doc["questions"]
    # The episode lane must stay ahead of the plain FTS5 baseline it is compared with.
    assert doc["cairn"]["any@5"] > doc["baseline"]["any@5"]
    assert "evidence lists:" in result.err
    assert not db_path.exists()  # benchmarks never touch the global --db


def test_missing_data_is_one_clear_line(cli, tmp_path):
    result = cli("bench", "locomo", "--data", str(tmp_path / "nowhere.json"))
    assert result.code == 1
    assert result.err.count("\n") == 1 and "LoCoMo data not found" in result.err and "--data" in result.err


def test_the_default_data_path_lies_beside_the_repository():
    assert locomo.DEFAULT_DATA == locomo.REPO.parent / "shared" / "data" / "locomo10.json"
    assert (locomo.REPO / "pyproject.toml").is_file()


def test_a_file_that_is_not_locomo_is_refused(cli, tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text(json.dumps({"not": "a list"}))
    result = cli("bench", "locomo", "--data", str(bad))
    assert result.code == 1 and "not a LoCoMo list" in result.err


def _conversation(evidence):
    return {"sample_id": "c", "conversation": {"speaker_a": "A", "speaker_b": "B",
            "session_1_date_time": "1:00 pm on 1 May, 2023",
            "session_1": [{"speaker": "A", "dia_id": f"D1:{n}", "text": f"turn {n}"} for n in range(1, 7)]},
            "qa": [{"question": "q?", "answer": "a", "evidence": evidence, "category": 1},
                   {"question": "adversarial?", "adversarial_answer": "a", "evidence": ["D1:1"], "category": 5}]}


@pytest.mark.parametrize(
    ("evidence", "expected", "notes"),
    [
        (["D1:1", "D1:1"], {"D1:1"}, (0, 0, 0)),
        (["D1:2; D1:3"], {"D1:2", "D1:3"}, (2, 0, 0)),
        (["D:1:4"], {"D1:4"}, (1, 0, 0)),
        (["D1:05"], {"D1:5"}, (1, 0, 0)),
        (["D1:6", "D9:9"], {"D1:6"}, (0, 1, 0)),
        (["D"], None, (0, 1, 1)),
        ([], None, (0, 0, 1)),
    ],
)
def test_evidence_lists_are_normalised_and_the_changes_counted(evidence, expected, notes):
    counted = locomo.EvidenceNotes()
    asked = locomo.questions(_conversation(evidence), 0, counted)
    assert [q.evidence for q in asked] == ([] if expected is None else [frozenset(expected)])
    assert (counted.rewritten, counted.dropped, counted.unanswerable) == notes


def test_any_and_all_at_k_count_as_the_protocol_says():
    side = locomo.Side((1, 2))
    side.add(["D1:1", "D1:2"], frozenset({"D1:2", "D1:3"}), 1.0)  # one of two, at rank 2
    side.add(["D1:3", "D1:2"], frozenset({"D1:2", "D1:3"}), 3.0)  # both within 2
    doc = side.doc()
    assert (doc["any@1"], doc["all@1"], doc["any@2"], doc["all@2"]) == (0.5, 0.0, 1.0, 0.5)
    assert doc["latency_ms"] == {"median": 2.0, "p95": 3.0}


def test_the_baseline_is_plain_fts5_on_speaker_and_text():
    ranker = locomo.BaselineRanker(_conversation(["D1:1"]))
    try:
        assert ranker("turn 3 please", 2)[0] == "D1:3"
        assert ranker("the a of", 5) == []  # stopwords only: nothing to match
    finally:
        ranker.close()


def test_k_beyond_what_a_recall_returns_is_a_usage_error(cli):
    assert cli("bench", "locomo", "--k", "5,25").code == 2
    assert cli("bench", "locomo", "--k", "0").code == 2
