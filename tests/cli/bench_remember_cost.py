"""Cost of `remember` with and without the look-alike ("similar") check, in one run (a timing
script, not a test): N claims from ten tools x ten topics, so that many share words and the
check has look-alikes to find; the baseline replaces the check with nothing.

    .venv/bin/python tests/cli/bench_remember_cost.py 2000
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from cairn import Cairn
from cairn.engine import records

N = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
TOPICS = ["billing", "staging", "deploys", "backups", "search", "auth", "reports", "queues", "cache", "logs"]
TOOLS = ["PostgreSQL", "Redis", "Kafka", "nginx", "S3", "Celery", "pytest", "Jest", "Docker", "Terraform"]


def claims(n):
    for i in range(n):
        yield f"{TOOLS[i % 10]} {i % 97} handles {TOPICS[(i // 10) % 10]} for team {i % 13} in region {i % 7}"


def run(check: bool) -> tuple[list[float], int]:
    original = records.Records._similar
    if not check:
        records.Records._similar = lambda self, tx, memory: ()  # type: ignore[method-assign]
    try:
        with tempfile.TemporaryDirectory() as tmp, Cairn(Path(tmp) / "c.db", now="2026-11-01T00:00:00Z") as c:
            times, hints = [], 0
            for text in claims(N):
                t = time.perf_counter()
                hints += bool(c.remember(text, kind="fact").similar)
                times.append((time.perf_counter() - t) * 1000)
            return times, hints
    finally:
        records.Records._similar = original  # type: ignore[method-assign]


for label, check in (("without the check (baseline)", False), ("with the check", True)):
    ms, hints = run(check)
    last = sorted(ms[-min(500, N):])
    print(f"{label}: {N} remembers ({hints} with a hint), median {statistics.median(ms):.2f} ms,"
          f" last {len(last)}: median {statistics.median(last):.2f} ms, p95 {last[int(len(last) * 0.95)]:.2f} ms")
