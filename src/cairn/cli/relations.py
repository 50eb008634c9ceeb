"""CLI commands of the relations group: ``relate FROM ROLE TO`` and ``timeline QUERY``."""

from __future__ import annotations

from .. import wire
from ..engine import Cairn
from ..model import Role
from .common import Output, add_command, one_line, one_of, positive_int, short, span, word


def register(sub) -> None:
    """Add this group's subcommands to the `cairn` parser."""
    roles = one_of(Role)
    p = add_command(
        sub, "relate", "declare a relation from a newer record to an older one", cmd_relate,
        description="Declare FROM ROLE TO, from the newer record to the older one, as one undoable event.\n"
                    f"ROLE: {roles}.\n"
                    "corrects/supersedes: recall returns FROM instead of TO, marked `corrected`.\n"
                    "contradicts: recall returns the pair marked `contradicted`, choosing no side.\n"
                    "Refused (exit 1): self-reference, a corrects/supersedes cycle, a record of another\n"
                    "space, a purged record, a relation already declared.",
    )
    p.add_argument("from_id", metavar="FROM", help="the newer record (id or unique prefix)")
    p.add_argument("role", metavar="ROLE", type=word, help=f"{roles} (any case)")
    p.add_argument("to_id", metavar="TO", help="the older record (id or unique prefix)")

    p = add_command(
        sub, "timeline", "the successive states of one subject, oldest first", cmd_timeline,
        description="The records holding every word of QUERY, with the records related to them, in time\n"
                    "order (valid_from when asserted, else when recorded), each with its validity,\n"
                    "whether it holds now and the texts it had before a correction (the newest 5;\n"
                    "`history ID --verbose` shows all), followed by the relations between them.\n"
                    "Writes nothing.",
    )
    p.add_argument("query", help="words naming the subject")
    p.add_argument("--limit", type=positive_int, default=50, help="at most this many states (default 50, max 200)")


TEXTS_PER_STATE = 5  # earlier texts shown per state (the newest); `history ID --verbose` has them all


def cmd_relate(cairn: Cairn, args) -> Output:
    doc = wire.related(cairn.relate(args.from_id, args.role, args.to_id))
    r = doc["relation"]
    return Output(doc, f"{short(r['from'])} {r['role']} {short(r['to'])} in event {doc['event']}")


def cmd_timeline(cairn: Cairn, args) -> Output:
    found = cairn.timeline(args.query, limit=args.limit)
    doc = found.to_dict()
    lines = []
    for s in doc["states"]:
        # A correction keeps the record's id: its earlier texts come from the event log.
        changes = cairn.text_changes(s["id"], limit=TEXTS_PER_STATE)
        if changes:
            s["texts"] = [c.to_dict() for c in changes]
        state = "current" if s["current"] else ("replaced by " + ", ".join(map(short, s["replaced_by"])) if s["replaced_by"]
                                                else ", ".join(s["markers"]) or s["status"])
        lines.append(f"{s['recorded_at']}  {short(s['id'])}  [{span(s['valid_from'], s['valid_to'])}]  {state}")
        for c in s.get("texts", []):
            lines.append(f"    was ({c['reason']} {c['at']}): {one_line(c['before'], 80)}")
        lines.append(f"    {one_line(s['content'], 90)}")
    lines += [f"  relation: {short(r['from'])} {r['role']} {short(r['to'])}" for r in doc["relations"]]
    return Output(doc, "\n".join(lines) or f"no records about {args.query!r}")
