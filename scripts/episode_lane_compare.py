"""The episode lane's output and latency on fixed stores, for a before/after pair.

    python scripts/episode_lane_compare.py build DIR [--turns 1000,10000]
    python scripts/episode_lane_compare.py run DIR OUT.json [--only NAME] [--repeat R]

build: one store per LoCoMo conversation (``locomoN.db``, read from the data file the
       LoCoMo benchmark reads) and, per ``--turns`` size, a scale-ladder episode store
       (``scaleN.db``, the ladder's synthetic conversations) with its questions beside it.
run:   every question of every store in DIR: LoCoMo through ``Cairn.search(lane="episodes",
       limit=10)`` as the LoCoMo benchmark asks, the ladder's through ``Cairn.recall(lane=
       "episodes", limit=5)`` as the ladder asks, no traces, a fixed clock. Prints the
       median and p95 per store of wall time and of CPU time (``time.process_time``:
       what a shared machine's load does not inflate). OUT gets every answer in full
       (results, digest, candidates, and ``rank_episodes`` at the lane's pool of 48 with
       scores and factors); ``-`` skips the dump.

Run it with PYTHONPATH pointing at each checkout's ``src`` on the same DIR (stores are
only read), then ``cmp`` the two dumps: a speed change must leave them byte-identical.
Build with the older side (its stores are what the newer code must read).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
# Where the LoCoMo benchmark looks (beside the repository), whichever checkout is imported.
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo10.json"


def build(folder: Path, sizes: list[int]) -> None:
    from cairn.bench import locomo
    from cairn.bench.scale import EPISODE_QUERIES, Conversations
    from cairn.engine import Cairn

    folder.mkdir(parents=True, exist_ok=True)
    for i, conversation in enumerate(locomo.load(DATA)):
        path = folder / f"locomo{i}.db"
        if not path.exists():
            with Cairn(path, now=NOW) as cairn:
                cairn.ingest(conversation, format="locomo", progress=False)
    for size in sizes:
        path = folder / f"scale{size}.db"
        if path.exists():
            continue
        conv = Conversations(size)
        with Cairn(path, now=NOW) as cairn:
            for origin, lines in conv.conversations():
                cairn.ingest(lines, origin=origin, progress=False)
        questions = [q for *_, q in conv.needles] + conv.questions(EPISODE_QUERIES)
        (folder / f"scale{size}.questions.json").write_text(json.dumps(questions))
        print(f"built {path}", file=sys.stderr)


def question_sets(folder: Path, only: str | None) -> list[tuple[str, str, list[str]]]:
    from cairn.bench import locomo

    found = []
    notes = locomo.EvidenceNotes()
    for i, conversation in enumerate(locomo.load(DATA)):
        if only in (None, "locomo", f"locomo{i}") and (folder / f"locomo{i}.db").exists():
            found.append((f"locomo{i}", "search", [q.text for q in locomo.questions(conversation, i, notes)]))
    for path in sorted(folder.glob("scale*.questions.json")):
        name = path.name.split(".")[0]
        if only in (None, name):
            found.append((name, "recall", json.loads(path.read_text())))
    return found


def _line(name: str, wall: list[float], cpu: list[float]) -> str:
    def p95(values: list[float]) -> float:
        return sorted(values)[max(0, int(0.95 * len(values)) - 1)]

    return (f"{name:14s} n={len(wall):5d}  wall median {statistics.median(wall):7.2f} p95 {p95(wall):7.2f}"
            f"  cpu median {statistics.median(cpu):7.2f} p95 {p95(cpu):7.2f} ms")


def run(folder: Path, out: str, only: str | None, repeat: int) -> None:
    from cairn.engine import Cairn
    from cairn.recall.episodes import rank_episodes

    dump: dict = {}
    every: dict[str, tuple[list[float], list[float]]] = {"locomo": ([], []), "scale": ([], [])}
    for name, how, questions in question_sets(folder, only):
        with Cairn(folder / f"{name}.db", now=NOW) as cairn:
            wall: list[float] = []
            cpu: list[float] = []
            docs = []
            for round_ in range(repeat):
                for question in questions:
                    started, used = time.perf_counter(), time.process_time()
                    if how == "search":
                        found = cairn.search(question, lane="episodes", limit=10, trace=False)
                    else:
                        found = cairn.recall(question, lane="episodes", limit=5, trace=False)
                    wall.append((time.perf_counter() - started) * 1000)
                    cpu.append((time.process_time() - used) * 1000)
                    if round_ == 0 and out != "-":
                        doc = dict(found.to_dict())
                        doc.pop("trace", None)
                        docs.append(doc)
            if out != "-":
                with cairn.store.snapshot() as view:
                    for question, doc in zip(questions, docs, strict=True):
                        ranked = rank_episodes(view, cairn.space, question, limit=48, include_retired=how == "search")
                        doc["rank_episodes"] = [(s.id, repr(s.score), sorted(s.factors.items())) for s in ranked]
                dump[name] = docs
        print(_line(name, wall, cpu), flush=True)
        group = every["locomo" if name.startswith("locomo") else "scale"]
        group[0].extend(wall)
        group[1].extend(cpu)
    if len(every["locomo"][0]) > 0:
        print(_line("locomo (all)", *every["locomo"]))
    if out != "-":
        Path(out).write_text(json.dumps(dump, indent=0, sort_keys=True, default=str))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("folder", type=Path)
    b.add_argument("--turns", default="", help="scale-ladder episode stores, comma-separated turn counts")
    r = sub.add_parser("run")
    r.add_argument("folder", type=Path)
    r.add_argument("out", help="dump file, or - for timings only")
    r.add_argument("--only", help="locomo, locomoN or scaleN")
    r.add_argument("--repeat", type=int, default=1, help="ask every question this many times (timings)")
    args = parser.parse_args()
    if args.command == "build":
        build(args.folder, [int(s) for s in args.turns.split(",") if s])
    else:
        run(args.folder, args.out, args.only, args.repeat)


if __name__ == "__main__":
    main()
