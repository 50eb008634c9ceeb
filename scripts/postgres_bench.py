"""PostgreSQL beside SQLite, measured in one run on a throwaway server (started and
stopped here, as the test suite does: tests/testkit/pgserver.py).

    .venv/bin/python scripts/postgres_bench.py drill [--writers 16] [--per-writer 500]
    .venv/bin/python scripts/postgres_bench.py locomo [--split heldout]
    .venv/bin/python scripts/postgres_bench.py scale [--claims 100000 1000000] [--backends sqlite postgres]
    .venv/bin/python scripts/postgres_bench.py bulk [--claims 20000] [--turns 6000] [--prefill 0]
    .venv/bin/python scripts/postgres_bench.py scale --claims 1000000 --keep DIR
    .venv/bin/python scripts/postgres_bench.py recall --claims 1000000 --keep DIR [--pg URL] [--sqlite PATH]

drill:  the concurrency audit of tests/testkit/pgdrill.py (writers, readers, gap-free log).
locomo: LoCoMo evidence retrieval on both backends (Cairn's own harness, one fresh store
        per conversation); prints both results and the largest difference.
scale:  ingest rate and recall latency at each N claims on both backends (see scale()).
bulk:   bulk write rates alone on both backends: import_ of N scale-ladder claims (one
        batch) and ingest of conversations (600 turns each); with --prefill P, also the
        same N claims imported into a store already holding P others. With PYTHONPATH pointing at
        another checkout's src, the same measurement of that code (a before/after pair).
        scale and bulk also give CPU µs a record: this process's and the server's (/proc).
--keep: scale leaves its server running in DIR/pg and its SQLite stores in DIR, and
        prints where they are; recall then runs only the queries of scale against those
        stores (attached, not rebuilt), so that two checkouts' code (PYTHONPATH) can be
        measured on the same data, each in its own process. Stop the server with
        ``pg_ctl -D DIR/pg/data stop`` (as the postgres user when run as root).
Progress goes to stderr; the figures to stdout as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from testkit import pgdrill, pgserver  # noqa: E402


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def server_cpu(server: pgserver.Server) -> float:
    """CPU seconds (user and system) the server's processes have used so far: the
    postmaster with its reaped children, and every live child (backends, autovacuum,
    writers), read from /proc (Linux)."""
    import os

    tick = os.sysconf("SC_CLK_TCK")
    with open(os.path.join(server.folder, "data", "postmaster.pid")) as handle:
        root = int(handle.readline())
    total = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        if int(pid) == root:
            total += sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
        elif int(fields[1]) == root:
            total += int(fields[11]) + int(fields[12])
    return total / tick


def drill(server: pgserver.Server, args) -> dict:
    audit = pgdrill.run(server.new_database(), writers=args.writers, per_writer=args.per_writer, readers=args.readers)
    doc = dict(vars(audit))
    doc.update(expected=audit.expected, gap_free=audit.gap_free, ok=audit.ok(),
               writes_per_second=round(audit.expected / audit.seconds, 1))
    return doc


def locomo(server: pgserver.Server, args) -> dict:
    from cairn import Cairn
    from cairn.bench import locomo as harness

    answers: dict[str, list[list[str]]] = {"sqlite": [], "postgres": []}

    class LiteRanker(harness.CairnRanker):
        side = "sqlite"

        def __call__(self, question: str, k: int) -> list[str]:
            ranked = super().__call__(question, k)
            answers[self.side].append(ranked)
            return ranked

    class PgRanker(LiteRanker):
        side = "postgres"

        def __init__(self, conversation: dict, folder: Path) -> None:
            self.cairn = Cairn(server.new_database())
            self.cairn.ingest(conversation, format="locomo", progress=False)

    data = harness.load(args.data)
    out = {}
    for name, factory in (("sqlite", LiteRanker), ("postgres", PgRanker)):
        say(f"locomo {args.split} on {name} ...")
        result = harness.run(data, split=args.split, ks=(5, 10), cairn_factory=factory, progress=say)
        out[name] = result.total.cairn.doc()
    lite, pg = out["sqlite"], out["postgres"]
    diffs = {k: round(abs(lite[k] - pg[k]), 4) for k in lite if k != "latency_ms"}
    same = sum(1 for a, b in zip(answers["sqlite"], answers["postgres"], strict=True) if a == b)
    return {"split": args.split, "sqlite": lite, "postgres": pg, "largest_difference": max(diffs.values(), default=0.0),
            "questions": len(answers["sqlite"]), "identical_rankings": same}


def scale(server: pgserver.Server, args) -> dict:
    """Each size on each backend, in this order (SQLite then PostgreSQL, size by size):
    a fresh store filled with the scale ladder's claims through ``Cairn.import_`` in
    batches of 20,000 lines (cairn.bench.scale), then the needle and background queries
    through ``Cairn.recall(limit=3)``. ``store_per_s`` is the same records over the time
    spent inside the store's bulk write alone (the engine's parsing and checks left out)."""
    import platform
    import tempfile
    import time

    import psycopg

    from cairn import Cairn
    from cairn.bench.scale import BATCH, NOW, Generator
    from cairn.bench.stats import median_p95
    from cairn.store.postgres.backend import PgTx
    from cairn.store.sqlite.backend import Tx as SqliteTx

    inside = {"s": 0.0, "depth": 0}
    for cls in (SqliteTx, PgTx):
        for name in ("put_docs", "put_stored", "put_memories"):  # an older PgTx has no put_docs nor put_stored
            real = vars(cls).get(name)
            if real is None:
                continue

            def timed(self, rows, _real=real, **options):
                t0 = time.perf_counter()
                inside["depth"] += 1
                try:
                    return _real(self, rows, **options)
                finally:
                    inside["depth"] -= 1
                    if not inside["depth"]:  # put_memories may call put_stored (and so on): counted once
                        inside["s"] += time.perf_counter() - t0
            setattr(cls, name, timed)

    out: dict = {"machine": {"cpus": __import__("os").cpu_count(), "python": platform.python_version(),
                             "psycopg": psycopg.__version__}}
    with psycopg.connect(server.url()) as conn:
        out["machine"]["postgres"] = conn.execute("SELECT version()").fetchone()[0]  # type: ignore[index]
    with tempfile.TemporaryDirectory(prefix="cairn-pgscale-") as scratch:
        folder = args.keep or scratch
        for size in args.claims:
            for backend in args.backends:
                say(f"scale {size} on {backend} ...")
                target = server.new_database() if backend == "postgres" else Path(folder) / f"scale-{size}.db"
                gen = Generator(size, 7)
                inside["s"] = 0.0
                row: dict = {"status": "ok"}
                started, cpu, server_s = time.perf_counter(), time.process_time(), server_cpu(server)
                with Cairn(target, now=NOW) as cairn:
                    written, batch = 0, []
                    for line in gen.lines():
                        batch.append(line)
                        if len(batch) >= BATCH:
                            written += cairn.import_(batch).records
                            batch = []
                            say(f"  {written} records in {time.perf_counter() - started:.0f} s")
                            if args.budget_s and time.perf_counter() - started > args.budget_s:
                                row["status"] = f"incomplete: ingest stopped at {written} records by the budget"
                                break
                    else:
                        if batch:
                            written += cairn.import_(batch).records
                    elapsed = time.perf_counter() - started
                    row.update(records=written, ingest_s=round(elapsed, 1), ingest_per_s=round(written / elapsed),
                               store_per_s=round(written / inside["s"]) if inside["s"] else None,
                               # µs a record: this process's CPU (the ladder's generator included),
                               # and the server's
                               cpu_us=round((time.process_time() - cpu) / written * 1e6, 1),
                               server_cpu_us=round((server_cpu(server) - server_s) / written * 1e6, 1))
                    queries = [q for _, q in gen.needles] + gen.background_queries(200)
                    latencies, hits = [], 0
                    for number, query in enumerate(queries):
                        t0 = time.perf_counter()
                        ids = [item.id for item in cairn.recall(query, limit=3, trace=False).results]
                        latencies.append((time.perf_counter() - t0) * 1000)
                        if number < len(gen.needles):
                            hits += gen.needles[number][0] in ids
                    row.update(queries=len(latencies), recall_ms=median_p95(latencies, 1),
                               **{"needle_hit@3": round(hits / len(gen.needles), 3)})
                if args.keep:
                    row["kept"] = str(target)
                if backend == "postgres":
                    with psycopg.connect(str(target)) as conn:
                        found = conn.execute("SELECT pg_database_size(current_database())").fetchone()
                    row["db_mb"] = round(int(found[0]) / 1e6, 1) if found else None
                else:
                    row["db_mb"] = round(sum(p.stat().st_size for p in Path(folder).glob(f"scale-{size}.db*")) / 1e6, 1)
                    for leftover in Path(folder).glob(f"scale-{size}.db*") if not args.keep else ():
                        leftover.unlink()
                row["load_average"] = __import__("os").getloadavg()[0]
                say(f"  {json.dumps(row)}")
                out.setdefault(str(size), {})[backend] = row
    return out


def recall(server: pgserver.Server, args) -> dict:
    """The queries of :func:`scale` for ``--claims N`` (needles then background, one pass
    first to warm the caches, unmeasured) against stores kept by ``scale --keep``: recall
    latency, needle hit@3, the ranked ids (to compare two checkouts' answers) and, on
    PostgreSQL, the statements sent per recall (counted by wrapping psycopg's execute and
    COPY), grouped by their first words."""
    import hashlib
    import os
    import time
    from collections import Counter

    import psycopg

    from cairn import Cairn
    from cairn.bench.scale import NOW, Generator
    from cairn.bench.stats import median_p95

    sent: Counter = Counter()
    spent: Counter = Counter()  # ms inside execute (a pipelined statement's wait falls elsewhere)
    real_execute = psycopg.Cursor.execute

    def counted(self, query, *a, **k):
        text = query if isinstance(query, str) else str(query)
        name = " ".join(text.split())[:70]
        sent[name] += 1
        t0 = time.perf_counter()
        try:
            return real_execute(self, query, *a, **k)
        finally:
            spent[name] += (time.perf_counter() - t0) * 1000

    psycopg.Cursor.execute = counted  # type: ignore[method-assign]
    gen = Generator(args.claims[0], 7)
    for _ in gen.lines():
        pass
    queries = [q for _, q in gen.needles] + gen.background_queries(200)
    targets = {"postgres": args.pg, "sqlite": args.sqlite}
    out: dict = {"size": args.claims[0], "queries": len(queries)}
    for backend in args.backends:
        target = targets[backend]
        if target is None:
            continue
        with Cairn(target if backend == "postgres" else Path(target), now=NOW) as cairn:
            for query in queries[: args.warm]:
                cairn.recall(query, limit=3, trace=False)
            sent.clear()
            spent.clear()
            latencies, hits, answers = [], 0, []
            for number, query in enumerate(queries):
                t0 = time.perf_counter()
                ids = [item.id for item in cairn.recall(query, limit=3, trace=False).results]
                latencies.append((time.perf_counter() - t0) * 1000)
                answers.append(ids)
                if number < len(gen.needles):
                    hits += gen.needles[number][0] in ids
        row = {"recall_ms": median_p95(latencies, 1), "needle_hit@3": round(hits / len(gen.needles), 3),
               "answers_sha1": hashlib.sha1(json.dumps(answers).encode()).hexdigest()[:12],
               "slowest_ms": sorted(((round(ms, 1), q) for ms, q in zip(latencies, queries, strict=True)),
                                    reverse=True)[:5],
               "load_average": os.getloadavg()[0]}
        if backend == "postgres":
            row["statements_per_recall"] = round(sum(sent.values()) / len(queries), 2)
            row["statements"] = {k: [round(v / len(queries), 2), round(spent[k] / len(queries), 2)]
                                 for k, v in sent.most_common(16)}
            row["statement_ms_per_recall"] = round(sum(spent.values()) / len(queries), 1)
        say(f"  {backend}: {json.dumps(row)}")
        out[backend] = row
    return out


def bulk(server: pgserver.Server, args) -> dict:
    import tempfile
    import time

    from cairn import Cairn
    from cairn.bench.scale import NOW, Conversations, Generator

    every = [line for line in Generator(args.claims + args.prefill).lines() if line.startswith('{"type":"memory"')]
    lines, prefill = every[: args.claims], every[args.claims : args.claims + args.prefill]
    del every
    conversations = list(Conversations(args.turns).conversations())
    out: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="cairn-pgbulk-") as folder:
        for backend in ("sqlite", "postgres"):
            say(f"bulk on {backend} ...")
            places = [Path(folder) / f"{backend}-{n}.db" for n in (1, 2)] if backend == "sqlite" else \
                [server.new_database(), server.new_database()]
            with Cairn(places[0], now=NOW) as cairn:
                start, cpu, server_s = time.perf_counter(), time.process_time(), server_cpu(server)
                records = cairn.import_(lines).records
                import_s = time.perf_counter() - start
                import_cpu, import_server = time.process_time() - cpu, server_cpu(server) - server_s
            with Cairn(places[1], now=NOW) as cairn:
                start, cpu, server_s = time.perf_counter(), time.process_time(), server_cpu(server)
                turns = sum(cairn.ingest(t, origin=o, progress=False).episodes for o, t in conversations)
                ingest_s = time.perf_counter() - start
                ingest_cpu, ingest_server = time.process_time() - cpu, server_cpu(server) - server_s
            out[backend] = {}
            if prefill:
                # The same claims imported into a store already holding --prefill others
                # (imported first, unmeasured): no index is deferred there.
                with Cairn(Path(folder) / f"{backend}-3.db" if backend == "sqlite" else server.new_database(),
                           now=NOW) as cairn:
                    cairn.import_(prefill)
                    start, cpu, server_s = time.perf_counter(), time.process_time(), server_cpu(server)
                    again = cairn.import_(lines).records
                    wall = time.perf_counter() - start
                    out[backend].update(nonempty_import_per_s=round(again / wall),
                                        nonempty_import_cpu_us=round((time.process_time() - cpu) / again * 1e6, 1),
                                        nonempty_import_server_cpu_us=round((server_cpu(server) - server_s) / again * 1e6, 1))
            out[backend].update({
                "import_per_s": round(records / import_s), "ingest_turns_per_s": round(turns / ingest_s),
                "records": records, "turns": turns,
                # µs a record: this process's CPU, and the server's (PostgreSQL; for SQLite idle)
                "import_cpu_us": round(import_cpu / records * 1e6, 1),
                "import_server_cpu_us": round(import_server / records * 1e6, 1),
                "ingest_cpu_us": round(ingest_cpu / turns * 1e6, 1),
                "ingest_server_cpu_us": round(ingest_server / turns * 1e6, 1)})
            say(f"  {json.dumps(out[backend])}")
    out["load_average"] = __import__("os").getloadavg()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    d = sub.add_parser("drill", help="concurrent writers and readers, then an audit")
    d.add_argument("--writers", type=int, default=16)
    d.add_argument("--per-writer", type=int, default=500)
    d.add_argument("--readers", type=int, default=2)
    lo = sub.add_parser("locomo", help="LoCoMo retrieval on both backends")
    lo.add_argument("--split", default="heldout", choices=("dev", "heldout", "all"))
    lo.add_argument("--data", default=None)
    sc = sub.add_parser("scale", help="ingest rate and recall latency at N claims on both backends")
    sc.add_argument("--claims", type=int, nargs="+", default=[100_000])
    sc.add_argument("--backends", nargs="+", default=["sqlite", "postgres"], choices=("sqlite", "postgres"))
    sc.add_argument("--budget-s", type=float, default=None, help="stop a store's ingest after this many seconds")
    sc.add_argument("--keep", default=None, help="leave the server and the stores in this new folder")
    rc = sub.add_parser("recall", help="scale's queries against stores kept by scale --keep")
    rc.add_argument("--claims", type=int, nargs=1, required=True, help="the size the stores were built with")
    rc.add_argument("--keep", required=True, help="the folder given to scale --keep")
    rc.add_argument("--pg", default=None, help="URL of the PostgreSQL store (scale's output: kept)")
    rc.add_argument("--sqlite", default=None, help="path of the SQLite store")
    rc.add_argument("--backends", nargs="+", default=["sqlite", "postgres"], choices=("sqlite", "postgres"))
    rc.add_argument("--warm", type=int, default=25, help="queries run once, unmeasured, before the measured pass")
    bu = sub.add_parser("bulk", help="bulk write rates (import_, ingest) on both backends")
    bu.add_argument("--claims", type=int, default=20_000)
    bu.add_argument("--turns", type=int, default=6_000)
    bu.add_argument("--prefill", type=int, default=0,
                    help="also import the same claims into a store already holding this many others")
    args = parser.parse_args()
    keep = getattr(args, "keep", None)
    if args.what == "recall":
        server = pgserver.attach(str(Path(keep) / "pg"))
    else:
        if keep:
            Path(keep).mkdir(parents=True)
        server = pgserver.start(str(Path(keep) / "pg") if keep else None)
    try:
        doc = {"drill": drill, "locomo": locomo, "scale": scale, "bulk": bulk, "recall": recall}[args.what](server, args)
    finally:
        if not keep:
            server.stop()
    print(json.dumps(doc, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
