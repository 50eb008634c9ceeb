"""Cost of choosing the records a batch's source mentions (a timing script, not a test):
N synthetic records of 10 words from a 5000-word vocabulary in one origin, then sources of
30/300/3000 words. Worst case by design: a tiny vocabulary makes every source word occur in
many records.

    .venv/bin/python tests/learning/bench_candidates.py 20000
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from cairn import Cairn
from cairn.model import Basis, Evidence, Kind, Memory, Method

VOCABULARY = [f"w{i}" for i in range(5000)]
SOURCE_WORDS = (30, 300, 3000)


def main(records: int) -> None:
    rng = random.Random(1)
    created = datetime(2026, 11, 1, tzinfo=UTC)
    with tempfile.TemporaryDirectory() as folder, Cairn(Path(folder) / "x.db", now="2026-11-10T12:00:00Z") as cairn:
        # Written straight through the store: a remember() per record would time the writes.
        with cairn.store.write() as tx:
            for i in range(records):
                content = " ".join(rng.choices(VOCABULARY, k=10))
                evidence = Evidence(Basis.SUMMARY, Method.LOCAL, "s", created)
                tx.put_memory(
                    Memory(id=f"{i:024x}", space="default", origin="acme", kind=Kind.FACT, content=content,
                           created_at=created, updated_at=created, evidence=evidence)
                )
        for words in SOURCE_WORDS:
            text = " ".join(rng.choices(VOCABULARY, k=words))
            started = time.perf_counter()
            found = cairn.mentioned_by({"id": "x", "text": text, "kind": "summary", "origin": "acme"})
            elapsed = time.perf_counter() - started
            print(f"{records} records, source of {words} words: {elapsed:.3f}s, {len(found)} mentioned")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20000)
