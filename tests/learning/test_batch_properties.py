"""Property: whatever a batch holds — mixes of kinds, duplicate texts, replacements of
stronger and weaker records, in any order — no claim from a weaker source ends up current
over a stronger record's value, and every record the batch wrote holding a withheld value
is ``conflicted``. Also: the batch never leaves two current copies of one value.

The oracle restates the priority table and the exceptions literally instead of calling the
policy module, so a broken policy cannot agree with itself.
"""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cairn import Cairn, CairnError

T0 = datetime(2026, 11, 1, tzinfo=UTC)
NOW = T0 + timedelta(days=10)
TEXTS = [
    "Atlas database port is 5432",
    "Atlas database port is 1111",
    "Atlas database port is 6000",
    "Atlas cache host is cache-1",
    "Atlas cache host is cache-2",
]
# Mostly facts, so that texts meet their twins of the same kind often.
KINDS = ["fact", "fact", "fact", "decision", "preference", "project_state"]
BASES = ["summary", "user_statement", "tool_observation", "manual_correction", "unknown"]
SOURCES = {"summary": ["summary"], "conversation": ["user_statement", "summary"], "progress": ["tool_observation"],
           "manual": ["manual_correction", "user_statement"]}
ACTIVE = ("provisional", "confirmed")


def oracle_priority(kind: str, basis: str) -> int:
    if basis == "user_statement":
        return 3 if kind in ("preference", "decision") else 2
    if basis == "tool_observation":
        return 3 if kind == "project_state" else 0
    return {"summary": 1, "manual_correction": 4}.get(basis, 0)


def weaker(target: dict, kind: str, source_kind: str, basis: str) -> bool:
    """Would the oracle withhold this replacement of ``target`` (content differing)?"""
    if target["layer"] == "pinned":
        return True
    if oracle_priority(kind, basis) >= oracle_priority(target["kind"], target["evidence"]["basis"]):
        return False
    testimony = target["evidence"]["basis"] in ("user_statement", "manual_correction")
    if source_kind == "conversation" and basis == "user_statement" and testimony:
        return False
    # A fresh progress observation over a manually corrected project state (all sources here are fresh).
    return not (source_kind == "progress" and target["kind"] == "project_state"
                and target["evidence"]["basis"] == "manual_correction")


stored = st.lists(st.tuples(st.integers(0, len(TEXTS) - 1), st.sampled_from(KINDS), st.sampled_from(BASES),
                            st.booleans()), min_size=1, max_size=5)
claims = st.lists(st.tuples(st.booleans(), st.integers(0, 3), st.integers(0, len(TEXTS) - 1), st.sampled_from(KINDS)),
                  min_size=1, max_size=6)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stored, st.sampled_from(sorted(SOURCES)), st.integers(0, 1), claims)
# A weak record keeps its text because its own replacement carries a withheld value; a
# replacement reusing that text, planned first, must still find it there.
@example([(0, "fact", "user_statement", False), (3, "fact", "summary", False), (4, "fact", "summary", False)],
         "summary", 0, [(True, 2, 3, "fact"), (True, 0, 1, "fact"), (True, 1, 1, "fact")])
# A duplicate under another kind beside the withheld replacement.
@example([(0, "fact", "user_statement", False)], "summary", 0, [(False, 0, 1, "decision"), (True, 0, 1, "fact")])
def test_no_batch_lets_a_weaker_value_stand_over_a_stronger_record(records, source_kind, basis_n, proposals):
    with tempfile.TemporaryDirectory(dir="/dev/shm" if Path("/dev/shm").is_dir() else None) as folder:
        with Cairn(Path(folder) / "p.db", now=lambda: NOW) as cairn:
            ids: list[str] = []
            for n, (text, kind, basis, pin) in enumerate(records):
                found = cairn.remember(TEXTS[text], kind=kind, basis=basis, origin="o", pin=pin, at=T0 + timedelta(days=n))
                if found.memory.id not in ids:
                    ids.append(found.memory.id)
            before = {m.id: _snapshot(cairn, m.id) for m in map(cairn.get, ids)}
            basis = SOURCES[source_kind][basis_n % len(SOURCES[source_kind])]
            batch, replacing = _batch(before, ids, source_kind, basis, proposals)
            try:
                cairn.apply(batch)
            except CairnError:
                return  # refusals (e.g. a progress source naming a fact) have their own tests
            after = {m["id"]: m for m in _everything(cairn)}
            withheld = {value for target_id, value, kind in replacing
                        if value != before[target_id]["content"] and weaker(before[target_id], kind, source_kind, basis)}
            for target_id, value, _ in replacing:
                if value in withheld and before[target_id]["content"] not in withheld:
                    # The stronger record keeps its value, still current.
                    kept = after[target_id]
                    assert kept["content"] == before[target_id]["content"] and kept["status"] in ACTIVE, kept
            written = [m for m in after.values() if m["evidence"]["source_id"] == "batch"]
            for m in written:
                if m["content"] in withheld:
                    assert m["status"] == "conflicted", (m, withheld)
            for m in written:
                if m["status"] in ACTIVE:
                    twins = [o for o in after.values() if o["status"] in ACTIVE and o["kind"] == m["kind"]
                             and o["content"] == m["content"]]
                    assert len(twins) == 1, twins


def _batch(before: dict, ids: list[str], source_kind: str, basis: str, proposals) -> tuple[dict, list]:
    claim_docs, mention, replacing = [], [], []
    named: set[str] = set()
    for replaces, target_n, text, kind in proposals:
        target = ids[target_n % len(ids)]
        old = before[target]
        if replaces and target not in named and (source_kind != "progress" or old["kind"] == "project_state"):
            named.add(target)
            claim_docs.append({"kind": old["kind"], "content": TEXTS[text], "replaces": target})
            replacing.append((target, TEXTS[text], old["kind"]))
            mention.append(old["content"])
        else:
            claim_docs.append({"kind": kind, "content": TEXTS[text]})
        mention.append(TEXTS[text])
    source = {"id": "batch", "text": ". ".join(mention), "kind": source_kind, "origin": "o", "basis": basis}
    return {"source": source, "claims": claim_docs}, replacing


def _snapshot(cairn: Cairn, memory_id: str) -> dict:
    from cairn.model import memory_to_dict

    return memory_to_dict(cairn.get(memory_id))


def _everything(cairn: Cairn) -> list[dict]:
    from cairn.model import memory_to_dict

    return [memory_to_dict(m) for m in cairn.store.get_memories(cairn.space, _all_ids(cairn)).values()]


def _all_ids(cairn: Cairn) -> list[str]:
    return cairn.store.ids_with_prefix("memories", cairn.space, "", limit=1000)
