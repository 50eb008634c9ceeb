"""Drills that keep Cairn's hardening true: anyone can rerun them, and small variants run
in the test suite.

    python -m cairn.bench.drills crash        SIGKILL a writer at random points; no acknowledged write lost
    python -m cairn.bench.drills concurrency  N writer processes and readers on one file; none lost, no lock errors
    python -m cairn.bench.drills fuzz         generated CLI arguments and API calls, corrupted databases; no tracebacks
    python -m cairn.bench.drills refusals     refused commands leave files exactly as they were (bytes, mode, journal)
    python -m cairn.bench.drills redaction    the secret corpus: share caught, share of near-misses altered

Each prints its figures and exits 1 when a property failed. docs/benchmarks.md records
the figures with the command, machine and date.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path


def file_state(path: str | os.PathLike) -> tuple:
    """What a refused command must leave unchanged, read without opening the file as a
    database: existence, kind, permission bits, content digest, the SQLite header's
    journal-mode bytes and which of the WAL side files exist."""
    target = Path(path)
    if not target.exists():
        return ("absent",)
    info = target.stat()
    if stat.S_ISDIR(info.st_mode):
        return ("dir", stat.S_IMODE(info.st_mode), tuple(sorted(os.listdir(target))))
    data = target.read_bytes()
    # Bytes 18-19 of a SQLite header: 1,1 for a rollback journal, 2,2 for WAL.
    journal = tuple(data[18:20]) if data.startswith(b"SQLite format 3\x00") else None
    sides = tuple(Path(str(target) + s).exists() for s in ("-wal", "-shm", "-journal"))
    return ("file", stat.S_IMODE(info.st_mode), hashlib.sha256(data).hexdigest(), journal, sides)
