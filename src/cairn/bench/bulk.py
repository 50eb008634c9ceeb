"""Bulk ingest rates: ``import_``, ``ingest`` and ``remember_many`` on fresh stores.

``python -m cairn.bench.bulk [N] [--report FILE]`` writes N records through each path
(batches of :data:`BATCH`, one transaction each) and prints records per second of wall
time and CPU microseconds per record (``time.process_time``: on a shared machine the CPU
figure is the steadier one). The inputs are the scale ladder's synthetic claims (as
export lines) and conversations (600 turns each); ``remember_many`` gets the same claims
as texts with their kinds. A path the code under test lacks is reported as missing.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from .scale import NOW, Conversations, Generator

BATCH = 20_000


def _timed(step) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    step()
    return time.perf_counter() - wall, time.process_time() - cpu


def measure(n: int, folder: Path) -> dict[str, dict[str, float] | str]:
    from ..engine import Cairn

    lines = [line for line in Generator(n).lines() if line.startswith('{"type":"memory"')][:n]
    claims = [{"text": doc["data"]["content"], "kind": doc["data"]["kind"], "origin": doc["data"]["origin"]}
              for doc in map(json.loads, lines)]
    conversations = list(Conversations(n).conversations())
    out: dict[str, dict[str, float] | str] = {}

    def rate(name: str, written: int, wall: float, cpu: float) -> None:
        out[name] = {"records": written, "per_s": round(written / wall), "cpu_us": round(cpu / written * 1e6, 1)}

    with Cairn(folder / "import.db", now=NOW) as c:
        done = [0]
        wall, cpu = _timed(lambda: done.__setitem__(0, sum(c.import_(lines[i : i + BATCH]).records
                                                           for i in range(0, len(lines), BATCH))))
        rate("import_", done[0], wall, cpu)
    with Cairn(folder / "ingest.db", now=NOW) as c:
        wall, cpu = _timed(lambda: done.__setitem__(0, sum(c.ingest(t, origin=o, progress=False).episodes
                                                           for o, t in conversations)))
        rate("ingest", done[0], wall, cpu)
    with Cairn(folder / "many.db", now=NOW) as c:
        if not hasattr(c, "remember_many"):
            out["remember_many"] = "missing"
        else:
            wall, cpu = _timed(lambda: done.__setitem__(0, sum(c.remember_many(claims[i : i + BATCH]).added
                                                               for i in range(0, len(claims), BATCH))))
            rate("remember_many", done[0], wall, cpu)
    return out


def main(argv: list[str]) -> int:
    n = int(argv[0]) if argv and argv[0].isdigit() else 100_000
    with tempfile.TemporaryDirectory(prefix="cairn-bulk-") as tmp:
        result = measure(n, Path(tmp))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
