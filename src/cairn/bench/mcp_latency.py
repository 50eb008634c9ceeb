"""MCP round-trip benchmark: ``memory_recall`` over stdio beside ``Cairn.recall`` in process.

    python -m cairn.bench.mcp_latency [--sizes 10000,100000] [--queries 300] [--seed 7]
                                      [--out docs/benchmarks.md]

For each size, builds the synthetic store of :mod:`.recall_latency` (same corpus, same query
mix), then in the same run: (1) times ``Cairn.recall`` in this process, (2) starts a real
``cairn mcp`` subprocess, connects the ``mcp`` client library over stdio and times each
``memory_recall`` call from the client's send to its parsed result. Both sides use the same
queries, limit 3, budget 2048 and no trace write, so the difference of the medians is what
the protocol adds: JSON-RPC framing, the pipe, validation of arguments and of the result
against its output schema, two event loops. Each side is warmed with 20 queries first.

It also reports the CPU time one call costs on each side (this process for the in-process
recall; client and server process together over MCP), which a loaded machine does not
inflate the way it inflates wall time across two processes.

Target: the protocol adds ≤ 3 ms to the median. Needs the ``mcp`` extra.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ..engine import Cairn
from .recall_latency import NOW, build, queries
from .report import stamp, write_section
from .stats import percentile

TARGET_MS = 3.0
WARM = 20


def measure_local(path: Path, qs: list[str]) -> tuple[list[float], float]:
    """Milliseconds per ``Cairn.recall`` in this process, and its CPU milliseconds per call."""
    with Cairn(path, now=NOW) as cairn:
        for q in qs[:WARM]:
            cairn.recall(q, trace=False)
        times = []
        cpu = time.process_time()
        for q in qs:
            start = time.perf_counter()
            cairn.recall(q, trace=False)
            times.append((time.perf_counter() - start) * 1000)
        cpu = time.process_time() - cpu
    return times, cpu * 1000 / len(qs)


def children_cpu() -> float | None:
    """CPU seconds used so far by this process's live children (Linux /proc; None elsewhere)."""
    try:
        ticks = os.sysconf("SC_CLK_TCK")
        total = 0.0
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[1]) == os.getpid():  # fields after the name: state, ppid, ...
                    total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
        return total
    except (OSError, ValueError):
        return None


def measure_mcp(path: Path, qs: list[str]) -> tuple[list[float], float | None, float]:
    """Milliseconds per ``memory_recall`` round trip through a ``cairn mcp`` subprocess, and
    the CPU milliseconds per call of the server (None if unreadable) and of the client."""
    import anyio
    from mcp import Client, StdioServerParameters

    args = ["-m", "cairn", "--db", str(path), "--now", NOW.isoformat(), "mcp"]
    times: list[float] = []
    cpu: list[Any] = []

    async def run() -> None:
        async with Client(StdioServerParameters(command=sys.executable, args=args), read_timeout_seconds=120) as client:
            for q in qs[:WARM]:
                await client.call_tool("memory_recall", {"query": q, "trace": False})
            server, own = children_cpu(), time.process_time()
            for q in qs:
                start = time.perf_counter()
                result = await client.call_tool("memory_recall", {"query": q, "trace": False})
                times.append((time.perf_counter() - start) * 1000)
                if result.is_error:
                    raise RuntimeError(f"memory_recall failed on {q!r}: {result.content}")
            server_after = children_cpu()
            own = time.process_time() - own
            served = None if server is None or server_after is None else (server_after - server) * 1000 / len(qs)
            cpu.extend([served, own * 1000 / len(qs)])

    anyio.run(run)
    return times, cpu[0], cpu[1]


def run(sizes: list[int], count: int, seed: int) -> list[dict[str, Any]]:
    rows = []
    for size in sizes:
        rng = random.Random(seed)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "bench.db"
            print(f"{size:>7} claims: building the store", file=sys.stderr)
            texts, _ = build(path, size, rng)
            qs = queries(texts, rng, count)
            local, cpu_local = measure_local(path, qs)
            remote, cpu_server, cpu_client = measure_mcp(path, qs)
        median, median_mcp = statistics.median(local), statistics.median(remote)
        row: dict[str, Any] = {
            "size": size,
            "queries": len(qs),
            "median": median, "p95": percentile(local, 0.95),
            "median_mcp": median_mcp, "p95_mcp": percentile(remote, 0.95),
            "added": median_mcp - median,
            "cpu": cpu_local, "cpu_server": cpu_server, "cpu_client": cpu_client,
        }
        rows.append(row)
        print(f"{size:>7} claims: in process {row['median']:.2f} / {row['p95']:.2f} ms, over MCP stdio"
              f" {row['median_mcp']:.2f} / {row['p95_mcp']:.2f} ms (+{row['added']:.2f} ms median); CPU per call"
              f" {row['cpu']:.2f} in process, {_ms(row['cpu_server'])} server + {row['cpu_client']:.2f} client", file=sys.stderr)
    return rows


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def report(rows: list[dict[str, Any]], command: str) -> str:
    lines = [
        *stamp(command),
        "",
        "`memory_recall` through a real `cairn mcp` subprocess over stdio, driven by the `mcp` client library",
        "(from the client's send to its parsed, schema-checked result), beside `Cairn.recall` in process, on the",
        "same store and the same queries in the same run (the synthetic store and query mix of the recall-latency",
        "section; limit 3, budget 2048, no trace write). Times in milliseconds (median / p95). \"CPU per call\" is",
        "the mean processor time one call costs: of this process for the in-process recall; of the server process",
        "and of the Python client over MCP. Unlike the wall times, it does not grow while a loaded machine makes",
        "the two processes wait for a core at each hop.",
        "",
        "| claims | queries | in process | over MCP stdio | added (median) | CPU per call: in process / server / client |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(f"| {r['size']:,} | {r['queries']} | {r['median']:.2f} / {r['p95']:.2f} |"
                     f" {r['median_mcp']:.2f} / {r['p95_mcp']:.2f} | {r['added']:.2f} |"
                     f" {r['cpu']:.2f} / {_ms(r['cpu_server'])} / {r['cpu_client']:.2f} |")
    worst = max(r["added"] for r in rows)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    lines += [
        "",
        f"Target: the protocol adds ≤ {TARGET_MS:.0f} ms to the median. Largest addition measured: {worst:.2f} ms — "
        + ("**met**." if worst <= TARGET_MS else "**missed**."),
        f"Load average at the end of the run: {load} (the machine may be shared; numbers are upper bounds).",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cairn.bench.mcp_latency", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated claim counts (default 10000,100000)")
    parser.add_argument("--queries", type=int, default=300, help="queries per size (default 300)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", default="docs/benchmarks.md",
                        help="Markdown file whose mcp-latency section is rewritten ('-' for stdout)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    rows = run(sizes, args.queries, args.seed)
    command = "python -m cairn.bench.mcp_latency " + " ".join(argv if argv is not None else sys.argv[1:])
    text = report(rows, command.strip())
    if args.out == "-":
        print(text)
    else:
        write_section(args.out, "mcp-latency", text.rstrip("\n").splitlines())
        print(f"wrote the mcp-latency section of {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
