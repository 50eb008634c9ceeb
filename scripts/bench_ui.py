"""What the HTTP layer of `cairn ui` costs: each API call against the same engine call made
directly, in the same run, on the same store.

    .venv/bin/python scripts/bench_ui.py [--sizes 1000,10000] [--repeat 200]

For each size, a fresh store gets that many claims (one `remember` each), then each
operation runs `--repeat` times through the API (one keep-alive connection, bearer token)
and as many times directly on the server's engine thread (the baseline), the two alternating
call by call so that other load on the machine weighs on both alike. Prints one
Markdown table: median and p95 in milliseconds, and the difference of the medians.
"""

from __future__ import annotations

import argparse
import functools
import http.client
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from cairn import Cairn
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    print("| records | operation | API median | API p95 | engine median | engine p95 | HTTP cost (median) |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as folder:
            measure(size, Path(folder), args.repeat)


if __name__ == "__main__":
    main()
