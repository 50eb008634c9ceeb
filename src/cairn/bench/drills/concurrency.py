"""The concurrency drill: N writer processes and a few reader processes share one
database file; every write must land (none lost, ids distinct) and no process may see a
lock error (writers wait for each other within the busy timeout)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class ConcurrencyResult:
    writers: int
    writes: int
    stored: int
    lock_errors: int
    other_errors: int
    reads: int
    seconds: float

    @property
    def lost(self) -> int:
        return self.writers * self.writes - self.stored

    @property
    def ok(self) -> bool:
        return self.lost == 0 and self.lock_errors == 0 and self.other_errors == 0

    def lines(self) -> list[str]:
        return [f"{self.writers} writers × {self.writes} writes: {self.stored} stored, {self.lost} lost",
                f"lock errors: {self.lock_errors}  other errors: {self.other_errors}  reads by readers: {self.reads}"
                f"  ({self.seconds:.0f} s)"]


def worker(db: str, role: str, index: int, count: int) -> None:
    """A child: ``write`` remembers ``count`` records; ``read`` recalls and lists until
    the file ``db.done`` exists. Prints one JSON line of counts."""
    from ...engine import Cairn
    from ...errors import CairnError, StoreUnavailable

    counts = {"ok": 0, "lock": 0, "other": 0}
    with Cairn(db, create=False) as cairn:
        n = 0
        while (role == "write" and n < count) or (role == "read" and not os.path.exists(db + ".done")):
            try:
                if role == "write":
                    cairn.remember(f"Writer {index} stored record {n} in the concurrency drill", kind="fact")
                else:
                    cairn.recall(f"writer {index % 8} record", trace=False)
                    cairn.list(page=1)
                counts["ok"] += 1
            except StoreUnavailable as err:
                counts["lock" if "locked" in str(err) else "other"] += 1
            except CairnError:
                counts["other"] += 1
            n += 1
    print(json.dumps(counts))


def run(db: Path, writers: int = 8, writes: int = 2000, readers: int = 2) -> ConcurrencyResult:
    from ...engine import Cairn

    with Cairn(db):
        pass  # created once, so every worker opens an existing database
    done_flag = Path(str(db) + ".done")
    done_flag.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    started = time.monotonic()

    def spawn(role: str, i: int) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "cairn.bench.drills", "_worker", str(db), role, str(i), str(writes)],
                                stdout=subprocess.PIPE, text=True, env=env)

    write_procs = [spawn("write", i) for i in range(writers)]
    read_procs = [spawn("read", i) for i in range(readers)]
    totals = {"ok": 0, "lock": 0, "other": 0}
    reads = 0
    for proc in write_procs:
        out, _ = proc.communicate()
        for key, value in (json.loads(out.strip().splitlines()[-1]) if out.strip() else {"other": 1}).items():
            totals[key] += value
    done_flag.touch()
    for proc in read_procs:
        out, _ = proc.communicate()
        counts = json.loads(out.strip().splitlines()[-1]) if out.strip() else {"other": 1}
        reads += counts.get("ok", 0)
        totals["lock"] += counts.get("lock", 0)
        totals["other"] += counts.get("other", 0)
    done_flag.unlink(missing_ok=True)
    with Cairn(db, create=False) as cairn:
        stored = len({m.id for m in cairn.store.iter_memories(cairn.space)})
    return ConcurrencyResult(writers, writes, stored, totals["lock"], totals["other"], reads, time.monotonic() - started)
