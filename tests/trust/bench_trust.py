"""Retention and maintenance measured as seed 002 asks (run by hand, not by pytest):

    .venv/bin/python tests/trust/bench_trust.py --sizes 10000,100000 --folder /tmp/trust-bench \\
        [--baseline-src /tmp/main/src] [--write docs/benchmarks.md]

**Scale ladder** (cairn.bench.scale.Generator, per size): needle hit@3, candidate pool and
recall latency over the 25 needle and 50 background queries, before and after the two
policies of :data:`POLICY` are applied; then each of ``cairn maintain``, ``cairn retention
plan`` and ``cairn retention apply`` as a whole CLI process on that store. With
``--baseline-src`` the same three plans also run, in the same sitting, with the code of
that source tree on a copy of the same store (the baseline).

**LoCoMo** (all ten conversations, each its own store, ``now`` one day after its last
session): evidence any@10 of the episode lane's recall before and after retiring the
episodes older than :data:`LOCOMO_DAYS` days; over every question, over the questions whose
evidence turns all stay live, and with ``--include-retired``; the candidate pool and the
retired records in it; recall latency.

The candidate pool is the records a recall loaded and judged (``outcome.candidates``);
"retired in pool" counts those whose status is ``retired`` (0 by construction once the
store skips them; measured with ``include_retired`` to show what they would take).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

from cairn import Cairn
from cairn.bench.report import machine, write_section
from cairn.bench.scale import NOW, Generator
from cairn.model import Status, format_time

POLICY = """
[[policy]]
name = "stale project state"
kind = "project_state"
older_than_days = 90
no_use_report = true

[[policy]]
name = "old conflicted records"
status = "conflicted"
older_than_days = 90
"""
LOCOMO_DAYS = 180
LOCOMO_POLICY = f"""
[[policy]]
name = "old turns"
kind = "episode"
older_than_days = {LOCOMO_DAYS}
no_use_report = true
"""


def _recall_stats(cairn: Cairn, gen: Generator, queries: list[str], *, include_retired: bool = False) -> dict:
    hits, pools, retired, ms = 0, [], [], []
    for number, query in enumerate([q for _, q in gen.needles] + queries):
        t0 = time.perf_counter()
        r = cairn.recall(query, limit=3, trace=False, include_retired=include_retired)
        ms.append((time.perf_counter() - t0) * 1000)
        pools.append(len(r.outcome.candidates))
        retired.append(sum(1 for c in r.outcome.candidates if c.memory is not None and c.memory.status is Status.RETIRED))
        if number < len(gen.needles):
            hits += gen.needles[number][0] in r.ids[:3]
    return {"needle_hit@3": round(hits / len(gen.needles), 3), "pool_mean": round(statistics.mean(pools), 1),
            "retired_in_pool_mean": round(statistics.mean(retired), 1),
            "recall_ms_median": round(statistics.median(ms), 1)}


def _cli(db: Path, *args: str, src: str | None = None) -> float:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "cairn", "--db", str(db), "--now", format_time(NOW), *args],
                          env=env, capture_output=True, text=True)
    took = round(time.perf_counter() - t0, 2)
    if done.returncode != 0:
        raise SystemExit(f"cairn {' '.join(args)} failed: {done.stderr.strip()}")
    return took


BUILD = """
import sys
from cairn import Cairn
from cairn.bench.scale import NOW, Generator
batch = []
with Cairn(sys.argv[2], now=NOW) as cairn:
    for line in Generator(int(sys.argv[1])).lines():
        batch.append(line)
        if len(batch) >= 5000:
            cairn.import_(batch)
            batch = []
    if batch:
        cairn.import_(batch)
"""


def _build(size: int, path: Path, src: str | None) -> None:
    """The generated store, written by the baseline's code when there is one (so that
    both sides can open it: this code migrates its copy)."""
    env = dict(os.environ, **({"PYTHONPATH": src} if src else {}))
    subprocess.run([sys.executable, "-c", BUILD, str(size), str(path)], env=env, check=True)


def _plans(db: Path, folder: Path, tag: str, src: str | None = None) -> dict:
    policy = folder / "policy.toml"
    policy.write_text(POLICY, encoding="utf-8")
    out = {"maintain_s": _cli(db, "maintain", "--out", str(folder / f"m-{tag}.json"), src=src),
           "retention_plan_s": _cli(db, "retention", "plan", str(policy), "--out", str(folder / f"r-{tag}.json"), src=src)}
    out["retention_apply_s"] = _cli(db, "retention", "apply", str(folder / f"r-{tag}.json"), src=src)
    out["maintain_ops"] = len(json.loads((folder / f"m-{tag}.json").read_text())["ops"])
    out["retired"] = len(json.loads((folder / f"r-{tag}.json").read_text())["matches"])
    return out


def scale(size: int, folder: Path, baseline_src: str | None) -> dict:
    base = folder / f"base-{size}.db"
    if not base.exists():
        _build(size, base, baseline_src)
    gen = Generator(size)
    for _ in gen.lines():
        pass  # the generator plants its needles while it writes
    queries = gen.background_queries(50)
    row: dict = {"size": size}
    if baseline_src:
        old = folder / f"old-{size}.db"
        shutil.copy(base, old)
        row["baseline"] = _plans(old, folder, f"old-{size}", baseline_src)
    work = folder / f"work-{size}.db"
    shutil.copy(base, work)
    t0 = time.perf_counter()
    with Cairn(work, now=NOW) as cairn:  # the first open migrates (0015: the trust index)
        row["migrate_s"] = round(time.perf_counter() - t0, 2)
        row["records"] = cairn.store.count_memories(cairn.space)
        row["before"] = _recall_stats(cairn, gen, queries)
    row["after_code"] = _plans(work, folder, f"new-{size}")
    with Cairn(work, now=NOW) as cairn:
        row["after"] = _recall_stats(cairn, gen, queries)
        row["after_with_retired"] = _recall_stats(cairn, gen, queries, include_retired=True)
    return row


def locomo(folder: Path) -> dict:
    from cairn.bench.locomo import EvidenceNotes, load, questions

    notes = EvidenceNotes()
    totals: dict = {"questions": 0, "live_questions": 0, "episodes": 0, "retired": 0}
    found: dict[str, list[int]] = {k: [] for k in ("before", "after", "after_with_retired", "live_before", "live_after")}
    pools: dict[str, list[int]] = {k: [] for k in ("before", "after", "after_with_retired")}
    retired_in: dict[str, list[int]] = {k: [] for k in ("before", "after", "after_with_retired")}
    ms: dict[str, list[float]] = {k: [] for k in ("before", "after")}
    for index, conversation in enumerate(load()):
        dates = [v for k, v in conversation["conversation"].items() if k.endswith("_date_time")]
        last = max(datetime.strptime(d, "%I:%M %p on %d %B, %Y") for d in dates)
        now = (last + timedelta(days=1)).astimezone()
        path = folder / f"locomo-{index}.db"
        for old in folder.glob(f"locomo-{index}.db*"):
            old.unlink()
        asked = questions(conversation, index, notes)
        with Cairn(path, now=now) as cairn:
            cairn.ingest(conversation, format="locomo", progress=False)
            by_turn = {m.evidence.source_id: m for m in cairn.store.iter_memories(cairn.space, kinds=("episode",))}
            totals["episodes"] += len(by_turn)

            def run(tag: str, include_retired: bool = False, asked: list = asked) -> list[bool]:
                out = []
                for q in asked:
                    t0 = time.perf_counter()
                    r = cairn.recall(q.text, lane="episodes", limit=10, include_dormant=True, trace=False,
                                     include_retired=include_retired)
                    if tag in ms:
                        ms[tag].append((time.perf_counter() - t0) * 1000)
                    pools[tag].append(len(r.outcome.candidates))
                    retired_in[tag].append(sum(1 for c in r.outcome.candidates
                                               if c.memory is not None and c.memory.status is Status.RETIRED))
                    out.append(bool({x.memory.evidence.source_id for x in r.results} & q.evidence))
                return out

            before = run("before")
            plan = cairn.retention_plan(LOCOMO_POLICY)
            retired_ids = {m["id"] for m in plan["matches"]}
            cairn.apply_retention(dict(plan))
            totals["retired"] += len(retired_ids)
            after = run("after")
            wide = run("after_with_retired", include_retired=True)
        live = [not any(by_turn[t].id in retired_ids for t in q.evidence if t in by_turn) for q in asked]
        found["before"] += before
        found["after"] += after
        found["after_with_retired"] += wide
        found["live_before"] += [b for b, ok in zip(before, live, strict=True) if ok]
        found["live_after"] += [a for a, ok in zip(after, live, strict=True) if ok]
        totals["questions"] += len(asked)
        totals["live_questions"] += sum(live)
    return {**totals, **{f"any@10_{k}": round(sum(v) / len(v), 3) for k, v in found.items()},
            **{f"pool_{k}": round(statistics.mean(v), 1) for k, v in pools.items()},
            **{f"retired_in_pool_{k}": round(statistics.mean(v), 2) for k, v in retired_in.items()},
            **{f"ms_median_{k}": round(statistics.median(v), 2) for k, v in ms.items()}}


def markdown(rows: list[dict], loc: dict | None, command: str, load: str) -> list[str]:
    lines = [
        "## Trust: retention and maintenance (seed 002 §2.4, issue 18)",
        "",
        f"Command: `{command}`. Machine: {machine()}; load average {load} while measuring (other",
        f"agents' jobs on 2 cores: times are upper bounds). Date: {datetime.now().date().isoformat()}. \"before\" and",
        "\"after\" are the same store in the same run, before and after the policy was applied;",
        "\"baseline\" is the code of `main` before this work, run in the same sitting on a copy of the same store.",
        "",
        "Scale ladder (policies: `project_state` older than 90 days never reported used; conflicted",
        "records older than 90 days). Recall: 25 needle and 50 background queries, `limit 3`;",
        "pool = records a recall loaded and judged; retired in pool = of those, records with status",
        "`retired` (\"with retired\" = the same recall with `--include-retired`, what they would take).",
        "",
        "| records | needle hit@3 before → after | pool before → after | retired in pool after (with retired) "
        "| recall median ms before → after | retired |",
        "|---:|---|---|---|---|---:|",
    ]
    for r in rows:
        b, a, w = r["before"], r["after"], r["after_with_retired"]
        lines.append(f"| {r['records']:,} | {b['needle_hit@3']} → {a['needle_hit@3']} | {b['pool_mean']} → {a['pool_mean']} "
                     f"| {a['retired_in_pool_mean']} ({w['retired_in_pool_mean']}) "
                     f"| {b['recall_ms_median']} → {a['recall_ms_median']} | {r['after_code']['retired']:,} |")
    lines += ["", "Whole CLI processes on the same store (seconds, interpreter start included):", "",
              "| records | `cairn maintain` baseline → now | `cairn retention plan` baseline → now "
              "| `cairn retention apply` baseline → now | maintain ops | first open (migration 0015) s |",
              "|---:|---|---|---|---:|---:|"]
    for r in rows:
        old, new = r.get("baseline", {}), r["after_code"]
        lines.append(f"| {r['records']:,} | {old.get('maintain_s', '-')} → {new['maintain_s']} "
                     f"| {old.get('retention_plan_s', '-')} → {new['retention_plan_s']} "
                     f"| {old.get('retention_apply_s', '-')} → {new['retention_apply_s']} | {new['maintain_ops']:,} "
                     f"| {r['migrate_s']} |")
    if loc:
        lines += ["", "LoCoMo, all ten conversations (each its own store, now = one day after its last session;",
                  f"policy: episodes older than {LOCOMO_DAYS} days never reported used). Episode-lane recall, `limit 10`,",
                  "dormant included:", "",
                  "| | before | after | after, `--include-retired` |", "|---|---|---|---|",
                  f"| episodes retired | | {loc['retired']:,} of {loc['episodes']:,} | |",
                  f"| evidence any@10, all {loc['questions']} questions | {loc['any@10_before']} | {loc['any@10_after']} "
                  f"| {loc['any@10_after_with_retired']} |",
                  f"| evidence any@10, the {loc['live_questions']} questions whose evidence stays live "
                  f"| {loc['any@10_live_before']} | {loc['any@10_live_after']} | |",
                  f"| candidate pool (mean) | {loc['pool_before']} | {loc['pool_after']} | {loc['pool_after_with_retired']} |",
                  f"| retired records in the pool (mean) | {loc['retired_in_pool_before']} | {loc['retired_in_pool_after']} "
                  f"| {loc['retired_in_pool_after_with_retired']} |",
                  f"| recall median ms | {loc['ms_median_before']} | {loc['ms_median_after']} | |"]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--folder", default="/tmp/trust-bench")
    parser.add_argument("--baseline-src")
    parser.add_argument("--no-locomo", action="store_true")
    parser.add_argument("--write")
    args = parser.parse_args()
    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    loads = [os.getloadavg()[0]]
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        rows.append(scale(size, folder, args.baseline_src))
        loads.append(os.getloadavg()[0])
        print(json.dumps(rows[-1]), file=sys.stderr)
    loc = None if args.no_locomo else locomo(folder)
    loads.append(os.getloadavg()[0])
    print(json.dumps({"scale": rows, "locomo": loc}))
    if args.write:
        command = "python tests/trust/bench_trust.py " + " ".join(a for a in sys.argv[1:])
        load = f"{min(loads):.0f}-{max(loads):.0f}"
        write_section(args.write, "trust", markdown(rows, loc, command, load))


if __name__ == "__main__":
    main()
