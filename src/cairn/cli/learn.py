"""CLI commands of the learn group: learn, apply, candidates, correct, feedback, reinforce."""

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


LEARN_HELP = """\
Learn from a conversation transcript. The turns not yet stored in the origin become
episodes (idempotent per turn id: re-running adds nothing, a grown file adds only its new
turns); the user's explicit statements in them (preferences, decisions, facts about their
work, "remember that ...", corrections) become claims, applied as one consolidation batch
through the write policy. Assistant turns and tool results never become claims; a
malformed line is reported with its line number and skipped.

Formats (default auto):
  claude-code  a Claude Code session transcript (JSONL: type, uuid, timestamp, message)
  openai       a JSON list of {"role", "content"} messages, or {"messages": [...]}
  jsonl        Cairn's own {"id", "speaker" or "role", "text", "time"} lines

Extractors: rules (the default, no model), model (an OpenAI-compatible endpoint:
--model-url/--model or CAIRN_MODEL_URL/CAIRN_MODEL; the API key is read from the
environment variable named by --model-key-env, default CAIRN_MODEL_KEY, and never
stored), or the name of an installed `cairn.extractors` plug-in."""


def register(sub) -> None:
    p = add_command(sub, "learn", "learn episodes and explicit statements from a transcript", cmd_learn,
                    description=LEARN_HELP)
    p.add_argument("source", help="the transcript file")
    p.add_argument("--format", choices=("auto", "claude-code", "openai", "jsonl"), default="auto",
                   help="transcript format (default: auto)")
    p.add_argument("--extractor", default="rules", help="rules (default), model, or an installed extractor's name")
    p.add_argument("--origin", help="origin of the episodes and claims (default: the session id, else the file name)")
    p.add_argument("--dry-run", action="store_true", help="read and extract, print the plan, write nothing")
    p.add_argument("--archive", action="store_true",
                   help="first preserve the transcript byte for byte (`cairn archive`); each episode then links to "
                        "its raw line (`cairn archive show - --around EPISODE`)")
    p.add_argument("--model-url", help="model extractor: the endpoint's base URL (e.g. http://127.0.0.1:11434/v1)")
    p.add_argument("--model", help="model extractor: the model name")
    p.add_argument("--model-key-env", help="model extractor: the environment variable holding the API key")
    p.add_argument("--model-timeout", type=float, help="model extractor: seconds per request (default 30)")

    p = add_command(sub, "reinforce", "record a reinforcement event on a record", cmd_reinforce,
                    description="Record how a memory fared: explicit_reinforcement (+1.0, the user confirmed it),\n"
                                "implicit_success (+0.2), explicit_correction (-1.0, the user contradicted it), or\n"
                                "neutral_exposure (0; recorded only with --neutral, once per session). The event\n"
                                "feeds maintenance; it changes no confidence or ranking by itself.")
    p.add_argument("id", help="memory id or unique prefix")
    p.add_argument("outcome", nargs="?", help="the outcome, as --outcome gives it (either form, not both)")
    p.add_argument("--outcome", dest="outcome_option", metavar="OUTCOME",
                   help="explicit_reinforcement | implicit_success | explicit_correction | neutral_exposure")
    p.add_argument("--session", help="the session the signal came from")
    p.add_argument("--note", help="a short note")
    p.add_argument("--neutral", action="store_true", help="record neutral_exposure (off by default)")

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


def cmd_learn(cairn: Cairn, args) -> Output:
    settings = {k: v for k, v in (("url", args.model_url), ("model", args.model), ("key_env", args.model_key_env),
                                  ("timeout", args.model_timeout)) if v is not None}
    archived = None
    if args.archive:
        if args.dry_run:
            raise InvalidInput("--archive", "a dry run writes nothing, so it archives nothing")
        added, result = cairn.learn_archived(args.source, format=args.format, extractor=args.extractor,
                                             origin=args.origin, model_settings=settings or None)
        archived = added.entry.source_id
    else:
        result = cairn.learn(args.source, format=args.format, extractor=args.extractor, origin=args.origin,
                             dry_run=args.dry_run, model_settings=settings or None)
    doc = result.to_dict()
    c = result.counts
    head = "would learn" if result.dry_run else "learned"
    lines = [f"{head} from {args.source} ({result.format}, extractor {result.extractor}) into {result.origin}",
             f"  episodes {c['episodes']} added, {c['skipped_turns']} turns already present",
             "  claims " + ", ".join(f"{k} {c[k]}" for k in ("added", "replaced", "withheld", "conflicted", "confirmed",
                                                            "unchanged")),
             f"  corrections {c['corrections']}, reinforcement events {c['reinforcements']}"]
    if result.dry_run:
        lines += [f"  claim {i}: {claim.kind.value} {one_line(claim.content, 70)}"
                  + (f" (replaces {claim.replaces})" if claim.replaces else "") for i, claim in enumerate(result.claims)]
    stderr = [f"cairn: skipped {p}" for p in result.problems] + [f"cairn: rejected {r}" for r in result.rejected]
    if archived is not None:
        lines[0] += f"; archived as {archived}"
        return Output({**dict(doc), "archive": archived}, "\n".join(lines), stderr=stderr)
    return Output(doc, "\n".join(lines), stderr=stderr)


def cmd_reinforce(cairn: Cairn, args) -> Output:
    if args.outcome and args.outcome_option and args.outcome != args.outcome_option:
        raise InvalidInput("outcome", f"given twice, as {args.outcome!r} and --outcome {args.outcome_option!r}")
    outcome = args.outcome_option or args.outcome
    if not outcome:
        raise InvalidInput("outcome", "give --outcome explicit_reinforcement | implicit_success | explicit_correction"
                                      " | neutral_exposure")
    result = cairn.reinforce(args.id, outcome, session=args.session, note=args.note, neutral=args.neutral)
    doc = result.to_dict()
    text = f"{outcome} recorded in event {doc['event']}" if result.recorded else f"not recorded: {result.reason}"
    return Output(doc, text)
