"""CLI commands of the learn group: apply, candidates, correct, feedback."""

from __future__ import annotations

import json
import sys

from .. import wire
from ..engine import Cairn
from ..errors import InvalidInput
from ..model import Verdict
from .common import Output, add_command, one_line, one_of, short

BATCH_HELP = """\
Apply one consolidation batch: a JSON file (or '-' for standard input) of the form

  {"source": {"id": "...", "text": "...", "kind": "summary|conversation|progress|manual",
              "basis": "...", "method": "...", "at": "ISO-8601", "origin": "..."},
   "claims": [{"kind": "fact", "content": "...", "replaces": "ID", "aliases": ["..."]}]}

Evidence comes from the source, never from the claims. `replaces` may only name one of
the records the source mentions (see `cairn candidates FILE`). A weaker replacement is
withheld: the old record stands and the new variant is stored as conflicted. The whole
batch is one transaction and one event; a bad batch writes nothing."""


def register(sub) -> None:
    p = add_command(sub, "apply", "apply one consolidation batch", cmd_apply, description=BATCH_HELP)
    p.add_argument("file", help="batch file (JSON), '-' for standard input")

    p = add_command(sub, "candidates", "list the records a batch's source may replace (read-only)", cmd_candidates,
                    description="Show the candidate records a batch's source mentions: the only ids its claims may\n"
                                "name in `replaces` (same origin, active or dormant, at most the 32 most recent).")
    p.add_argument("file", help="batch file (JSON), '-' for standard input; only its source is read")

    p = add_command(sub, "correct", "literal manual correction of a record", cmd_correct,
                    description="Replace a record's text with your literal correction (manual_correction/manual\n"
                                "evidence, the strongest). Feedback is cleared, aliases are kept (unless\n"
                                "--drop-aliases); undo restores the exact prior record.")
    p.add_argument("id", help="memory id or unique prefix (≥6 characters)")
    p.add_argument("text", help="the corrected claim")
    p.add_argument("--drop-aliases", action="store_true", help="also clear the record's aliases")

    p = add_command(sub, "feedback", "record an explicit verdict on a record", cmd_feedback,
                    description="Record a verdict: useful | unhelpful (utility) or accurate | incorrect (accuracy).\n"
                                "`incorrect` quarantines the record and its exact duplicates in its origin.\n"
                                "A verdict from the same --source on the same record is applied at most once.")
    p.add_argument("id", help="memory id or unique prefix")
    p.add_argument("verdict", type=str.lower, help=f"{one_of(Verdict)} (any case)")
    p.add_argument("--source", help="id of the act this verdict comes from (replay-safe receipt key)")


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError as err:
        raise InvalidInput("batch file", f"{path}: {err.strerror}") from None
    except UnicodeDecodeError:
        raise InvalidInput("batch file", f"{path} is not UTF-8 text") from None


def cmd_apply(cairn: Cairn, args) -> Output:
    result = cairn.apply(_read(args.file))
    doc = wire.applied(result.event, source=result.source, counts=result.counts, claims=result.outcomes,
                       candidates=result.mentioned)
    lines = [f"applied source {result.source} in event {doc['event'] or '(none: no record changed)'}",
             "  " + ", ".join(f"{k} {result.counts[k]}" for k in wire.APPLY_COUNTS)]
    lines += [f"  claim {o.index}: {o.outcome} {short(o.id)}" + (f" ({o.reason})" if o.reason else "") for o in result.outcomes]
    return Output(doc, "\n".join(lines))


def cmd_candidates(cairn: Cairn, args) -> Output:
    try:
        doc = json.loads(_read(args.file))
    except ValueError as err:
        raise InvalidInput("batch", f"not JSON ({err})") from None
    if not isinstance(doc, dict):
        raise InvalidInput("batch", "must be a JSON object")
    found = cairn.mentioned_by(doc.get("source"))
    lines = [f"{short(m.id)}  {m.kind.value:<13} {one_line(m.content, 70)}" for m in found]
    return Output(wire.mentioned_records(found), "\n".join(lines) or "no candidates")


def cmd_correct(cairn: Cairn, args) -> Output:
    result = cairn.correct(args.id, args.text, drop_aliases=args.drop_aliases)
    return Output(wire.corrected(result.memory, result.event),
                  f"corrected {result.memory.id} (manual_correction) in event {result.event.id}")


def cmd_feedback(cairn: Cairn, args) -> Output:
    result = cairn.feedback(args.id, args.verdict, source=args.source)
    doc = wire.feedback(applied=result.applied, reason=result.reason, event=result.event, quarantined=result.quarantined)
    text = f"{args.verdict} applied in event {doc['event']}" if result.applied else f"not applied: {result.reason}"
    if result.quarantined:
        text += f"; quarantined {', '.join(short(i) for i in result.quarantined)}"
    return Output(doc, text)
