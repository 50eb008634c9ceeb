"""Several OS processes writing one database at once lose nothing and surface no
"database is locked" error: N x M writes -> N x M records and N x M events."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
from pathlib import Path

from cairn import Cairn

N_PROCESSES = 4
M_WRITES = 40


def _writer(path: str, worker: int, count: int, queue) -> None:
    errors = []
    try:
        with Cairn(path) as c:
            for i in range(count):
                try:
                    c.remember(f"worker {worker} wrote claim number {i}", kind="fact", origin=f"w{worker}")
                except Exception as err:  # noqa: BLE001 - collected and asserted on
                    errors.append(repr(err))
    except Exception as err:  # noqa: BLE001
        errors.append(repr(err))
    queue.put(errors)


def test_processes_writing_at_once_lose_nothing(db_path):
    Cairn(db_path).close()
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(str(db_path), w, M_WRITES, queue)) for w in range(N_PROCESSES)]
    for p in procs:
        p.start()
    errors = [e for _ in procs for e in queue.get(timeout=120)]
    for p in procs:
        p.join(timeout=120)
    assert errors == []
    assert all(p.exitcode == 0 for p in procs)
    with Cairn(db_path) as c:
        assert c.list().total == N_PROCESSES * M_WRITES
        assert c.store.count_events("default") == N_PROCESSES * M_WRITES
        contents = {m.content for m in c.store.iter_memories("default")}
    assert len(contents) == N_PROCESSES * M_WRITES


def test_cli_processes_at_once_surface_no_lock_errors(db_path):
    Cairn(db_path).close()
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "cairn", "--db", str(db_path), "remember", f"cli writer {i} claim", "--kind", "fact"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(8)
    ]
    results = [p.communicate(timeout=120) + (p.returncode,) for p in procs]
    assert [r[2] for r in results] == [0] * 8, [r[1] for r in results]
    assert not any("locked" in r[1] for r in results)
    with Cairn(db_path) as c:
        assert c.list().total == 8


def test_a_lock_held_beyond_the_timeout_is_a_clean_refusal(db_path: Path, monkeypatch):
    import sqlite3

    from testkit import run_cli_process
    from testkit.db import db_fingerprint

    Cairn(db_path).close()
    blocker = sqlite3.connect(db_path, isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        result = run_cli_process(
            "--db", str(db_path), "remember", "Blocked write attempt", "--kind", "fact", env={"CAIRN_BUSY_TIMEOUT": "0.3"}
        )
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert result.returncode == 1
    assert "locked" in result.stderr and result.stderr.count("\n") == 1
    before = db_fingerprint(db_path)
    assert before == db_fingerprint(db_path)
    with Cairn(db_path) as c:
        assert c.list().total == 0
