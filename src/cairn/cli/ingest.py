"""CLI command ``ingest``: store a conversation's turns as verbatim episodes."""

from __future__ import annotations

from .. import wire
from ..engine import Cairn
from .common import Output, add_command, short

_DESCRIPTION = """\
Store each turn of a conversation as one verbatim `episode` record (transcript evidence,
the turn's id as source id, the turn's time as evidence time). Episodes are never
replaced and never deduplicated across turns. Re-ingesting the same file is idempotent:
turns whose id already has an episode in that origin are skipped. All or nothing: a bad
line refuses the whole ingest and nothing is written.

Formats:
  jsonl   one object a line: {"id", "speaker" or "role", "text", "time" (ISO-8601)}
  locomo  a LoCoMo conversation object, or the list file (every conversation, each in
          its own origin, unless --sample picks one)
"""


def register(sub) -> None:
    p = add_command(sub, "ingest", "store a conversation's turns as episodes", cmd_ingest, description=_DESCRIPTION)
    p.add_argument("file", help="the conversation file")
    p.add_argument("--format", choices=("jsonl", "locomo"), default="jsonl", help="input format (default: jsonl)")
    p.add_argument("--origin", help="origin of the episodes (default: the conversation's name or the file name)")
    p.add_argument("--sample", help="LoCoMo only: ingest one conversation, by sample_id or index")
    p.add_argument("--archive", action="store_true",
                   help="JSONL only: first preserve the file byte for byte (`cairn archive`); each episode then "
                        "links to its raw line (`cairn archive show - --around EPISODE`)")


def cmd_ingest(cairn: Cairn, args) -> Output:
    archived = None
    if args.archive:
        added, result = cairn.ingest_archived(args.file, format=args.format, origin=args.origin, sample=args.sample)
        archived = added.entry
    else:
        result = cairn.ingest(args.file, format=args.format, origin=args.origin, sample=args.sample)
    doc = wire.ingested(source=result.source, episodes=result.episodes, skipped=result.skipped,
                        origins=result.origins, event=result.event)
    text = f"ingested {result.episodes} episodes into {', '.join(result.origins)}"
    if result.skipped:
        text += f" ({result.skipped} turns already present, skipped)"
    if result.event:
        text += f"; event {short(result.event.id)}"
    if archived is not None:
        text += f"; archived as {archived.source_id}"
        return Output({**dict(doc), "archive": archived.source_id}, text)
    return Output(doc, text)
