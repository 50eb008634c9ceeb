"""The scale ladder's process column runs its processes from cached bytecode, as
cairn.bench.startup does, whatever the checkout's __pycache__ holds: one untimed run
writes the cache, then every query is timed."""

from __future__ import annotations

from pathlib import Path

from cairn.bench import scale


def _calls(monkeypatch, queries: list[str]) -> tuple[list[tuple[list[str], dict]], dict]:
    calls: list[tuple[list[str], dict]] = []

    def run(argv, env, **_):
        calls.append((list(argv), dict(env)))

    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setattr(scale.subprocess, "run", run)
    return calls, scale.process_latency(Path("/nowhere/scale.db"), queries)


def test_one_untimed_run_writes_the_bytecode_cache_then_each_query_is_timed(monkeypatch):
    calls, row = _calls(monkeypatch, ["first query", "second query", "third query"])
    queries = [argv[argv.index("recall") + 1] for argv, _ in calls]
    assert queries == ["first query", "first query", "second query", "third query"]
    assert set(row) >= {"median", "p95"}
    envs = [env for _, env in calls]
    assert all("PYTHONDONTWRITEBYTECODE" not in env for env in envs)
    caches = {env["PYTHONPYCACHEPREFIX"] for env in envs}
    assert len(caches) == 1 and not Path(caches.pop()).exists()  # a temporary folder, removed after


def test_control_the_environment_checked_is_the_childs(monkeypatch):
    # The parent's own environment still says "do not write bytecode": the check above
    # reads what the child was given, not what this process has.
    calls, _ = _calls(monkeypatch, ["a query"])
    import os

    assert os.environ["PYTHONDONTWRITEBYTECODE"] == "1" and calls
