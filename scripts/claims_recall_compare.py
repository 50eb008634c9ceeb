"""Claims recall of one tree, in full, to compare with another tree's byte for byte.

    python scripts/claims_recall_compare.py STORE QUERIES OUT

On a copy of STORE (a store of ``scripts/claims_recall_bench.py build``), with QUERIES its
query mix, OUT gets one JSON line per call: the wire form of ``Cairn.recall`` (results,
scores, markers, digest, note, withheld counts, confidences), ``Cairn.explain`` (every
candidate with its numbers and reason) and, for traced recalls, the stored trace body
(its random id left out). The calls:

1. every query of the mix, recall and explain, traced and not;
2. every fourth query again with options: search, include_dormant, include_history,
   as_of a year back, an origin filter, a preferred origin, limit 5 in 512 bytes;
3. writes between recalls, each followed by the needle queries and a sample of the
   others: records imported through a second engine on the same file (another
   connection), then a record correcting one that was just recalled and a new record
   holding a needle's words, written through the engine that recalls, then a recalled
   record forgotten.

Run it once with each tree's ``src`` on ``PYTHONPATH`` (``CAIRN_SEMANTIC=off``) and
``cmp`` the two OUT files: a kept value that a write did not invalidate shows up as a
difference after the writes.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from datetime import timedelta
from pathlib import Path


def main(store: Path, queries: Path, out: Path) -> int:
    from cairn.bench.scale import NOW
    from cairn.engine import Cairn

    mix = json.loads(queries.read_text())
    needles = [q for _, q in mix.get("needles", [])]
    asked = needles + mix.get("queries", [])
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "store.db"
        shutil.copy(store, db)
        lines: list[str] = []
        with Cairn(db, now=NOW) as cairn:

            def record(label: str, query: str, **options) -> dict:
                got = (cairn.search if label == "search" else cairn.recall)(query, **options)
                doc = {"call": label, "query": query, "options": {k: str(v) for k, v in options.items()},
                       "recall": got.to_dict()}
                if got.trace is not None:
                    with cairn.store.snapshot() as view:
                        body = view.get_trace(cairn.space, got.trace)
                    doc["trace"] = {k: v for k, v in (body or {}).items() if k != "id"}
                    doc["recall"] = {k: v for k, v in doc["recall"].items() if k != "trace"}
                explain_options = {k: v for k, v in options.items() if k not in ("trace", "include_retired")}
                if label != "search":
                    doc["explain"] = cairn.explain(query, **explain_options)
                lines.append(json.dumps(doc, sort_keys=True, default=str))
                return doc

            for i, query in enumerate(asked):
                record("recall", query, limit=3, trace=bool(i % 2))
            origins = ["repo-3", "repo-16", "repo-40"]
            for i, query in enumerate(asked[::4]):
                record("search", query, trace=False)
                record("dormant", query, limit=3, include_dormant=True, trace=False)
                record("history", query, limit=3, include_history=True, trace=False)
                record("as_of", query, limit=3, as_of=NOW - timedelta(days=365), trace=False)
                record("origin", query, limit=3, origin=origins[i % 3], trace=False)
                record("prefer", query, limit=3, prefer_origin=origins[i % 3], trace=False)
                record("small", query, limit=5, budget=512, trace=False)
            sample = needles + asked[25::9]

            # Another connection writes: records holding the needles' words.
            with Cairn(db, now=NOW) as other:
                other.import_([_memory_line(f"c0ffee{i:018x}", f"another note on {query}", NOW)
                               for i, query in enumerate(needles[:10])])
            for query in sample:
                record("after-other-write", query, limit=3, trace=False)

            # This connection writes: a correction of a recalled record, a new record.
            first = next(r for q in needles if (r := cairn.recall(q, limit=3, trace=False).ids))
            cairn.import_([
                _memory_line("c0ffee" + "e" * 18, "the corrected text of a recalled needle record", NOW),
                json.dumps({"type": "relation", "data": {
                    "id": "c0ffee" + "f" * 18, "space": "default", "from": "c0ffee" + "e" * 18, "role": "corrects",
                    "to": first[0], "created_at": _time(NOW), "status": "active"}}),
                _memory_line("c0ffee" + "d" * 18, needles[-1] + " and a fresh detail", NOW),
            ])
            for query in sample:
                record("after-own-write", query, limit=3, trace=bool(len(lines) % 2))

            # A recalled record forgotten.
            gone = next(r for q in needles[5:] if (r := cairn.recall(q, limit=3, trace=False).ids))
            cairn.forget(gone[0])
            for query in sample:
                record("after-forget", query, limit=3, trace=False)
    out.write_text("\n".join(lines) + "\n")
    print(json.dumps({"calls": len(lines), "out": str(out)}))
    return 0


def _time(at) -> str:
    from cairn.model import format_time

    return format_time(at)


def _memory_line(memory_id: str, content: str, at) -> str:
    when = _time(at - timedelta(days=1))
    return json.dumps({"type": "memory", "data": {
        "id": memory_id, "space": "default", "origin": "repo-3", "kind": "fact", "content": content, "aliases": [],
        "status": "confirmed", "layer": "durable",
        "evidence": {"basis": "user_statement", "method": "agent", "source_id": None, "at": when},
        "certainty": None, "valid_from": None, "valid_to": None, "created_at": when, "updated_at": when,
        "reinforced_at": None, "feedback": {"utility": None, "accuracy": None}, "revision": 1,
        "expected_resolution_at": None, "last_confirmed_at": None, "purged_at": None}})


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])))
