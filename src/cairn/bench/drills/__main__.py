"""``python -m cairn.bench.drills NAME``: run one drill and print its figures (exit 1 when
a property failed). See the package docstring for the list."""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def _progress(done: int, total: int) -> None:
    print(f"  … {done}/{total}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cairn.bench.drills", description=__doc__)
    sub = parser.add_subparsers(dest="drill", required=True, metavar="DRILL")
    p = sub.add_parser("crash", help="SIGKILL a writer at random points; count lost acknowledged writes")
    p.add_argument("--kills", type=int, default=200, help="how many SIGKILLs (default 200)")
    p.add_argument("--seed", type=int, default=7)
    p = sub.add_parser("concurrency", help="N writer processes and readers on one file")
    p.add_argument("--writers", type=int, default=8, help="writer processes (default 8)")
    p.add_argument("--writes", type=int, default=2000, help="writes per writer (default 2000)")
    p.add_argument("--readers", type=int, default=2, help="reader processes (default 2)")
    p = sub.add_parser("fuzz", help="generated CLI and API inputs, corrupted databases")
    p.add_argument("--inputs", type=int, default=10_000, help="generated CLI inputs (default 10000)")
    p.add_argument("--seed", type=int, default=11)
    sub.add_parser("refusals", help="refused commands leave files exactly as they were")
    sub.add_parser("redaction", help="the secret corpus: caught and false-positive shares")
    # Children of the crash and concurrency drills (not for direct use).
    p = sub.add_parser("_writer")
    p.add_argument("db")
    p.add_argument("start", type=int)
    p = sub.add_parser("_worker")
    p.add_argument("db")
    p.add_argument("role")
    p.add_argument("index", type=int)
    p.add_argument("count", type=int)
    args = parser.parse_args(argv)

    if args.drill == "_writer":
        from .crash import writer

        writer(args.db, args.start)
        return 0
    if args.drill == "_worker":
        from .concurrency import worker

        worker(args.db, args.role, args.index, args.count)
        return 0

    print(f"drill {args.drill} on {platform.node()} ({platform.machine()}, {platform.system()} {platform.release()},"
          f" Python {platform.python_version()}), {datetime.now(UTC).strftime('%Y-%m-%d %H:%M')} UTC")
    started = time.monotonic()
    result: Any  # each drill's result: .lines() and .ok
    with tempfile.TemporaryDirectory(prefix="cairn-drill-") as tmp:
        base = Path(tmp)
        if args.drill == "crash":
            from . import crash

            result = crash.run(base / "crash.db", kills=args.kills, seed=args.seed, progress=_progress)
        elif args.drill == "concurrency":
            from . import concurrency

            result = concurrency.run(base / "shared.db", writers=args.writers, writes=args.writes, readers=args.readers)
        elif args.drill == "fuzz":
            from . import fuzz

            result = fuzz.run(base, inputs=args.inputs, seed=args.seed, progress=_progress)
        elif args.drill == "refusals":
            from . import refusals

            result = refusals.run()
        else:
            from . import redaction

            result = redaction.run()
    try:
        for line in result.lines():
            print(line)
        print(f"{'PASS' if result.ok else 'FAIL'} in {time.monotonic() - started:.1f} s", flush=True)
    except BrokenPipeError:
        pass  # the reader stopped reading (`| head`): the verdict is still the exit status
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
