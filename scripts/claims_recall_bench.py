"""Claims recall in process on the scale ladder's stores: latency, and the outcome to diff.

    python scripts/claims_recall_bench.py build SIZE FOLDER
    python scripts/claims_recall_bench.py run STORE QUERIES OUT [--latencies FILE]

build: the ladder's store of SIZE claims (``cairn.bench.scale.Generator``, seed 7, the
       ladder's batches through ``Cairn.import_``) as FOLDER/scale-SIZE.db, and its query
       mix (25 needle and 200 background queries, the ladder's) as
       FOLDER/queries-SIZE.json. Build once, with any version: the stores are then read only.
run:   ``Cairn.recall(query, limit=3, trace=False)`` once per query of the mix (after 20
       warm-up recalls), timed (wall and CPU, milliseconds); OUT gets, per query, the ids,
       each result's relevance, rank score, freshness and markers, the digest, the note,
       the withheld counts and the confidences, and ``Cairn.explain`` of the query (every
       candidate with its numbers and reason). Two runs of different code on the same
       store are identical when their OUT files are (``cmp``). A query file may also hold
       ``queries`` and ``common`` lists (the mix of ``cairn.bench.recall_latency``).

Run it with ``PYTHONPATH`` at the ``src`` of the code to measure (``CAIRN_SEMANTIC=off``);
the median and p95 go to stdout as JSON, the latencies to ``--latencies`` (appended).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path


def build(size: int, folder: Path) -> None:
    from cairn.bench.scale import BACKGROUND_QUERIES, BATCH, NOW, Generator
    from cairn.engine import Cairn

    gen = Generator(size, 7)
    with Cairn(folder / f"scale-{size}.db", now=NOW) as cairn:
        batch: list[str] = []
        for line in gen.lines():
            batch.append(line)
            if len(batch) >= BATCH:
                cairn.import_(batch)
                batch = []
        if batch:
            cairn.import_(batch)
        queries = gen.background_queries(BACKGROUND_QUERIES)
        cairn.store.checkpoint()
    (folder / f"queries-{size}.json").write_text(json.dumps({"needles": gen.needles, "queries": queries}))


def run(store: Path, queries: Path, out: Path, latencies: Path | None) -> dict:
    import cairn as package
    from cairn.bench.scale import NOW
    from cairn.engine import Cairn

    mix = json.loads(queries.read_text())
    asked = [q for _, q in mix.get("needles", [])] + mix.get("queries", []) + mix.get("common", [])
    wall, cpu, docs = [], [], []
    with Cairn(store, now=NOW) as cairn:
        for query in asked[:20]:
            cairn.recall(query, limit=3, trace=False)
        for query in asked:
            t0, c0 = time.perf_counter(), time.process_time()
            got = cairn.recall(query, limit=3, trace=False)
            wall.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            docs.append({
                "query": query, "ids": got.ids,
                "results": [(r.relevance, r.rank_score, r.freshness, r.markers) for r in got.results],
                "digest": got.digest, "note": got.note, "withheld": got.outcome.withheld,
                "turns": got.outcome.turns_found, "confidence": got.confidence,
            })
        for doc, query in zip(docs, asked, strict=True):
            doc["explain"] = cairn.explain(query, limit=3)
    out.write_text(json.dumps(docs, indent=0, sort_keys=True, default=str))
    if latencies is not None:
        with latencies.open("a") as f:
            f.write(json.dumps({"store": str(store), "src": os.path.dirname(package.__file__), "wall": wall, "cpu": cpu}) + "\n")
    return {"src": os.path.dirname(package.__file__), "store": str(store), "queries": len(asked),
            "wall_ms": _median_p95(wall), "cpu_ms": _median_p95(cpu)}


def _median_p95(values: list[float]) -> list[float]:
    ordered = sorted(values)
    return [round(statistics.median(ordered), 2), round(ordered[int(0.95 * (len(ordered) - 1))], 2)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("size", type=int)
    b.add_argument("folder", type=Path)
    r = sub.add_parser("run")
    r.add_argument("store", type=Path)
    r.add_argument("queries", type=Path)
    r.add_argument("out", type=Path)
    r.add_argument("--latencies", type=Path)
    args = parser.parse_args(argv)
    if args.command == "build":
        build(args.size, args.folder)
    else:
        print(json.dumps(run(args.store, args.queries, args.out, args.latencies)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
