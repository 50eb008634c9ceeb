"""Stored trace size: 300 recalls over 1,000 seeded synthetic claims, mean/median/max bytes
of the trace rows. Run with the interpreter of the checkout to measure:

    .venv/bin/python tests/relations/bench_trace_size.py
"""

from __future__ import annotations

import random
import sqlite3
import statistics
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from cairn import Cairn


def main() -> None:
    rng = random.Random(7)
    words = [f"w{i}" for i in range(120)]
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as folder:
        db = Path(folder) / "traces.db"
        with Cairn(db, now=lambda: datetime(2026, 11, 10, tzinfo=UTC)) as cairn:
            for i in range(1000):
                cairn.remember(" ".join(rng.choices(words, k=10)) + f" item{i}", kind="fact")
            for _ in range(300):
                cairn.recall(" ".join(rng.sample(words, 3)))
        connection = sqlite3.connect(db)
        sizes = [len(row[0]) for row in connection.execute("SELECT data FROM traces")]
        connection.close()
    mean, median = statistics.mean(sizes), statistics.median(sizes)
    print(f"traces {len(sizes)}  mean {mean:.0f} B  median {median:.0f} B  max {max(sizes)} B")


if __name__ == "__main__":
    main()
