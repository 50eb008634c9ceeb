"""What the HTTP layer of `cairn ui` costs: each API call against the same engine call made
directly, in the same run, on the same store.

    .venv/bin/python scripts/bench_ui.py [--sizes 1000,10000] [--repeat 200]
    .venv/bin/python scripts/bench_ui.py --plans [--sizes 1000,10000] [--repeat 10] [--out docs/benchmarks.md]

For each size, a fresh store gets that many claims (one `remember` each), then each
operation runs `--repeat` times through the API (one keep-alive connection, bearer token)
and as many times directly on the server's engine thread (the baseline), the two alternating
call by call so that other load on the machine weighs on both alike. Prints one
Markdown table: median and p95 in milliseconds, and the difference of the medians.

``--plans`` measures the Review and Retention pages and their endpoints instead, on a store
where 1 claim in 40 was corrected twice and 1 in 40 reinforced twice (maintenance
recommendations) and 1 record in 20 is project state 100 days old (retention matches);
the baseline is the engine's own plan. With ``--out`` it writes its section of that file.
"""

from __future__ import annotations

import argparse
import functools
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cairn import Cairn
from cairn.bench.report import stamp, write_section
from cairn.web.server import Worker, start

TOKEN = "bench-token-0123456789abcdef"
REGIONS = ["north", "south", "east", "west", "central", "harbour", "valley"]


def fill(worker: Worker, size: int) -> None:
    def write(cairn) -> None:
        for i in range(size):
            cairn.remember(f"Service s{i} runs on host h{i % 997} in the {REGIONS[i % 7]} region", kind="fact",
                           origin=f"team{i % 13}")
            if i and i % 2000 == 0:
                print(f"  {i}/{size} records", file=sys.stderr)

    worker.run(write)


def timed_pair(first: Callable[[], object], second: Callable[[], object], repeat: int) -> tuple[list[float], list[float]]:
    """Milliseconds of each call, the two alternating, so that a busy machine weighs on both alike."""
    out: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for fn, times in ((first, out[0]), (second, out[1])):
            start_ns = time.perf_counter_ns()
            fn()
            times.append((time.perf_counter_ns() - start_ns) / 1e6)
    return out


def timed_pair_cpu(first: Callable[[], object], second: Callable[[], object], repeat: int,
                   ) -> tuple[list[float], list[float], list[float], list[float]]:
    """As :func:`timed_pair`, plus the processor time of each call in milliseconds. Client, server
    and engine threads all run in this process, one call at a time, so the process's CPU time is
    the work a call costs, which a loaded machine does not inflate as it does the wall time."""
    out: tuple[list[float], list[float], list[float], list[float]] = ([], [], [], [])
    for _ in range(repeat):
        for fn, wall, cpu in ((first, out[0], out[2]), (second, out[1], out[3])):
            start_ns, cpu_ns = time.perf_counter_ns(), time.process_time_ns()
            fn()
            wall.append((time.perf_counter_ns() - start_ns) / 1e6)
            cpu.append((time.process_time_ns() - cpu_ns) / 1e6)
    return out


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, int(len(values) * 0.95) - 1)]


def measure(size: int, folder: Path, repeat: int) -> None:
    worker = Worker(str(folder / "cairn.db"), space="default")
    print(f"filling {size} records", file=sys.stderr)
    fill(worker, size)
    server, _ = start(worker, token=TOKEN)
    conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=60)
    headers = {"Host": f"127.0.0.1:{server.server_address[1]}", "Authorization": f"Bearer {TOKEN}",
               "Content-Type": "application/json"}
    some_id = worker.run(lambda c: c.list(per_page=1, page=1).memories[0].id)

    def api(method: str, path: str, body: dict | None = None) -> Callable[[], object]:
        def call() -> object:
            conn.request(method, path, None if body is None else json.dumps(body), headers)
            r = conn.getresponse()
            data = r.read()
            assert r.status == 200, data[:200]
            return data
        return call

    query = "which host runs service s4242"
    ops: list[tuple[str, Callable[[], object], Callable[[Cairn], object]]] = [
        ("list a page (20)", api("GET", "/api/records?page=3"), lambda c: c.list(page=3)),
        ("show a record", api("GET", f"/api/records/{some_id}"), lambda c: c.show(some_id)),
        ("recall", api("POST", "/api/recall", {"query": query}), lambda c: c.recall(query).to_dict()),
        ("explain", api("POST", "/api/explain", {"query": query}), lambda c: c.explain(query)),
    ]
    for name, through_api, direct in ops:
        through_api()  # warm both paths once
        worker.run(direct)
        a, e = timed_pair(through_api, functools.partial(worker.run, direct), repeat)
        ma, me = statistics.median(a), statistics.median(e)
        print(f"| {size:,} | {name} | {ma:.2f} | {p95(a):.2f} | {me:.2f} | {p95(e):.2f} | {ma - me:+.2f} |", flush=True)
    conn.close()
    server.shutdown()
    server.server_close()
    worker.close()


POLICIES = """
[[policy]]
name = "stale project state"
kind = "project_state"
older_than_days = 30
"""


def fill_plans(worker: Worker, folder: Path, size: int) -> None:
    """Claims as :func:`fill`; 1 in 40 corrected twice, 1 in 40 reinforced twice; 1 record in 20
    project state remembered 100 days ago (through a second engine with an earlier clock)."""
    fill(worker, size)

    def reinforce(cairn) -> None:
        ids = [m.id for m in cairn.list(per_page=1000, page=1).memories]
        page, pages = 2, cairn.list(per_page=1000, page=1).pages
        while page <= pages:
            ids += [m.id for m in cairn.list(per_page=1000, page=page).memories]
            page += 1
        for n, i in enumerate(ids):
            if n % 40 in (0, 1):
                for _ in range(2):
                    cairn.reinforce(i, "explicit_correction" if n % 40 == 0 else "explicit_reinforcement")
        with Cairn(folder / "cairn.db", space="default", now=datetime.now(UTC) - timedelta(days=100)) as past:
            for n in range(size // 20):
                past.remember(f"Project p{n} is in phase {REGIONS[n % 7]}", kind="project_state", origin="pm")

    worker.run(reinforce)


def measure_plans(size: int, folder: Path, repeat: int) -> list[str]:
    worker = Worker(str(folder / "cairn.db"), space="default")
    print(f"filling {size} records", file=sys.stderr)
    fill_plans(worker, folder, size)
    server, _ = start(worker, token=TOKEN, policies=POLICIES)
    conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=300)
    headers = {"Host": f"127.0.0.1:{server.server_address[1]}", "Authorization": f"Bearer {TOKEN}",
               "Content-Type": "application/json"}

    def http_call(method: str, path: str, body: dict | None = None) -> Callable[[], object]:
        def call() -> object:
            conn.request(method, path, None if body is None else json.dumps(body), headers)
            r = conn.getresponse()
            data = r.read()
            assert r.status == 200, data[:200]
            return data
        return call

    ops_count = len(worker.run(lambda c: c.maintenance_plan())["ops"])
    matches = len(worker.run(lambda c: c.retention_plan(POLICIES))["matches"])
    plan: Callable[[Cairn], object] = lambda c: c.maintenance_plan()  # noqa: E731
    retention: Callable[[Cairn], object] = lambda c: c.retention_plan(POLICIES)  # noqa: E731
    ops: list[tuple[str, Callable[[], object], Callable[[Cairn], object]]] = [
        ("GET /api/maintenance/plan", http_call("GET", "/api/maintenance/plan"), plan),
        ("Review page (/review)", http_call("GET", "/review"), plan),
        ("POST /api/retention/plan", http_call("POST", "/api/retention/plan", {"policies": POLICIES}), retention),
        ("Retention page (/retention)", http_call("GET", "/retention"), retention),
    ]
    rows = []
    for name, through_http, direct in ops:
        through_http()  # warm both paths once
        worker.run(direct)
        a, e, ca, ce = timed_pair_cpu(through_http, functools.partial(worker.run, direct), repeat)
        ma, me = statistics.median(a), statistics.median(e)
        cpu_a, cpu_e = statistics.median(ca), statistics.median(ce)
        rows.append(f"| {size:,} | {ops_count:,} / {matches:,} | {name} | {ma:.0f} / {p95(a):.0f} | {me:.0f} / {p95(e):.0f}"
                    f" | {ma - me:+.0f} | {cpu_a:.0f} / {cpu_e:.0f} | {cpu_a - cpu_e:+.0f} |")
        print(rows[-1], flush=True)
    conn.close()
    server.shutdown()
    server.server_close()
    worker.close()
    return rows


PLANS_TEXT = [
    "The Review and Retention pages of `cairn ui` and their endpoints, each timed from the client's send to",
    "its read answer (one keep-alive loopback connection, bearer token), beside the engine's own plan made",
    "directly on the server's engine thread (the baseline: `maintenance_plan()` for the first two rows,",
    "`retention_plan(policies)` for the last two), alternating call by call on the same store in the same",
    "run. Store: the claims of the API round-trip section, 1 in 40 corrected twice and 1 in 40 reinforced",
    "twice (recommendations), and 1 record in 20 project state remembered 100 days ago (one policy:",
    "project_state older than 30 days). A page lists at most 300 rows and reads the listed records in one",
    "API call (`GET /api/records?ids=...`) to show their text. Times in milliseconds: wall time, and",
    "the processor time of the whole process (client, server and engine threads, one call at a time),",
    "which the machine's other load does not inflate.",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--repeat", type=int, default=None, help="calls per operation (default 200; 10 with --plans)")
    parser.add_argument("--plans", action="store_true", help="measure the Review and Retention pages instead")
    parser.add_argument("--out", help="with --plans: write the section `ui-plans` of this Markdown file")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.plans:
        repeat = args.repeat or 10
        head = ["| records | ops / matches | operation | HTTP median / p95 | engine median / p95 | added (median) |"
                " CPU median: HTTP / engine | added CPU |", "|---:|---:|---|---:|---:|---:|---:|---:|"]
        print("\n".join(head))
        rows = []
        for size in sizes:
            with tempfile.TemporaryDirectory() as folder:
                rows += measure_plans(size, Path(folder), repeat)
        if args.out:
            command = f"python scripts/bench_ui.py --plans --sizes {args.sizes} --repeat {repeat} --out {args.out}"
            load = "Load average at the end of the run: " + ", ".join(f"{x:.1f}" for x in os.getloadavg()) + "."
            write_section(args.out, "ui-plans", [*stamp(command), "", *PLANS_TEXT, f"{repeat} calls each.", "",
                                                 *head, *rows, "", load])
        return
    repeat = args.repeat or 200
    print("| records | operation | API median | API p95 | engine median | engine p95 | HTTP cost (median) |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for size in sizes:
        with tempfile.TemporaryDirectory() as folder:
            measure(size, Path(folder), repeat)


if __name__ == "__main__":
    main()
