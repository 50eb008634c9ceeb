"""Start-up cost of one ``cairn`` process: a command imports only what it needs.

Each check runs a fresh interpreter (the modules an in-process test would see are
whatever earlier tests imported) and reads ``sys.modules`` after the command ran.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cairn import cli

# Parts a recall never needs: benchmarks, the MCP server, host adapters, extractors. (The
# warm path's client, cairn.host.warm, is the standard library's socket and json: a recall
# asks a running server first.)
HEAVY = ("cairn.bench", "cairn.mcp", "cairn.host.claude_code", "cairn.host.setup", "cairn.learn.extractors",
         "cairn.cli.bench", "cairn.cli.mcp")

_PROBE = """
import json, sys
from cairn.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as stop:  # --help
    code = stop.code
print(json.dumps({"code": code, "modules": sorted(m for m in sys.modules if m.startswith("cairn"))}))
"""


def _modules_after(*argv: str) -> tuple[int, list[str]]:
    done = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, timeout=120)
    last = json.loads(done.stdout.strip().splitlines()[-1])
    return last["code"], last["modules"]


def _heavy(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)]


@pytest.fixture
def store_with_one_claim(tmp_path: Path) -> Path:
    path = tmp_path / "cairn.db"
    code = cli.main(["--db", str(path), "--now", "2026-01-01T00:00:00Z", "remember",
                     "Billing runs on PostgreSQL 16", "--kind", "decision"])
    assert code == 0
    return path


def test_recall_process_imports_no_heavy_part(store_with_one_claim: Path):
    code, modules = _modules_after("--db", str(store_with_one_claim), "--json", "recall", "postgresql billing")
    assert code == 0
    assert "cairn.recall.pipeline" in modules  # it did recall
    assert _heavy(modules) == []


def test_the_probe_sees_heavy_imports(store_with_one_claim: Path):
    # Negative control: a command that needs a heavy part shows it in the same probe.
    code, modules = _modules_after("--db", str(store_with_one_claim), "bench", "scale", "--help")
    assert code == 0
    assert "cairn.bench.scale" in _heavy(modules)
    _, everything = _modules_after("--help")
    assert "cairn.cli.bench" in everything and "cairn.cli.mcp" in everything


def _choices(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_routes_name_every_command_and_only_real_ones():
    full = _choices(cli.build_parser())
    assert set(cli.ROUTES) == set(full)
    for command, group in cli.ROUTES.items():
        lean = _choices(cli.build_parser(command))
        assert command in lean, f"{command} is not registered by its routed group {group}"
        assert lean[command].get_default("handler") is full[command].get_default("handler")


def test_command_word_skips_global_options():
    assert cli.command_in(["--db", "x.db", "--space", "recall", "--json", "recall", "q"]) == "recall"
    assert cli.command_in(["--now", "2026-01-01", "list"]) == "list"
    assert cli.command_in(["--help", "recall"]) is None
    assert cli.command_in([]) is None


def test_unknown_command_still_lists_every_command(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["no-such-command"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "recall" in err and "bench" in err


_COLLECTOR = """
import gc, json, sys
import cairn.cli as cli
seen = {}
real = cli.execute
def execute(args):
    seen["during the command"] = gc.isenabled()
    seen["frozen"], seen["young"] = gc.get_freeze_count(), gc.get_count()[0]
    return real(args)
cli.execute = execute
seen["before run"] = gc.isenabled()
try:
    cli.run()
except SystemExit:
    pass
print(json.dumps(seen))
"""


def test_the_executable_pauses_the_collector_only_while_importing(store_with_one_claim: Path):
    """``run()`` pauses garbage collection for start-up; the command itself (an ingest, a
    server, however long it runs) runs with the collector on."""
    done = subprocess.run([sys.executable, "-c", _COLLECTOR, "--db", str(store_with_one_claim), "status"],
                          capture_output=True, text=True, timeout=120)
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert (seen["before run"], seen["during the command"]) == (True, True)


def test_what_start_up_built_is_frozen_before_the_collector_resumes(store_with_one_claim: Path):
    """Objects the imports made while the collector was paused are all in its youngest
    generation: frozen, the first collection of the command does not walk them."""
    argv = ["--db", str(store_with_one_claim), "recall", "billing"]
    done = subprocess.run([sys.executable, "-c", _COLLECTOR, *argv], capture_output=True, text=True, timeout=120)
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["frozen"] > 10_000 and seen["young"] < 700  # 700: the collector's own threshold
    # Control: main() without run() pauses nothing and so freezes nothing.
    direct = _COLLECTOR.replace("cli.run()", "cli.main(sys.argv[1:])")
    done = subprocess.run([sys.executable, "-c", direct, *argv], capture_output=True, text=True, timeout=120)
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["frozen"] == 0


_MAIN_MODULE = """
import gc, json, runpy, sys

seen = {}


class Watch:
    # Records whether the collector runs when the command line's module is imported.
    def find_spec(self, name, path=None, target=None):
        if name == "cairn.cli":
            seen["importing cairn.cli"] = gc.isenabled()
        return None


sys.meta_path.insert(0, Watch())
if sys.argv[1] == "library":
    import cairn.cli
    print(json.dumps(seen))
    raise SystemExit
sys.argv = ["cairn", *sys.argv[1:]]
try:
    runpy.run_module("cairn", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
print(json.dumps(seen))
"""


def test_python_m_cairn_pauses_the_collector_for_the_command_lines_imports(store_with_one_claim: Path):
    done = subprocess.run([sys.executable, "-c", _MAIN_MODULE, "--db", str(store_with_one_claim), "status"],
                          capture_output=True, text=True, timeout=120)
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["importing cairn.cli"] is False
    # Control: importing the command line as a library pauses nothing.
    done = subprocess.run([sys.executable, "-c", _MAIN_MODULE, "library"], capture_output=True, text=True, timeout=120)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"importing cairn.cli": True}


def test_python_m_cairn_runs_the_command_with_the_collector_on(store_with_one_claim: Path):
    probe = ("import gc, json, sys\nsys.argv = ['cairn', *sys.argv[1:]]\nimport cairn.cli as cli\nseen = {}\n"
             "real = cli.execute\n"
             "def execute(args):\n    seen['on'] = gc.isenabled()\n    return real(args)\n"
             "cli.execute = execute\n"
             "try:\n    import cairn.__main__\nexcept SystemExit:\n    pass\nprint(json.dumps(seen))\n")
    done = subprocess.run([sys.executable, "-c", probe, "--db", str(store_with_one_claim), "status"],
                          capture_output=True, text=True, timeout=120)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"on": True}
    # Control: a caller that says it paused nothing leaves a paused collector paused.
    control = probe.replace("import cairn.__main__", "gc.disable(); cli.run(paused=False)")
    done = subprocess.run([sys.executable, "-c", control, "--db", str(store_with_one_claim), "status"],
                          capture_output=True, text=True, timeout=120)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"on": False}


def test_the_collector_is_resumed_once_a_process(store_with_one_claim: Path):
    probe = ("import gc, json, sys\nimport cairn.cli as cli\nargv = sys.argv[1:]\n"
             "gc.disable(); cli._collecting_after_start = True\n"
             "cli.main(argv); first = gc.get_freeze_count(); gc.unfreeze()\n"
             "cli.main(argv); print(json.dumps([first, gc.get_freeze_count(), gc.isenabled()]))\n")
    done = subprocess.run([sys.executable, "-c", probe, "--db", str(store_with_one_claim), "status"],
                          capture_output=True, text=True, timeout=120)
    first, second, enabled = json.loads(done.stdout.strip().splitlines()[-1])
    # The first main() after a paused start froze what was built (the control that the
    # count shows a freeze); the second, in the same process, froze nothing.
    assert first > 0 and second == 0 and enabled
