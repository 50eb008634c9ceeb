"""The correction set benchmark: does recall return what a correction or time has retired?

Runs every hand-written case of ``tests/relations/corrections/*.jsonl`` on a fresh
database each, through the public facade (``Cairn.remember``/``relate``/``forget``/
``recall``), and measures:

* **pre-correction rate** — cases (``stale_kind: pre-correction``) where a record that
  was corrected, superseded, withdrawn or judged incorrect came back *as current*;
* **past-state rate** — cases (``stale_kind: past-state``) where a record whose validity
  had ended, or did not hold at ``as_of``, came back *as current*;
* **not-yet-known rate** — cases (``stale_kind: not-yet-known``) where a record Cairn
  did not hold at ``known_at`` came back at all;
* **answer rate** — cases whose expected current records all came back with exactly the
  expected markers.

"As current" means returned without a ``historical-rationale`` or ``past-state`` marker
(those label history, which may be shown). The first two rates must be 0.

A case line::

    {"id", "category", "setup": [step, ...], "query", "now"?, "as_of"?, "known_at"?,
     "include_history"?, "expect": {ref: [markers]}, "stale": [ref, ...], "stale_kind"}

Steps: ``{"ref", "text", "kind"?, "at", "valid_from"?, "valid_to"?,
"expected_resolution_at"?, "relates"?: [[role, ref]]}`` stores a claim;
``{"relate": [from, role, to], "at"}``, ``{"forget": ref, "at"}``,
``{"incorrect": ref, "at"}`` (an accuracy verdict), ``{"undo": ref, "at"}`` (undo the
event that stored ``ref``).

``python -m cairn.bench.corrections [--cases DIR] [--out FILE] [--check]`` prints the
numbers and rewrites the corrections section of ``docs/benchmarks.md``; ``--check`` exits 1
when a required rate is not 0.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine import Cairn
from ..model import parse_time
from .report import stamp, write_section

HISTORY_MARKERS = frozenset({"historical-rationale", "past-state"})
# Markers an expectation pins; aging/dormant follow from freshness, not from relations or time.
PINNED_MARKERS = frozenset({"corrected", "contradicted", "past-state", "checkpoint-passed", "historical-rationale"})
DEFAULT_NOW = "2026-06-01T12:00:00Z"
ROOT = Path(__file__).resolve().parents[3]
CASES = ROOT / "tests" / "relations" / "corrections"
REPORT = ROOT / "docs" / "benchmarks.md"  # its section: <!-- bench:corrections:... -->
STALE_KINDS = ("pre-correction", "past-state", "not-yet-known")


@dataclass
class CaseResult:
    id: str
    category: str
    stale_kind: str
    stale_returned: list[str]  # refs of stale records that came back as current
    answered: bool
    got: list[tuple[str, list[str]]] = field(default_factory=list)  # (ref, markers) returned


def load_cases(folder: Path = CASES) -> list[dict]:
    cases = []
    for path in sorted(folder.glob("*.jsonl")):
        for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if raw.strip():
                case = json.loads(raw)
                case["_where"] = f"{path.name}:{number}"
                cases.append(case)
    return cases


class _Clock:
    def __init__(self) -> None:
        self.at = parse_time(DEFAULT_NOW)

    def __call__(self):
        return self.at


def _apply(cairn: Cairn, clock: _Clock, step: dict, refs: dict, events: dict) -> None:
    clock.at = parse_time(step["at"])
    if "text" in step:
        relates = [(role, refs[to]) for role, to in step.get("relates", [])] or None
        done = cairn.remember(
            step["text"], kind=step.get("kind", "fact"), valid_from=step.get("valid_from"),
            valid_to=step.get("valid_to"), expected_resolution_at=step.get("expected_resolution_at"),
            relates=relates,
        )
        refs[step["ref"]] = done.memory.id
        if done.event is not None:  # None: identical text already stood, nothing of its own to undo
            events[step["ref"]] = done.event.id
    elif "relate" in step:
        newer, role, older = step["relate"]
        cairn.relate(refs[newer], role, refs[older])
    elif "forget" in step:
        cairn.forget(refs[step["forget"]])
    elif "undo" in step:
        cairn.undo(events[step["undo"]])
    elif "incorrect" in step:
        _judge_incorrect(cairn, refs[step["incorrect"]])
    else:
        raise ValueError(f"unknown step {step}")


def _judge_incorrect(cairn: Cairn, memory_id: str) -> None:
    """An explicit ``incorrect`` accuracy verdict, as a reviewer would give it."""
    cairn.feedback(memory_id, "incorrect", source="bench-review")


def run_case(case: dict, folder: Path) -> CaseResult:
    clock = _Clock()
    refs: dict[str, str] = {}
    events: dict[str, str] = {}
    with Cairn(folder / f"{case['id']}.db", now=clock) as cairn:
        for step in case["setup"]:
            _apply(cairn, clock, step, refs, events)
        clock.at = parse_time(case.get("now", DEFAULT_NOW))
        recalled = cairn.recall(
            case["query"], as_of=case.get("as_of"), known_at=case.get("known_at"),
            include_history=bool(case.get("include_history")), trace=False,
        )
    names = {v: k for k, v in refs.items()}
    got = [(names.get(r.id, r.id), list(r.markers)) for r in recalled.results]
    kind = case["stale_kind"]
    stale = []
    for ref, markers in got:
        if ref in case["stale"] and (kind == "not-yet-known" or not HISTORY_MARKERS & set(markers)):
            stale.append(ref)
    returned = {ref: [m for m in markers if m in PINNED_MARKERS] for ref, markers in got}
    answered = all(ref in returned and sorted(returned[ref]) == sorted(want) for ref, want in case["expect"].items())
    answered = answered and (bool(case["expect"]) or not got)  # an empty expectation wants no answer
    return CaseResult(case["id"], case["category"], kind, stale, answered, got)


def run(cases: list[dict]) -> list[CaseResult]:
    with tempfile.TemporaryDirectory(prefix="cairn-corrections-") as tmp:
        return [run_case(case, Path(tmp)) for case in cases]


def summarise(results: list[CaseResult]) -> dict:
    def rate(kind: str) -> tuple[int, int]:
        scope = [r for r in results if r.stale_kind == kind]
        return sum(1 for r in scope if r.stale_returned), len(scope)

    summary: dict[str, Any] = {kind: rate(kind) for kind in STALE_KINDS}
    summary["answered"] = (sum(1 for r in results if r.answered), len(results))
    summary["categories"] = sorted({r.category for r in results})
    return summary


def report(results: list[CaseResult], summary: dict) -> str:
    def pct(pair):
        bad, total = pair
        return f"{bad}/{total} = {bad / total:.1%}" if total else "0/0"

    lines = [
        "Cases: "
        f"`tests/relations/corrections/*.jsonl`, {len(results)} hand-written cases in "
        f"{len(summary['categories'])} categories ({', '.join(summary['categories'])}).",
        "",
        "| measure | value | required |",
        "|---|---:|---:|",
        f"| pre-correction content returned as current | {pct(summary['pre-correction'])} | 0 |",
        f"| past state returned as present | {pct(summary['past-state'])} | 0 |",
        f"| record not yet known at `known_at` returned | {pct(summary['not-yet-known'])} | — |",
        f"| expected current answer returned with its markers | {summary['answered'][0]}/{summary['answered'][1]} | — |",
        "",
    ]
    misses = [r for r in results if r.stale_returned or not r.answered]
    if misses:
        lines += ["Cases that failed (stale refs returned as current, or the expected answer missing):", ""]
        lines += [f"- `{r.id}` ({r.category}): stale {r.stale_returned or '-'}; got {r.got}" for r in misses]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cairn.bench.corrections", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=Path, default=CASES, help="folder of *.jsonl cases")
    parser.add_argument(
        "--out", type=Path, default=REPORT, help="markdown file whose corrections section is rewritten ('-' to skip)"
    )
    parser.add_argument("--check", action="store_true", help="exit 1 unless both required rates are 0")
    args = parser.parse_args(argv)
    results = run(load_cases(args.cases))
    summary = summarise(results)
    text = report(results, summary)
    print(text)
    if str(args.out) != "-":
        command = "python -m cairn.bench.corrections " + " ".join(argv if argv is not None else sys.argv[1:])
        write_section(args.out, "corrections", stamp(command.strip()) + [""] + text.rstrip("\n").splitlines())
        print(f"wrote the corrections section of {args.out}", file=sys.stderr)
    failed = summary["pre-correction"][0] or summary["past-state"][0]
    return 1 if args.check and failed else 0


if __name__ == "__main__":
    sys.exit(main())
