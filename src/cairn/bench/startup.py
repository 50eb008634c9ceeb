"""Process start-up: what one ``cairn`` process costs, and what it still imports.

    python -m cairn.bench.startup [--runs 20] [--baseline SRC] [--out docs/benchmarks.md]

A host hook runs one process per user prompt, so a process's start-up is part of every
recall it makes. Timed, each as a fresh interpreter (``sys.executable``):

* ``python -c pass`` — the floor;
* ``cairn recall`` on a store of 1,000 claims (its target: 80 ms wall median), and the same
  on a copy that a warm server answers for (:mod:`cairn.cli.warm`, what a running
  ``cairn mcp`` does);
* ``cairn hook claude-code user-prompt-submit`` on a store of 10,000 claims, with a prompt
  that triage skips on any store ("ok": answered before the engine is imported) and with
  a retrieving prompt (the hook's target, 150 ms median, is measured on the mix of
  ``cairn.bench.host``);
* ``cairn --help`` (imports every command group).

Each is timed for wall time and for CPU time (user + system of the child process): on a
shared machine, wall time mostly measures the other processes' load, CPU time much less.
With ``--baseline SRC`` (another checkout's ``src``, e.g. ``main``) every command also
runs from that tree, the two interleaved in a random order, so both are measured in the
same minutes. Each tree is put first on ``PYTHONPATH``.

Bytecode: by default the children run with their bytecode cached in a temporary folder
(``PYTHONPYCACHEPREFIX``, written by a warm-up run) — as an installed package runs; an
environment with ``PYTHONDONTWRITEBYTECODE`` and no ``__pycache__`` (this machine's
agents) compiles every module on every start. ``--no-bytecode-cache`` measures that.

Last, the import breakdown of a recall process: ``python -X importtime``, median over
five runs, the modules with the largest self time and the time per layer.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from .stats import median_p95

HERE = Path(__file__).resolve().parents[2]  # this tree's src/


def _env(src: Path, cache: Path | None) -> dict[str, str]:
    # The default, model-free install: with the semantic extra active a recall's default
    # lane is hybrid, which loads the embedder (docs/semantic.md measures that cost).
    env = dict(os.environ, PYTHONPATH=str(src), CAIRN_SEMANTIC="off")
    env.pop("CAIRN_DEFAULT_LANE", None)
    if cache is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def _timed(argv: list[str], stdin: str, env: dict[str, str]) -> tuple[float, float, int]:
    """Wall and CPU milliseconds of one child process, and its exit code."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *argv], input=stdin, capture_output=True, text=True, env=env, timeout=120)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu, done.returncode


def commands(small: Path, large: Path, texts: list[str], runs: int, rng: random.Random,
             served: Path | None = None) -> dict[str, list]:
    """Name -> one (argv, stdin) per run."""
    hook = ["-m", "cairn", "--db", str(large), "hook", "claude-code", "user-prompt-submit", "--timeout", "5"]
    out: dict[str, list] = {"python -c pass": [], "recall, 1k store": [], "hook, 10k store, skipped prompt": [],
                            "hook, 10k store, retrieving prompt": [], "cairn --help": []}
    for i in range(runs):
        words = texts[rng.randrange(len(texts))].lower().split()
        query = " ".join(words[:4])
        payload = {"session_id": f"startup-{i}-{rng.random()}", "cwd": str(large.parent)}
        out["python -c pass"].append((["-c", "pass"], ""))
        out["recall, 1k store"].append((["-m", "cairn", "--db", str(small), "recall", query], ""))
        if served is not None:
            out.setdefault("recall, 1k store, warm server", []).append(
                (["-m", "cairn", "--db", str(served), "recall", query], ""))
        out["hook, 10k store, skipped prompt"].append((hook, json.dumps({**payload, "prompt": "ok"})))
        prompt = "what did we decide about the " + query
        out["hook, 10k store, retrieving prompt"].append((hook, json.dumps({**payload, "prompt": prompt})))
        out["cairn --help"].append((["-m", "cairn", "--help"], ""))
    return out


def measure(trees: dict[str, Path], cases: dict[str, list], cache_root: Path | None) -> dict:
    """Interleaved runs: for each run and command, every tree once, in a random order."""
    envs = {name: _env(src, None if cache_root is None else cache_root / name) for name, src in trees.items()}
    for name in trees:  # warm-up: the page cache and, when cached, the bytecode
        for argv, stdin in (runs[0] for runs in cases.values()):
            _timed(argv, stdin, envs[name])
    order = list(trees)
    samples: dict = defaultdict(lambda: {"wall": [], "cpu": [], "failed": 0})
    for i in range(len(next(iter(cases.values())))):
        for command, runs in cases.items():
            random.shuffle(order)
            for name in order:
                argv, stdin = runs[i]
                wall, cpu, code = _timed(argv, stdin, envs[name])
                cell = samples[(command, name)]
                cell["wall"].append(wall)
                cell["cpu"].append(cpu)
                cell["failed"] += code != 0
    return {key: {"wall": median_p95(v["wall"], 1), "cpu": median_p95(v["cpu"], 1), "failed": v["failed"]}
            for key, v in samples.items()}


_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)")


def import_breakdown(argv: list[str], env: dict[str, str], runs: int = 5) -> dict:
    """Median self time (µs, from ``-X importtime``) of each module a process imports."""
    selfs: dict[str, list[int]] = defaultdict(list)
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-X", "importtime", *argv], capture_output=True, text=True, env=env,
                              timeout=120)
        for line in done.stderr.splitlines():
            m = _IMPORT_LINE.match(line)
            if m:
                selfs[m.group(4)].append(int(m.group(1)))
    medians = {name: statistics.median(v) for name, v in selfs.items()}
    layers: dict[str, float] = defaultdict(float)
    for name, us in medians.items():
        parts = name.split(".")
        layer = ".".join(parts[:2]) if parts[0] == "cairn" and len(parts) > 1 else (
            "cairn" if parts[0] == "cairn" else "standard library and site")
        layers[layer] += us
    return {"modules": medians, "layers": dict(layers), "cairn_modules": sum(n.split(".")[0] == "cairn" for n in medians)}


def report(result: dict, trees: dict[str, Path], breakdown: dict, command: str, cached: bool) -> list[str]:
    from .report import stamp

    names = list(trees)
    lines = stamp(command) + [
        "",
        "Whole processes, fresh interpreters, bytecode " + ("cached (as installed)" if cached else
                                                            "not cached (every module compiled on every start)")
        + "; wall and CPU (user + system of the child) in ms, median / p95. Trees: "
        + ", ".join(f"{n} = `{p}`" for n, p in trees.items()) + ".",
        "",
        "| process | " + " | ".join(f"{n} wall | {n} CPU" for n in names) + " |",
        "|---|" + "---:|---:|" * len(names),
    ]
    for command_name in dict.fromkeys(c for c, _ in result):
        cells = []
        for n in names:
            r = result[(command_name, n)]
            failed = f" ({r['failed']} failed)" if r["failed"] else ""
            cells.append(f"{r['wall']['median']} / {r['wall']['p95']}{failed} | {r['cpu']['median']} / {r['cpu']['p95']}")
        lines.append(f"| {command_name} | " + " | ".join(cells) + " |")
    if any("warm server" in c for c, _ in result):
        lines += ["", "With a warm server the CPU column is the command's own process only: the server's part "
                      "of the work (in the benchmark's process) is in the wall time, which is the figure to read."]
    modules = breakdown["modules"]
    total = sum(modules.values()) / 1000
    lines += ["", f"What a recall process still imports (`python -X importtime`, median of 5 runs, {names[0]}): "
                  f"{len(modules)} modules, {breakdown['cairn_modules']} of them Cairn's, {total:.1f} ms of self time "
                  "in all (wall clock, so inflated by the machine's load like the wall times above). By layer:", ""]
    lines += ["| layer | ms |", "|---|---:|"]
    for layer, us in sorted(breakdown["layers"].items(), key=lambda kv: -kv[1]):
        if us >= 500:
            lines.append(f"| {layer} | {us / 1000:.1f} |")
    lines += ["", "Largest self times: " + ", ".join(
        f"`{name}` {us / 1000:.1f}" for name, us in sorted(modules.items(), key=lambda kv: -kv[1])[:15]) + " (ms)."]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cairn.bench.startup", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="processes timed per command and tree (default 20)")
    parser.add_argument("--baseline", metavar="SRC", help="another checkout's src folder, measured interleaved")
    parser.add_argument("--no-bytecode-cache", action="store_true", help="compile every module on every start")
    parser.add_argument("--out", help="write the section 'startup' (or 'startup-nocache') of this Markdown file "
                        "('-': print only, as the other benchmarks)")
    args = parser.parse_args(argv)
    from .recall_latency import build

    trees = {"this tree": HERE}
    if args.baseline:
        baseline = Path(args.baseline).resolve()
        if not (baseline / "cairn" / "__init__.py").is_file():
            print(f"startup: {baseline} holds no cairn package", file=sys.stderr)
            return 1
        trees["baseline"] = baseline
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as folder:
        small, large = Path(folder) / "small.db", Path(folder) / "large.db"
        build(small, 1000, rng)
        texts, _ = build(large, 10_000, rng)
        # A copy of the small store that a warm server (what `cairn mcp` runs) answers for:
        # a tree whose `cairn recall` asks it is answered there; an older tree's is not.
        served = Path(folder) / "served" / "small.db"
        served.parent.mkdir()
        shutil.copyfile(small, served)
        cases = commands(small, large, texts, args.runs, rng, served)
        cache_root = None if args.no_bytecode_cache else Path(folder) / "pycache"
        os.environ["CAIRN_SEMANTIC"] = "off"  # as in the children (_env): the server answers only alike
        os.environ.pop("CAIRN_DEFAULT_LANE", None)
        from ..cli.warm import answer
        from ..host.warm import WarmServer

        with WarmServer(served, cli=answer):
            result = measure(trees, cases, cache_root)
        env = _env(HERE, None if cache_root is None else cache_root / "this tree")
        breakdown = import_breakdown(cases["recall, 1k store"][0][0], env)
    command = "python -m cairn.bench.startup" + "".join(f" {a}" for a in (argv if argv is not None else sys.argv[1:]))
    lines = report(result, trees, breakdown, command, cache_root is not None)
    print("\n".join(lines))
    target = report_file(args.out)
    if target is not None:
        from .report import write_section

        write_section(target, "startup" if cache_root is not None else "startup-nocache", lines)
    return 0


def report_file(out: str | None) -> str | None:
    """The Markdown file ``--out`` names, or None: none given, or ``-`` (print only)."""
    return None if out in (None, "", "-") else out


if __name__ == "__main__":
    sys.exit(main())
