"""The concurrency drill: W writer processes (each its own connection, as if on separate
hosts) each remember N distinct notes in one shared space while R reader processes recall
throughout; then the store is audited: every note present exactly once, one event per
write, the event log's sequence numbers 1..total with no gap and no repeat, and no reader
error. Used by tests/postgres/test_concurrency.py (small) and scripts/postgres_bench.py
(16 x 500)."""

from __future__ import annotations

import multiprocessing as mp
import time
from dataclasses import dataclass

SPACE = "drill"


def note(writer: int, i: int) -> str:
    return f"writer {writer} remembers note {i} about the topic{i % 11} release of project{writer % 5}"


def _writer(url: str, writer: int, count: int, start, out) -> None:
    from cairn import Cairn

    start.wait()
    with Cairn(url, space=SPACE) as cairn:
        for i in range(count):
            cairn.remember(note(writer, i), kind="fact")
    out.put(("wrote", writer, count))


def _reader(url: str, stop, out) -> None:
    from cairn import Cairn

    recalls = errors = 0
    first_error = ""
    with Cairn(url, space=SPACE) as cairn:
        out.put(("ready",))  # the writers start once every reader has its store open
        while True:  # at least one recall, then until the writers are done
            try:
                cairn.recall(f"topic{recalls % 11} release", trace=False)
                recalls += 1
            except Exception as err:  # counted and reported: the audit requires none
                errors += 1
                first_error = first_error or f"{type(err).__name__}: {err}"
            if stop.is_set():
                break
    out.put(("read", recalls, errors, first_error))


@dataclass
class Audit:
    writers: int
    per_writer: int
    seconds: float
    memories: int
    distinct_contents: int
    missing: int
    events: int
    seq_min: int
    seq_max: int
    seq_distinct: int
    recalls: int
    reader_errors: int
    first_error: str

    @property
    def expected(self) -> int:
        return self.writers * self.per_writer

    @property
    def gap_free(self) -> bool:
        return self.events == self.seq_distinct == self.seq_max and self.seq_min == 1

    def ok(self) -> bool:
        return (self.memories == self.distinct_contents == self.expected and self.missing == 0
                and self.events == self.expected and self.gap_free and self.reader_errors == 0 and self.recalls > 0)


def run(url: str, writers: int = 16, per_writer: int = 500, readers: int = 2) -> Audit:
    import psycopg

    from cairn import Cairn

    Cairn(url).close()  # create and migrate once, before the crowd arrives
    ctx = mp.get_context("spawn")
    start, stop, out = ctx.Event(), ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(url, w, per_writer, start, out)) for w in range(writers)]
    reading = [ctx.Process(target=_reader, args=(url, stop, out)) for _ in range(readers)]
    for p in procs + reading:
        p.start()
    for _ in reading:  # readers recall throughout: a spawned reader may open its store after
        out.get(timeout=120)  # a few quick writers are done, and then recall nothing
    began = time.perf_counter()
    start.set()
    for p in procs:
        p.join()
    seconds = time.perf_counter() - began
    stop.set()
    for p in reading:
        p.join()
    results = [out.get(timeout=30) for _ in range(writers + readers)]
    reads = [r for r in results if r[0] == "read"]
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT count(*), count(DISTINCT data::jsonb ->> 'content') FROM memories WHERE space = %s", (SPACE,)).fetchone()
        assert row is not None
        memories, distinct = row
        contents = {row[0] for row in conn.execute("SELECT data::jsonb ->> 'content' FROM memories WHERE space = %s", (SPACE,))}
        row = conn.execute("SELECT count(*), min(seq), max(seq), count(DISTINCT seq) FROM events").fetchone()
        assert row is not None
        events, lo, hi, seqs = row
    missing = sum(1 for w in range(writers) for i in range(per_writer) if note(w, i) not in contents)
    return Audit(writers, per_writer, seconds, memories, distinct, missing, events, lo or 0, hi or 0, seqs,
                 sum(r[1] for r in reads), sum(r[2] for r in reads), next((r[3] for r in reads if r[3]), ""))
