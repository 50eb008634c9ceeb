"""The warm path of the per-prompt hook (cairn.host.warm): a running process with the
engine loaded answers for the hook process, which then never imports the engine.

What must hold: the answer is exactly the one the hook computes in process (output and
ledger), the hook falls back to working in process whenever no usable server is there
(none, a stale socket, a folder that is not the user's alone), one server per database,
the socket removed when its server stops, and a real ``cairn mcp`` serves it.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cairn import Cairn
from cairn.host.claude_code import HookPlace, HookTimeout, user_prompt_submit
from cairn.host.warm import WarmServer, socket_path

NOW = "2026-06-03T09:00:00Z"
PROMPTS = [
    ("s-1", "how does the staging deploy work?"),  # RETRIEVE: injected
    ("s-1", "and the staging deploy workflow, remind me?"),  # already injected in s-1: silence
    ("s-2", "how does the staging deploy work?"),  # another session: injected again
    ("s-1", "do it like we did last time"),  # ASK: a one-line hint
    ("s-1", "ok"),  # SKIP
    ("s-2", "How does Omar like his eggs?"),
]

# Runs the hook as the console script does, then reports what it printed and imported.
_PROBE = """
import io, json, sys
stdin = sys.stdin.read()
sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8")), encoding="utf-8")
out, sys.stdout = sys.stdout, io.StringIO()
from cairn.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as stop:
    code = stop.code
printed, sys.stdout = sys.stdout.getvalue(), out
print(json.dumps({"code": code, "printed": printed, "engine": "cairn.engine.facade" in sys.modules}))
"""


def run_hook(db: Path, session: str, text: str) -> tuple[int, str, bool]:
    """(exit code, stdout, whether the hook process imported the engine)."""
    payload = json.dumps({"session_id": session, "prompt": text, "cwd": "/home/dev/shop", "transcript_path": "",
                          "hook_event_name": "UserPromptSubmit"})
    env = {**os.environ, "CAIRN_HOOK_TIMEOUT": "30", "CAIRN_SEMANTIC": "off"}
    done = subprocess.run([sys.executable, "-c", _PROBE, "--db", str(db), "--now", NOW, "hook", "claude-code",
                           "user-prompt-submit"], input=payload, capture_output=True, text=True, timeout=120, env=env)
    last = json.loads(done.stdout.strip().splitlines()[-1])
    return last["code"], last["printed"], last["engine"]


def make_db(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "cairn.db"
    with Cairn(path, now="2026-06-01T00:00:00Z") as cairn:
        cairn.remember("The staging deploy runs from the deploy-staging GitHub Actions workflow", kind="fact")
        cairn.remember("Omar likes his eggs poached", kind="preference")
    return path


def ledgers(db: Path) -> dict[str, str]:
    folder = HookPlace(db).folder / "sessions"
    return {p.name: p.read_text() for p in sorted(folder.glob("*.json"))}


def test_a_warm_answer_is_the_in_process_answer_and_the_hook_loads_no_engine(tmp_path):
    cold_db = make_db(tmp_path / "cold")
    warm_db = tmp_path / "warm" / "cairn.db"
    warm_db.parent.mkdir()
    shutil.copyfile(cold_db, warm_db)  # the same records, ids included
    cold = [run_hook(cold_db, s, t) for s, t in PROMPTS]
    with WarmServer(warm_db) as server:
        assert server._sock is not None  # it serves
        warm = [run_hook(warm_db, s, t) for s, t in PROMPTS]
    assert [(c, p) for c, p, _ in warm] == [(c, p) for c, p, _ in cold]
    assert "deploy-staging" in warm[0][1] and warm[1][1] == "" and "deploy-staging" in warm[2][1]
    assert "which event" in warm[3][1] and warm[4][1] == ""
    assert ledgers(warm_db) == ledgers(cold_db) and ledgers(warm_db)  # the same ledger, written by the server
    # What makes it faster: warm, no hook process imported the engine; cold, every one
    # that got past the triage rules did (the negative control).
    assert [engine for _, _, engine in warm] == [False] * len(PROMPTS)
    assert [engine for _, _, engine in cold] == [True, True, True, True, False, True]


def test_without_a_live_server_the_hook_works_in_process(tmp_path):
    db = make_db(tmp_path)
    path = socket_path(db)
    HookPlace(db).ensure()
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))  # a socket file nobody listens on: its server was killed
    stale.close()
    code, printed, engine = run_hook(db, "s-1", PROMPTS[0][1])
    assert code == 0 and "deploy-staging" in printed and engine
    with WarmServer(db) as server:  # a new server replaces the stale socket
        assert server._sock is not None
        assert run_hook(db, "s-9", PROMPTS[0][1])[2] is False
    assert not path.exists()  # removed when its server stopped


def test_the_hook_talks_only_to_a_socket_in_a_folder_that_is_the_users_alone(tmp_path):
    db = make_db(tmp_path)
    with WarmServer(db) as server:
        assert server._sock is not None
        os.chmod(socket_path(db).parent, 0o755)  # now others could have put the socket there
        code, printed, engine = run_hook(db, "s-1", PROMPTS[0][1])
        assert code == 0 and "deploy-staging" in printed and engine  # answered, but in process
        os.chmod(socket_path(db).parent, 0o700)
        assert run_hook(db, "s-2", PROMPTS[0][1])[2] is False  # the control: private again, warm again


def test_one_server_per_database(tmp_path):
    db = make_db(tmp_path)
    with WarmServer(db) as first:
        second = WarmServer(db)
        assert first._sock is not None and second.start() is False  # the first one answers
        second.close()
        assert socket_path(db).exists()  # the second did not remove the first one's socket
    assert not socket_path(db).exists()
    assert WarmServer(tmp_path / "missing.db").start() is False  # no database: nothing served


def test_a_long_database_path_gets_a_private_socket_elsewhere(tmp_path, monkeypatch):
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    db = make_db(tmp_path / ("x" * 60) / ("y" * 60))
    path = socket_path(db)
    assert path.parent == runtime / f"cairn-{os.getuid()}" and len(str(path)) < 108
    assert socket_path(make_db(tmp_path / "short")).parent.name == "cairn.db.hooks"  # the control


def test_past_its_deadline_a_warm_answer_writes_no_ledger(tmp_path):
    db = make_db(tmp_path)
    payload = {"session_id": "s-1", "prompt": PROMPTS[0][1], "cwd": "/home/dev/shop"}
    with pytest.raises(HookTimeout):
        user_prompt_submit(payload, HookPlace(db), space="default", now=NOW, deadline=time.time() - 1)
    assert ledgers(db) == {}  # nothing counted as injected
    doc = user_prompt_submit(payload, HookPlace(db), space="default", now=NOW, deadline=time.time() + 60)
    assert doc and ledgers(db)  # the control: in time, answered and recorded


def test_cairn_mcp_serves_the_warm_hook_while_it_runs(tmp_path):
    pytest.importorskip("mcp")
    db = make_db(tmp_path)
    env = {**os.environ, "CAIRN_SEMANTIC": "off"}
    server = subprocess.Popen([sys.executable, "-m", "cairn", "--db", str(db), "mcp"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        path = socket_path(db)
        for _ in range(600):
            if path.exists():
                break
            time.sleep(0.05)
        assert path.exists(), "cairn mcp did not open its hook socket"
        code, printed, engine = run_hook(db, "s-1", PROMPTS[0][1])
        assert code == 0 and "deploy-staging" in printed and engine is False
    finally:
        assert server.stdin is not None
        server.stdin.close()  # the client goes away: the server stops
        server.wait(timeout=60)
    assert not path.exists()
    quiet = subprocess.Popen([sys.executable, "-m", "cairn", "--db", str(db), "mcp", "--no-warm-hook"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        assert quiet.stdin is not None and quiet.stdout is not None
        hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                            "clientInfo": {"name": "test", "version": "0"}}}
        quiet.stdin.write(json.dumps(hello).encode() + b"\n")
        quiet.stdin.flush()
        assert b'"result"' in quiet.stdout.readline()  # it is up and serving MCP ...
        assert not path.exists()  # ... and, turned off, has no hook socket
    finally:
        assert quiet.stdin is not None
        quiet.stdin.close()
        quiet.wait(timeout=60)


def test_without_unix_sockets_nothing_is_served_and_the_hook_works_in_process(tmp_path, monkeypatch):
    from cairn.host import warm

    db = make_db(tmp_path)
    monkeypatch.setattr(warm, "SUPPORTED", False)  # as on Windows
    assert WarmServer(db).start() is False and not socket_path(db).exists()
    payload = {"session_id": "s-1", "prompt": PROMPTS[0][1], "cwd": "/home/dev/shop"}
    assert warm.ask(db, space="default", payload=payload, now=NOW, budget=5) is warm.MISS
    monkeypatch.setattr(warm, "SUPPORTED", True)  # the control: supported, it serves
    with WarmServer(db) as server:
        assert server._sock is not None
        assert warm.ask(db, space="default", payload=payload, now=NOW, budget=30) is not warm.MISS
