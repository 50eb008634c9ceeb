"""The crash drill: a writer process is killed with SIGKILL at random moments while it
writes; every write it acknowledged (its ``remember`` returned) must be in the store, and
no write may be half-committed (a record without its event, or an event without its
record). The database is checked with SQLite's integrity check after every round."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class CrashResult:
    kills: int
    acknowledged: int
    lost: int
    half_committed: int
    integrity_failures: int
    seconds: float

    @property
    def ok(self) -> bool:
        return self.lost == 0 and self.half_committed == 0 and self.integrity_failures == 0 and self.kills > 0

    def lines(self) -> list[str]:
        return [f"SIGKILLs: {self.kills}  acknowledged writes: {self.acknowledged}  lost: {self.lost}",
                f"half-committed: {self.half_committed}  integrity failures: {self.integrity_failures}"
                f"  ({self.seconds:.0f} s)"]


def writer(db: str, start: int) -> None:
    """The child: remember records forever, printing each id once its write returned."""
    from ...engine import Cairn

    with Cairn(db) as cairn:
        n = start
        while True:
            memory = cairn.remember(f"Crash drill record number {n} written before a kill", kind="fact").memory
            sys.stdout.write(f"{memory.id}\n")
            sys.stdout.flush()
            n += 1


def run(db: Path, kills: int = 200, seed: int = 7, progress=None) -> CrashResult:
    from ...engine import Cairn

    rng = random.Random(seed)
    acked: list[str] = []
    started = time.monotonic()
    integrity_failures = done = 0
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    for round_ in range(kills):
        child = subprocess.Popen([sys.executable, "-m", "cairn.bench.drills", "_writer", str(db), str(round_ * 100_000)],
                                 stdout=subprocess.PIPE, text=True, env=env)
        assert child.stdout is not None
        first = child.stdout.readline()  # the writer is up and writing
        if first.strip():
            acked.append(first.strip())
        time.sleep(rng.uniform(0.0, 0.15))
        child.send_signal(signal.SIGKILL)
        rest, _ = child.communicate()
        # A line fully printed before the kill is an acknowledged write; a cut line is not.
        acked += [line for line in rest.split("\n")[:-1] if line.strip()]
        done += 1
        if progress and done % 20 == 0:
            progress(done, kills)
        with Cairn(db, create=False) as cairn:
            if cairn.store.integrity() != "ok":
                integrity_failures += 1
    with Cairn(db, create=False) as cairn:
        stored = {m.id for m in cairn.store.iter_memories(cairn.space)}
        events = cairn.store.events(cairn.space)
    lost = sum(1 for memory_id in acked if memory_id not in stored)
    event_ids = {c.id for e in events for c in e.changes}
    half = len(stored ^ event_ids) + sum(1 for e in events if not e.changes)
    return CrashResult(done, len(acked), lost, half, integrity_failures, time.monotonic() - started)
