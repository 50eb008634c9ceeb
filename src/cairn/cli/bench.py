"""CLI commands of the bench group: ``bench locomo`` and ``bench scale``.

Benchmarks use their own temporary stores, never the global ``--db``: they are
registered with ``needs_db=False`` and their handlers receive ``cairn=None``.
"""

from __future__ import annotations

import argparse
import sys

from .. import wire
from ..bench import locomo, report, scale
from ..errors import InvalidInput
from .common import Output, add_command

_LOCOMO = f"""\
LoCoMo evidence retrieval. Each conversation is ingested as episodes into a fresh store
through the public API, every question of categories 1-4 is asked of the episode lane,
and the plain FTS5 BM25 baseline runs on the same questions in the same run.
Reports turn-level any@k and all@k (overall, per category, per split) and the median
and p95 latency per question. Tuning used conversations 0-4 only (split dev); 5-9 are
held out.

Data: --data PATH, default {locomo.DEFAULT_DATA} (the file is never copied into the
repository; docs/benchmarks.md describes the protocol).
"""

_SCALE = """\
The scale ladder: for each size a fresh store is filled with synthetic claims (varied
vocabulary, kinds, origins, ages; some corrected, forgotten, quarantined) and planted
needles. Reports bulk ingest rate, recall median/p95 latency, needle hit@3, database
size and peak memory. Each size runs in its own process; --budget caps its ingest time
and --recall-budget its recall queries (per lane), and a size that does not finish a
step says how far it got and why.
"""


def _int_list(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v.replace("_", "")) for v in text.split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of integers") from None
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"{text!r}: every value must be at least 1")
    return values


def _k_list(text: str) -> tuple[int, ...]:
    values = _int_list(text)
    if max(values) > locomo.MAX_K:
        raise argparse.ArgumentTypeError(f"{text!r}: k is at most {locomo.MAX_K} (what a recall returns)")
    return values


def register(sub) -> None:
    p = add_command(sub, "bench", "run a benchmark (locomo, scale)", _usage, needs_db=False,
                    description="Benchmarks; their numbers of record live in docs/benchmarks.md.")
    inner = p.add_subparsers(dest="bench", metavar="BENCH", required=True)

    q = add_command(inner, "locomo", "LoCoMo evidence retrieval against the FTS5 baseline", cmd_locomo,
                    description=_LOCOMO, needs_db=False)
    q.add_argument("--data", metavar="PATH", help="path of locomo10.json (default: the path under Data above)")
    q.add_argument("--split", choices=tuple(locomo.SPLITS), default="all", help="dev (0-4), heldout (5-9) or all (default)")
    q.add_argument("--k", type=_k_list, default=(5, 10),
                   help=f"cut-offs, comma-separated, at most {locomo.MAX_K} (default: 5,10)")
    q.add_argument("--quick", action="store_true", help="two conversations (0 and 5): the CI variant")
    q.add_argument("--lane", choices=tuple(locomo.LANES), default="lexical",
                   help="Cairn's episode lane: lexical (default), semantic or hybrid (these two need the semantic extra)")
    q.add_argument("--report", metavar="FILE", help="also write the LoCoMo section of this benchmarks document")

    s = add_command(inner, "scale", "the scale ladder: ingest, latency, needles, size, memory", cmd_scale,
                    description=_SCALE, needs_db=False)
    s.add_argument("--sizes", type=_int_list, default=scale.SIZES,
                   help="record counts, comma-separated (default: 1000,10000,100000,1000000)")
    s.add_argument("--budget", type=float, help="seconds of ingest allowed per size (default: no limit)")
    s.add_argument("--recall-budget", type=float, help="seconds of recall queries allowed per size and lane (default: no limit)")
    s.add_argument("--report", metavar="FILE", help="also write the scale section of this benchmarks document")


def _usage(cairn, args) -> Output:  # pragma: no cover - argparse requires a subcommand
    raise InvalidInput("bench", "name a benchmark: locomo or scale")


def _progress(message: str) -> None:
    if sys.stderr.isatty():
        print(message, file=sys.stderr, flush=True)


def _command(args, bench: str) -> str:
    """The command that reproduces these numbers (without --report and the default data)."""
    parts = ["cairn", "bench", bench]
    if bench == "locomo":
        parts += ["--quick"] if args.quick else ["--split", args.split]
        parts += ["--k", ",".join(map(str, args.k))]
        if args.lane != "lexical":
            parts += ["--lane", args.lane]
        if args.data:
            parts += ["--data", args.data]
    else:
        parts += ["--sizes", ",".join(map(str, args.sizes))]
        if args.budget:
            parts += ["--budget", f"{args.budget:g}"]
        if args.recall_budget:
            parts += ["--recall-budget", f"{args.recall_budget:g}"]
    return " ".join(parts)


def cmd_locomo(cairn, args) -> Output:
    data = locomo.load(args.data)
    result = locomo.run(data, split=args.split, ks=args.k, quick=args.quick, progress=_progress, lane=args.lane)
    if args.report:
        report.write_locomo(args.report, result, command=_command(args, "locomo"))
    return Output(wire.locomo(result.doc()), report.locomo_text(result), stderr=result.notes.lines())


def cmd_scale(cairn, args) -> Output:
    rows = scale.run(args.sizes, budget_s=args.budget, recall_budget_s=args.recall_budget, progress=_progress)
    if args.report:
        report.write_scale(args.report, rows, command=_command(args, "scale"))
    return Output(wire.scale(rows), report.scale_text(rows))
