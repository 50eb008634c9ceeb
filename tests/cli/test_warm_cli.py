"""The read commands answered by a running server (cairn.cli.warm): the same output, error
line and exit status as in their own process, without importing the engine; and every
case where the server must decline, so that the command runs as before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cairn import Cairn
from cairn.cli.warm import SHAPING, answer
from cairn.host.warm import WarmServer, socket_path

NOW = "2026-06-02T00:00:00Z"
PROBE = """
import json, sys
from cairn.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
print("\\n@@" + json.dumps({"code": code, "engine": "cairn.engine.facade" in sys.modules}))
"""


@pytest.fixture(autouse=True)
def same_environment(monkeypatch):
    """The server (this process) and the commands share one environment, as a user's
    shell and the MCP server it started would."""
    monkeypatch.setenv("CAIRN_SEMANTIC", "off")
    for name in ("CAIRN_DB", "CAIRN_SPACE", "CAIRN_DEFAULT_LANE", "CAIRN_BUSY_TIMEOUT", "CAIRN_DEBUG", "CAIRN_WARM"):
        monkeypatch.delenv(name, raising=False)


def run(argv: list[str], cwd: Path, **env: str) -> tuple[int, str, str, bool]:
    """(exit status, stdout, stderr, whether the process imported the engine)."""
    environ = {**os.environ, **env}
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, cwd=cwd,
                          env=environ, timeout=120)
    out, found, tail = done.stdout.rpartition("\n@@")
    if not found:  # argparse exited (usage error, help) before the probe's last line
        return done.returncode, done.stdout, done.stderr, True
    last = json.loads(tail)
    return last["code"], out, done.stderr, last["engine"]


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "cairn.db"
    with Cairn(path, now="2026-06-01T00:00:00Z") as cairn:
        cairn.remember("Billing runs on PostgreSQL 16", kind="decision")
        cairn.remember("The staging deploy runs from the deploy-staging GitHub Actions workflow", kind="fact")
    return path


COMMANDS = [
    ["--now", NOW, "recall", "what runs billing?", "--no-trace"],
    ["--now", NOW, "--json", "search", "staging deploy", "--no-trace"],
    ["--now", NOW, "explain", "billing"],
    ["--now", NOW, "--json", "recall", "   "],  # refused: the same error line, JSON error and exit 1
    ["--now", NOW, "recall", "what is the wifi password", "--no-trace"],  # nothing: the same note
    ["--now", NOW, "--json", "list"],
    ["--now", NOW, "history"],
    ["--now", NOW, "show", "nosuchid"],  # refused: no such record, exit 1
]


@pytest.mark.parametrize("argv", COMMANDS, ids=[" ".join(a[2:4]) for a in COMMANDS])
def test_a_warm_answer_is_what_the_command_prints_in_its_own_process(db, tmp_path, argv):
    line = ["--db", str(db), *argv]
    cold = run(line, tmp_path)
    with WarmServer(db, cli=answer) as server:
        assert server._sock is not None
        warm = run(line, tmp_path)
    assert warm[:3] == cold[:3]
    assert cold[3] is True and warm[3] is False  # warm, the command imported no engine


def test_a_recall_answered_warm_writes_its_trace_in_the_same_database(db, tmp_path):
    with WarmServer(db, cli=answer):
        code, out, _, engine = run(["--db", str(db), "--now", NOW, "--json", "recall", "what runs billing?"], tmp_path)
    assert code == 0 and engine is False
    trace = json.loads(out)["trace"]
    with Cairn(db, read_only=True) as cairn:
        assert cairn.read_trace(trace)["id"] == trace


def test_a_relative_database_path_is_the_same_file(db, tmp_path):
    with WarmServer(db, cli=answer):
        code, out, _, engine = run(["--db", db.name, "--now", NOW, "recall", "billing", "--no-trace"], db.parent)
        assert code == 0 and "PostgreSQL 16" in out and engine is False
        code, out, _, engine = run(["--now", NOW, "recall", "billing", "--no-trace"], tmp_path,
                                   CAIRN_DB=str(db))  # $CAIRN_DB names it too
        assert code == 0 and "PostgreSQL 16" in out and engine is False


@pytest.mark.parametrize(
    ("argv", "env"),
    [
        (["--now", NOW, "recall", "billing", "--limit", "many"], {}),  # a usage error: argparse's own words
        (["--now", NOW, "recall", "--help"], {}),  # help is printed by the command itself
        (["--now", NOW, "recall", "billing", "--no-trace"], {"CAIRN_DEFAULT_LANE": "claims"}),  # shaped otherwise
        (["--now", NOW, "recall", "billing", "--no-trace"], {"CAIRN_WARM": "off"}),  # asked not to
        (["--now", NOW, "--space", "other", "status"], {}),  # not a read command the server answers
    ],
)
def test_the_server_declines_and_the_command_runs_as_before(db, tmp_path, argv, env):
    line = ["--db", str(db), *argv]
    cold = run(line, tmp_path, **env)
    with WarmServer(db, cli=answer):
        warm = run(line, tmp_path, **env)
    assert warm[:3] == cold[:3]
    assert warm[3] is True or "--help" in argv or "many" in argv  # ran in its own process


def test_another_database_is_not_answered_by_this_server(db, tmp_path):
    other = tmp_path / "elsewhere" / "cairn.db"
    other.parent.mkdir()
    with Cairn(other, now="2026-06-01T00:00:00Z") as cairn:
        cairn.remember("Billing runs on MySQL 8", kind="decision")
    with WarmServer(db, cli=answer):
        assert socket_path(other) != socket_path(db)
        code, out, _, engine = run(["--db", str(other), "--now", NOW, "recall", "billing", "--no-trace"], tmp_path)
    assert code == 0 and "MySQL 8" in out and engine is True
    served = {"argv": ["--db", str(other), "recall", "billing"], "cwd": str(tmp_path), "db": str(other),
              "env": {name: os.environ.get(name) for name in SHAPING}, "kind": "cli"}
    assert answer({**served, "argv": ["--db", str(db), "recall", "billing", "--no-trace"]}, db) is not None  # control
    assert answer(served, db) is None  # the server itself refuses a request for another file


def test_ctrl_c_while_waiting_for_the_server_is_an_error_line_not_a_traceback(db, tmp_path):
    import signal
    import socket
    import time

    from cairn.host.claude_code import HookPlace

    HookPlace(db).ensure()
    mute = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # a server that accepts and never answers
    mute.bind(str(socket_path(db)))
    mute.listen(4)
    try:
        child = subprocess.Popen([sys.executable, "-m", "cairn", "--db", str(db), "--json", "recall", "billing"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
        conn, _ = mute.accept()  # the command is waiting for its answer now
        time.sleep(0.2)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
        conn.close()
    finally:
        mute.close()
    assert child.returncode == 1 and "Traceback" not in err
    assert err.startswith("cairn: interrupted") and json.loads(out)["error"]["code"] == "interrupted"
