"""The PostgreSQL backend ranks exactly as the SQLite one: the same data written through
the same engine into both, the same questions asked of both, the same answers in the same
order with the same scores (ids are random per store, so results are compared by
content). Covers the recall goldens (claims lane, relations, corrections, forgetting),
the episode lane on a conversation, and export."""

from __future__ import annotations

import io
import json
from datetime import timedelta
from pathlib import Path

import pytest

from cairn import Cairn
from cairn.model import parse_time
from testkit import Clock

GOLDEN = Path(__file__).parents[1] / "recall" / "golden"


def _cases(name: str) -> list[dict]:
    return json.loads((GOLDEN / name).read_text(encoding="utf-8"))["cases"]


def _load_corpus(cairn: Cairn, clock: Clock) -> dict[str, str]:
    data = json.loads((GOLDEN / "corpus.json").read_text(encoding="utf-8"))
    now = parse_time(data["now"])
    ids = {}
    for spec in data["memories"]:
        clock.at = now - timedelta(days=spec.get("days_ago", 0))
        options = {k: spec[k] for k in ("origin", "basis", "method", "aliases") if k in spec}
        ids[spec["key"]] = cairn.remember(spec["text"], kind=spec["kind"], **options).memory.id
        if spec.get("forget"):
            cairn.forget(ids[spec["key"]])
    clock.at = now
    return ids


@pytest.fixture(scope="module")
def golden_pair(tmp_path_factory, pg_server):
    """The golden corpus in a SQLite store and in a PostgreSQL one: (engine, key by id)."""
    pairs = []
    for target in (tmp_path_factory.mktemp("parity") / "cairn.db", pg_server.new_database()):
        clock = Clock()
        cairn = Cairn(target, now=clock)
        ids = _load_corpus(cairn, clock)
        pairs.append((cairn, {v: k for k, v in ids.items()}))
    yield pairs
    for cairn, _ in pairs:
        cairn.close()


def _answer(cairn: Cairn, keys: dict[str, str], case: dict) -> list[tuple[str, float, float]]:
    run = cairn.search if case.get("search") else cairn.recall
    found = run(case["query"], trace=False, **case.get("options", {}))
    return [(keys.get(r.memory.id, r.memory.content), round(r.rank_score, 9), round(r.relevance, 9)) for r in found.results]


ALL_CASES = _cases("positive.json") + _cases("negative.json") + _cases("challenge.json")


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: c["query"])
def test_golden_queries_answer_alike_on_both_backends(golden_pair, case):
    (lite, lite_keys), (pg, pg_keys) = golden_pair
    assert _answer(pg, pg_keys, case) == _answer(lite, lite_keys, case)


@pytest.mark.parametrize("case", _cases("positive.json"), ids=lambda c: c["query"])
def test_golden_expectations_hold_on_postgres(golden_pair, case):
    _, (pg, keys) = golden_pair
    assert [keys[i] for i in (pg.search if case.get("search") else pg.recall)(
        case["query"], trace=False, **case.get("options", {})).ids] == case["expect"]


def test_the_parity_check_can_fail(golden_pair):
    """Negative control: a different question gives a different answer, so equality above
    is not vacuous (both stores answer, and answers depend on the question)."""
    (lite, keys), _ = golden_pair
    case = _cases("positive.json")[0]
    other = next(c for c in _cases("positive.json") if c["expect"] != case["expect"])
    assert _answer(lite, keys, case) and _answer(lite, keys, case) != _answer(lite, keys, other)


CONVERSATION = {
    "sample_id": "parity",
    "conversation": {
        "speaker_a": "Ana", "speaker_b": "Ben",
        "session_1_date_time": "1:00 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a puppy named Biscuit last week!"},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Congrats! What breed is Biscuit?"},
            {"speaker": "Ana", "dia_id": "D1:3", "text": "A beagle. He loves chasing squirrels in the park."},
            {"speaker": "Ben", "dia_id": "D1:4", "text": "I went hiking in the Alps with my sister in June."},
            {"speaker": "Ana", "dia_id": "D1:5", "text": "Hiking sounds lovely. Did your sister enjoy the mountains?"},
        ],
        "session_2_date_time": "3:00 pm on 20 May, 2023",
        "session_2": [
            {"speaker": "Ben", "dia_id": "D2:1", "text": "My sister started a pottery class on Tuesdays."},
            {"speaker": "Ana", "dia_id": "D2:2", "text": "Biscuit chewed my running shoes, the beagle!"},
            {"speaker": "Ben", "dia_id": "D2:3", "text": "Pottery and running: we should try both sometime."},
            {"speaker": "Ana", "dia_id": "D2:4", "text": "Running in the park with Biscuit every morning now."},
        ],
    },
}

QUESTIONS = ["What breed is Ana's puppy?", "Where did Ben go hiking?", "What class did Ben's sister start?",
             "What did Biscuit chew?", "When does Ana run?", "mountains", "Who loves squirrels?", "Ben"]


def test_the_episode_lane_ranks_alike_on_both_backends(tmp_path, pg_url):
    answers = []
    for target in (tmp_path / "conv.db", pg_url):
        with Cairn(target, now=Clock()) as cairn:
            cairn.ingest(CONVERSATION, format="locomo", progress=False)
            answers.append([[(r.memory.evidence.source_id, round(r.rank_score, 9), round(r.relevance, 9)) for r in
                             cairn.search(q, lane="episodes", limit=10, trace=False).results] for q in QUESTIONS])
    assert answers[0] == answers[1]
    assert "D1:3" in [hit[0] for hit in answers[1][0]]  # the beagle turn answers the breed question
    assert all(answers[1][:-1])  # every question found something (the lists compared are not empty)


@pytest.mark.parametrize("cap", [1, 2, 3, 5, 50])
def test_capped_episode_candidates_come_in_the_same_order(tmp_path, pg_url, cap):
    """Over the cap the store's own relevance order decides which episodes are candidates:
    the PostgreSQL store's BM25 must pick and order them as FTS5 does."""
    words = [("biscuit", False), ("beagl", True), ("sister", False), ("run", True), ("park", False)]
    picked = []
    for target in (tmp_path / "conv.db", pg_url):
        with Cairn(target, now=Clock()) as cairn:
            cairn.ingest(CONVERSATION, format="locomo", progress=False)
            turns = cairn.store.episode_matches(cairn.space, words, cap)
            picked.append([(t.id and cairn.get(t.id).evidence.source_id, t.turn, t.terms, t.speaker, t.at) for t in turns])
    assert picked[0] == picked[1]
    assert len(picked[1]) == min(cap, 9)  # nine turns hold one of the words
    if cap >= 5:
        assert picked[1] != sorted(picked[1], key=lambda t: t[1])  # relevance order, not turn order


def test_export_is_byte_identical_and_round_trips(tmp_path, pg_server):
    """SQLite → export → PostgreSQL → export → SQLite: the three exports are the same bytes."""
    first = pg_server.new_database()
    outs = []
    with Cairn(tmp_path / "a.db", now=Clock()) as cairn:
        _load_corpus(cairn, Clock())
        cairn.ingest(CONVERSATION, format="locomo", progress=False)
        buf = io.StringIO()
        cairn.export(buf)
        outs.append(buf.getvalue())
    for target in (first, tmp_path / "b.db"):
        with Cairn(target, now=Clock()) as cairn:
            cairn.import_(outs[-1].splitlines(keepends=True))
            buf = io.StringIO()
            cairn.export(buf)
            outs.append(buf.getvalue())
    assert len(outs[0]) > 1000
    assert outs[0] == outs[1] == outs[2]


def test_a_bulk_write_mixing_new_stored_and_repeated_records_equals_writing_them_one_by_one(tmp_path, pg_server):
    """put_memories writes the new records of a batch in one statement per table, and a
    record already stored (or repeated in the batch) one by one, in its place: the store
    ends as if each had been written alone (same export, same recall)."""
    from dataclasses import replace

    with Cairn(tmp_path / "seed.db", now=Clock()) as cairn:
        seeded = [cairn.remember(f"Seed record {i} about the billing ledger", kind="fact").memory for i in range(3)]
    exports = []
    for bulk in (True, False):
        with Cairn(pg_server.new_database(), now=Clock()) as cairn:
            with cairn.store.write() as tx:
                for memory in seeded:
                    tx.put_memory(memory)
            batch = [replace(seeded[0], content="Seed record 0 about the billing ledger, amended")]
            batch += [replace(seeded[1], id=f"{i:024x}", content=f"Bulk record {i} on ledger exports", aliases=("ledg",))
                      for i in range(12)]
            batch.insert(6, replace(batch[3], content="Bulk record 2 on ledger exports, written twice"))
            with cairn.store.write() as tx:
                if bulk:
                    tx.put_memories(batch)
                else:
                    for memory in batch:
                        tx.put_memory(memory)
            buf = io.StringIO()
            cairn.export(buf)
            records = [line for line in buf.getvalue().splitlines() if '"type":"memory"' in line]
            exports.append((records, cairn.search("ledger exports amended", lane="claims", trace=False).ids))
    assert exports[0] == exports[1]
    assert len(exports[0][0]) == 3 + 12 and "written twice" in "".join(exports[0][0])
