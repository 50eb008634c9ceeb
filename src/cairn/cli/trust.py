"""CLI commands of the trust group: report (use reports), maintain, retention.

``report``, ``maintain --apply`` and ``retention apply`` write one event each (undoable);
``report --summary``, ``maintain --report``, ``maintain`` (plan file) and ``retention plan``
only read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from ..engine import Cairn
from ..errors import InvalidInput
from .common import Output, add_command, short


def register(sub) -> None:
    """Add this group's subcommands to the `cairn` parser."""
    p = add_command(
        sub, "report", "report what was done with a recall's results (used, unused, wrong)", cmd_report,
        description="Store what the agent did with the records a recall returned, joined to the recall's trace\n"
                    "(its id is `trace` in `cairn recall --json`). VERDICT: used | unused | wrong. Each REF\n"
                    "must be a record that recall returned. A failure class is attached: wrong on a record\n"
                    "corrected since = stale, wrong otherwise = disputed, unused on every record returned =\n"
                    "irrelevant-digest. Reports never change ranking. An unknown or expired trace is refused.\n"
                    "--summary prints the use rate by lane, kind, age and evidence basis instead.",
    )
    p.add_argument("trace", nargs="?", help="the recall's trace id")
    p.add_argument("verdict", nargs="?", help="used | unused | wrong")
    p.add_argument("refs", nargs="*", metavar="REF", help="records the recall returned (id or unique prefix)")
    p.add_argument("--summary", action="store_true", help="print the aggregates of every report instead")
    p.add_argument("--since", help="with --summary: only reports from this time on (ISO-8601)")

    p = add_command(
        sub, "maintain", "maintenance recommendations, as a report or a reviewable plan", cmd_maintain,
        description="Recommend maintenance from reinforcement events and review cadence:\n"
                    "  1+ explicit corrections: review_memory + decrease_stability; 2+: also mark_contested_suggestion\n"
                    "  2+ explicit reinforcements, no correction: increase_stability\n"
                    "  5+ implicit successes, no correction: flag_for_review (capped at semi-stable)\n"
                    "  neutral exposure alone: nothing;  overdue for review: review_due + confidence_decay\n"
                    "--report prints them; without it a plan file is written (--out); --apply PLAN applies a\n"
                    "plan as one undoable event; --auto applies only decay and stability increases.",
    )
    p.add_argument("--report", action="store_true", help="print the recommendations; write nothing")
    p.add_argument("--out", default="cairn-maintenance-plan.json", help="where to write the plan (default %(default)s)")
    p.add_argument("--apply", metavar="PLAN", help="apply this plan file as one undoable event")
    p.add_argument("--auto", action="store_true", help="with --apply: only the low-risk operations")

    p = add_command(
        sub, "retention", "retention policies: plan what they retire, then apply the plan", cmd_retention,
        description="`retention plan POLICIES.toml` lists what each policy matches and why and writes a plan\n"
                    "(--out); `retention apply PLAN` retires those records in one undoable event. Retired is\n"
                    "not deleted: retired records leave recall and come back under `search` and\n"
                    "`recall --include-retired`. Pinned records are outside every policy. Policy file:\n"
                    "  [[policy]]\n  name = \"old project state\"\n  kind = \"project_state\"\n"
                    "  older_than_days = 30\n  no_use_report = true     # optional; also: status = \"conflicted\"",
    )
    p.add_argument("action", choices=("plan", "apply"), help="plan: list matches; apply: retire a plan's records")
    p.add_argument("file", help="plan: the policy file (TOML); apply: the plan file (JSON)")
    p.add_argument("--out", default="cairn-retention-plan.json", help="plan: where to write it (default %(default)s)")


def _read(path: str, what: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise InvalidInput(what, f"cannot read {path!r}: {err.__class__.__name__}") from None


SHOWN = 200  # lines of a plan printed as text; the plan file and --json hold every one


def plan_text(doc: Mapping[str, Any], items: str) -> str:
    """A plan as JSON a person can review: its header indented, then one item per line.
    (``json.dumps(indent=...)`` encodes in pure Python: 127k items took seconds.)"""
    head = json.dumps({k: v for k, v in doc.items() if k != items}, indent=1, ensure_ascii=False)
    rows = ",\n  ".join(json.dumps(x, ensure_ascii=False) for x in doc[items])
    return f'{head[:-2]},\n "{items}": [\n  {rows}\n ]\n}}\n'


def _more(total: int, where: str) -> list[str]:
    return [f"  ... and {total - SHOWN} more ({where})"] if total > SHOWN else []


def _write(path: str, doc: Mapping[str, Any], items: str) -> None:
    try:
        Path(path).write_text(plan_text(doc, items), encoding="utf-8")
    except OSError as err:
        raise InvalidInput("out", f"cannot write {path!r}: {err.__class__.__name__}") from None


def cmd_report(cairn: Cairn, args) -> Output:
    if args.summary:
        if args.trace:
            raise InvalidInput("report", "--summary takes no trace, verdict or refs")
        doc = cairn.report_summary(since=args.since)
        lines = [f"{doc['reports']} record reports" + (f" since {doc['since']}" if doc["since"] else "")]
        for axis in ("lane", "kind", "age", "basis"):
            for key, r in doc[axis].items():
                rate = "-" if r["use_rate"] is None else f"{r['use_rate']:.0%}"
                lines.append(f"  {axis:5} {key:18} used {rate:>4}  ({r['used']} used, {r['unused']} unused,"
                             f" {r['wrong']} wrong)")
        if doc["failure_classes"]:
            lines.append("failure classes: " + ", ".join(f"{k} {v}" for k, v in doc["failure_classes"].items()))
        return Output(doc, "\n".join(lines))
    if not args.trace or not args.verdict or not args.refs:
        raise InvalidInput("report", "give TRACE VERDICT REF... (or --summary)")
    if args.since:
        raise InvalidInput("since", "only with --summary")
    reported = cairn.report_use(args.trace, args.verdict, args.refs).to_dict()
    lines = [f"{args.verdict} reported on trace {args.trace} in event {reported['event']}"]
    lines += [f"  {short(r['id'])}  {r['failure_class'] or '-'}" for r in reported["refs"]]
    return Output(reported, "\n".join(lines))


def cmd_maintain(cairn: Cairn, args) -> Output:
    if args.apply:
        if args.report:
            raise InvalidInput("maintain", "--report and --apply exclude each other")
        result = cairn.apply_maintenance(_read(args.apply, "plan"), auto=args.auto)
        doc = result.to_dict()
        return Output(doc, f"applied {doc['applied']} op(s), skipped {doc['skipped']}"
                           + (f" in event {doc['event']} (undo with `cairn undo {doc['event']}`)" if doc["event"] else ""))
    if args.auto:
        raise InvalidInput("auto", "only with --apply PLAN")
    plan = cairn.maintenance_plan()
    lines = [f"{len(plan['ops'])} recommendation(s) over {plan['records']} active claim(s)"]
    for op in plan["ops"][:SHOWN]:
        extra = f" {op.get('from')} -> {op.get('to')}" if op.get("to") else ""
        extra += f" -{op.get('decay')}" if op.get("decay") else ""
        lines.append(f"  {short(op['id'])}  {op['op']}{extra}  [{op['risk']}]  {op['reason']}")
    lines += _more(len(plan["ops"]), "--json lists every one" if args.report else f"all in {args.out}")
    if not args.report:
        _write(args.out, cast(Mapping[str, Any], plan), "ops")
        lines.append(f"plan written to {args.out}; review it, then `cairn maintain --apply {args.out}`")
    return Output(plan, "\n".join(lines))


def cmd_retention(cairn: Cairn, args) -> Output:
    if args.action == "apply":
        doc = cairn.apply_retention(_read(args.file, "plan")).to_dict()
        text = f"retired {doc['applied']} record(s), skipped {doc['skipped']} changed since the plan"
        if doc["event"]:
            text += f", in event {doc['event']} (undo with `cairn undo {doc['event']}`)"
        return Output(doc, text)
    plan = cairn.retention_plan(_read(args.file, "policies"))
    lines = [f"{len(plan['matches'])} of {plan['records']} record(s) match"]
    lines += [f"  {short(m['id'])}  {m['policy']}: {m['reason']}" for m in plan["matches"][:SHOWN]]
    lines += _more(len(plan["matches"]), f"all in {args.out}")
    _write(args.out, cast(Mapping[str, Any], plan), "matches")
    lines.append(f"plan written to {args.out}; review it, then `cairn retention apply {args.out}`")
    return Output(plan, "\n".join(lines))
