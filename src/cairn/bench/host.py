"""The host loop measured: triage accuracy, the LoCoMo fallback rate, the hook's wall time.

    python -m cairn.bench.host [--size 10000] [--runs 40] [--out docs/benchmarks.md]

1. **Triage** on the team's labelled sets (``tests/host/triage_set.json``, 201 messages,
   and ``triage_heldout.json``), against the store they describe: precision and recall per
   class, and how often a RETRIEVE intent kept every expected anchor.
2. **Fallback rate** on the LoCoMo questions (categories 1-4, all ten conversations): how
   often triage decides RETRIEVE and the recall of its intent then returns nothing (both
   lanes), on a store holding the conversation — and how often triage skipped a question
   that the conversation can answer.
3. **Hook wall time**: ``cairn hook claude-code user-prompt-submit`` as a separate
   process on a store of ``--size`` claims, median and p95 over ``--runs`` prompts, both
   working in process and with a warm server answering for it (interleaved), beside
   a bare ``python -c pass`` and ``cairn --help`` measured in the same run. The processes
   run with their bytecode cached (in the run's temporary folder), as an installed package
   does; ``python -m cairn.bench.startup --no-bytecode-cache`` shows the cost without.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from ..engine import Cairn
from .stats import median_p95

DATA = Path(__file__).resolve().parents[3] / "tests" / "host"
CLASSES = ("RETRIEVE", "ASK", "SKIP")


def triage_accuracy(name: str) -> dict:
    rows = json.loads((DATA / name).read_text(encoding="utf-8"))
    store = json.loads((DATA / "triage_store.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as folder, Cairn(Path(folder) / "t.db", now="2026-06-01T00:00:00Z") as cairn:
        for memory in store:
            cairn.remember(memory["content"], kind=memory["kind"])
        confusion: Counter = Counter()
        anchored = 0
        for row in rows:
            result = cairn.triage(row["message"])
            confusion[(row["decision"], result.decision.value)] += 1
            if row["decision"] == result.decision.value == "RETRIEVE":
                anchored += all(a.casefold() in (result.intent or "").casefold() for a in row["anchors"])
    out: dict = {"name": name, "messages": len(rows), "anchors_kept": anchored / max(1, confusion[("RETRIEVE", "RETRIEVE")])}
    for k in CLASSES:
        predicted = sum(v for (_, p), v in confusion.items() if p == k)
        gold = sum(v for (g, _), v in confusion.items() if g == k)
        out[k] = {"gold": gold, "precision": confusion[(k, k)] / max(1, predicted), "recall": confusion[(k, k)] / max(1, gold)}
    out["accuracy"] = sum(confusion[(k, k)] for k in CLASSES) / max(1, len(rows))
    return out


def fallback_rate(progress=None) -> dict:
    from .locomo import EvidenceNotes, load, questions

    data = load()
    counts: Counter = Counter()
    with tempfile.TemporaryDirectory() as folder:
        for index, conversation in enumerate(data):
            with Cairn(Path(folder) / f"c{index}.db") as cairn:
                cairn.ingest(conversation, format="locomo", progress=False)
                for q in questions(conversation, index, EvidenceNotes()):
                    result = cairn.triage(q.text)
                    counts[result.decision.value] += 1
                    if result.decision.value == "RETRIEVE":
                        found = cairn.recall(result.intent or "", lane="all", trace=False)
                        counts["empty"] += not found.results
            if progress:
                progress(index + 1, len(data))
    retrieve = counts["RETRIEVE"]
    total = sum(counts[k] for k in CLASSES)
    return {"questions": total, "retrieve": retrieve, "ask": counts["ASK"], "skip": counts["SKIP"],
            "empty": counts["empty"], "fallback_rate": counts["empty"] / max(1, retrieve)}


def hook_wall_time(size: int, runs: int, seed: int = 7) -> dict:
    """Each prompt runs twice, in a random order: on a store no server answers for (the
    hook imports the engine itself) and on a copy of it that a warm server
    (:mod:`cairn.host.warm`, what ``cairn mcp`` runs) answers for."""
    import shutil

    from ..host.warm import WarmServer
    from .recall_latency import build

    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "cairn.db"
        texts, _ = build(db, size, rng)
        served = Path(folder) / "served" / "cairn.db"
        served.parent.mkdir()
        shutil.copyfile(db, served)
        prompts = []
        for i in range(runs):
            words = texts[rng.randrange(len(texts))].lower().split()
            prompts.append("ok" if i % 10 == 0 else "what did we decide about the " + " ".join(words[:4]))

        def cmd(store: Path) -> list[str]:
            return [sys.executable, "-m", "cairn", "--db", str(store), "hook", "claude-code", "user-prompt-submit",
                    "--timeout", "5"]

        # Bytecode cached, as an installed package has it (the warm-up run writes it, outside
        # the source tree): without, every process compiles every module it imports. The
        # default install: no semantic extra.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(folder) / "pycache")
        env["CAIRN_SEMANTIC"] = "off"

        def timed(argv: list[str], stdin: str = "") -> float:
            start = time.perf_counter()
            subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=60, env=env)
            return (time.perf_counter() - start) * 1000

        cold: list[float] = []
        warm: list[float] = []
        with WarmServer(served):
            for store in (db, served):  # page cache
                timed(cmd(store), json.dumps({"prompt": prompts[1], "session_id": "warm-up"}))
            for i, p in enumerate(prompts):
                payload = json.dumps({"prompt": p, "session_id": f"bench-{i}", "cwd": folder})
                for store, times in rng.sample([(db, cold), (served, warm)], 2):
                    times.append(timed(cmd(store), payload))
        bare = [timed([sys.executable, "-c", "pass"]) for _ in range(min(runs, 20))]
        helped = [timed([sys.executable, "-m", "cairn", "--help"]) for _ in range(min(runs, 20))]
    return {"size": size, "runs": runs, "hook": median_p95(cold, 1), "warm": median_p95(warm, 1),
            "python": median_p95(bare, 1), "cairn_help": median_p95(helped, 1)}


def report(triage_rows: list[dict], fallback: dict | None, wall: dict, command: str) -> list[str]:
    from .report import stamp

    lines = stamp(command) + ["", "| set | messages | accuracy | RETRIEVE precision / recall | ASK precision / recall | "
                                  "SKIP precision / recall | anchors kept |", "|---|---|---|---|---|---|---|"]
    for row in triage_rows:
        cells = [f"{row[k]['precision']:.2f} / {row[k]['recall']:.2f}" for k in CLASSES]
        lines.append(f"| {row['name']} | {row['messages']} | {row['accuracy']:.3f} | " + " | ".join(cells)
                     + f" | {row['anchors_kept']:.2f} |")
    if fallback:
        lines += ["", f"LoCoMo questions (categories 1-4, 10 conversations): {fallback['questions']} triaged — "
                      f"RETRIEVE {fallback['retrieve']}, ASK {fallback['ask']}, SKIP {fallback['skip']}; "
                      f"a RETRIEVE whose recall returned nothing (fallback rate): {fallback['empty']} "
                      f"= **{fallback['fallback_rate']:.3f}**."]
    lines += ["", f"Hook process wall time on a {wall['size']:,}-claim store ({wall['runs']} prompts, one in ten \"ok\", "
                  "bytecode cached as installed; ms, median / p95): "
                  f"`cairn hook claude-code user-prompt-submit` **{wall['hook']['median']} / {wall['hook']['p95']}** "
                  "working in process, "
                  f"**{wall['warm']['median']} / {wall['warm']['p95']}** with a warm server (what `cairn mcp` runs) "
                  "answering for it, the same prompts interleaved; "
                  f"same run: `python -c pass` {wall['python']['median']} / {wall['python']['p95']}, "
                  f"`cairn --help` {wall['cairn_help']['median']} / {wall['cairn_help']['p95']}."]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cairn.bench.host", description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000, help="claims in the hook's store (default 10000)")
    parser.add_argument("--runs", type=int, default=40, help="hook processes timed (default 40)")
    parser.add_argument("--no-locomo", action="store_true", help="skip the LoCoMo fallback rate")
    parser.add_argument("--out", help="write the section 'host' of this Markdown file")
    args = parser.parse_args(argv)
    rows = [triage_accuracy("triage_set.json"), triage_accuracy("triage_heldout.json")]
    fallback = None if args.no_locomo else fallback_rate(lambda i, n: print(f"\rLoCoMo {i}/{n}", end="", file=sys.stderr))
    print(file=sys.stderr)
    wall = hook_wall_time(args.size, args.runs)
    command = "python -m cairn.bench.host" + "".join(f" {a}" for a in (argv if argv is not None else sys.argv[1:]))
    lines = report(rows, fallback, wall, command)
    print("\n".join(lines))
    if args.out:
        from .report import write_section

        write_section(args.out, "host", lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
