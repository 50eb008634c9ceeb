"""Retention and maintenance measured on a scale-ladder store (run by hand, not by pytest):

    .venv/bin/python tests/trust/bench_trust.py 100000 /tmp/trust-bench

Builds the scale ladder's synthetic store of SIZE claims (cairn.bench.scale.Generator),
measures needle recall (hit@3), candidate pool and recall latency, then times
``maintenance_plan``, ``retention_plan`` and ``apply_retention`` under one policy, and
measures recall again. Prints one JSON object.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

from cairn import Cairn
from cairn.bench.scale import NOW, Generator

POLICY = """
[[policy]]
name = "stale project state"
kind = "project_state"
older_than_days = 90
no_use_report = true

[[policy]]
name = "old conflicted records"
status = "conflicted"
older_than_days = 90
"""


def recall_stats(cairn: Cairn, gen: Generator, queries: list[str]) -> dict:
    hits, pools, ms = 0, [], []
    for number, query in enumerate([q for _, q in gen.needles] + queries):
        t0 = time.perf_counter()
        r = cairn.recall(query, limit=3, trace=False)
        ms.append((time.perf_counter() - t0) * 1000)
        pools.append(len(r.outcome.candidates))
        if number < len(gen.needles):
            hits += gen.needles[number][0] in r.ids[:3]
    return {"needle_hit@3": round(hits / len(gen.needles), 3), "pool_mean": round(statistics.mean(pools), 1),
            "recall_ms_median": round(statistics.median(ms), 1)}


def timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, round(time.perf_counter() - t0, 2)


def main(size: int, folder: Path) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"trust-{size}.db"
    for old in folder.glob(f"trust-{size}.db*"):
        old.unlink()
    gen = Generator(size)
    row: dict = {"size": size}
    with Cairn(path, now=NOW) as cairn:
        batch: list[str] = []
        for line in gen.lines():
            batch.append(line)
            if len(batch) >= 5000:
                cairn.import_(batch)
                batch = []
                print(f"  imported {cairn.store.count_memories('default')}", file=sys.stderr)
        if batch:
            cairn.import_(batch)
        queries = gen.background_queries(50)
        row["before"] = recall_stats(cairn, gen, queries)
        plan, row["maintain_plan_s"] = timed(cairn.maintenance_plan)
        row["maintain_ops"] = len(plan["ops"])
        rplan, row["retention_plan_s"] = timed(cairn.retention_plan, POLICY)
        applied, row["retention_apply_s"] = timed(cairn.apply_retention, rplan)
        row["retired"] = applied.applied
        row["after"] = recall_stats(cairn, gen, queries)
    return row


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]), Path(sys.argv[2]))))
