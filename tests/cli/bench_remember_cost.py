"""Cost of remember's look-alike ("similar") search against the cost of a remember (a timing
script, not a test). A store of N claims built from ten tools x ten topics, so that many
share words; then 200 probe claims of the same shape: the search alone is timed on a read
snapshot (CPU only), and a remember without the search (its durable commit included) is
timed for comparison, in the same run.

    .venv/bin/python tests/cli/bench_remember_cost.py 300 2000 5000
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from cairn import Cairn, Kind, Memory
from cairn.engine import records

TOPICS = ["billing", "staging", "deploys", "backups", "search", "auth", "reports", "queues", "cache", "logs"]
TOOLS = ["PostgreSQL", "Redis", "Kafka", "nginx", "S3", "Celery", "pytest", "Jest", "Docker", "Terraform"]
PROBES = 200


def claim(i: int) -> str:
    return f"{TOOLS[i % 10]} {i % 97} handles {TOPICS[(i // 10) % 10]} for team {i % 13} in region {i % 7}"


def summary(ms: list[float]) -> str:
    ms = sorted(ms)
    return f"median {statistics.median(ms):.2f} ms, p95 {ms[int(len(ms) * 0.95)]:.2f} ms"


def measure(n: int) -> None:
    original = records.find_similar
    records.find_similar = lambda tx, space, memory: ()  # build and compare without the search
    try:
        with tempfile.TemporaryDirectory() as tmp, Cairn(Path(tmp) / "c.db", now="2026-11-01T00:00:00Z") as c:
            for i in range(n):
                c.remember(claim(i), kind="fact")
            template = c.list().memories[0]
            search_ms, hints = [], 0
            with c.store.snapshot() as view:
                for i in range(n, n + PROBES):
                    probe = Memory(**{**{f: getattr(template, f) for f in Memory.__dataclass_fields__},
                                      "id": f"probe{i}", "content": claim(i), "kind": Kind.FACT})
                    t = time.perf_counter()
                    hints += bool(original(view, c.space, probe))
                    search_ms.append((time.perf_counter() - t) * 1000)
            remember_ms = []
            for i in range(n, n + PROBES):
                t = time.perf_counter()
                c.remember(claim(i) + " (probe)", kind="fact")
                remember_ms.append((time.perf_counter() - t) * 1000)
    finally:
        records.find_similar = original
    print(f"{n} records: search {summary(search_ms)} ({hints}/{PROBES} probes with a hint);"
          f" remember without it {summary(remember_ms)}")


for size in [int(a) for a in sys.argv[1:]] or [300, 2000]:
    measure(size)
