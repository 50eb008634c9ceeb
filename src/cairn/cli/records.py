"""CLI commands over single records and the log: remember, show, list, forget, pin,
unpin, alias, confirm, history, undo, export, import, status."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

from .. import wire
from ..engine import Cairn
from ..errors import InvalidInput, echo
from ..model import Basis, Certainty, Kind, Method, Role, Status
from .common import Output, Progress, add_command, one_line, one_of, positive_int, short, span, word

# remember's relation options: one --ROLE ID option per role, each with its help text.
RELATE_OPTIONS = {
    Role.CORRECTS: "this claim corrects the older record ID (it was wrong)",
    Role.SUPERSEDES: "this claim replaces the older record ID (it changed)",
    Role.CONTRADICTS: "this claim disagrees with record ID (no side is chosen)",
    Role.QUALIFIES: "this claim qualifies record ID",
}


def register(sub) -> None:
    p = add_command(sub, "remember", "store one claim", cmd_remember,
                    description="Store one claim. Secrets in the text are redacted before anything is written.")
    p.add_argument("text", help="the claim (4-800 characters)")
    p.add_argument("--kind", required=True, type=word, help=f"{one_of(Kind)} (any case)")
    p.add_argument("--origin", default="", help="provenance inside the space (project, channel, folder)")
    p.add_argument("--basis", default="user_statement", type=word,
                   help=f"evidence basis: {one_of(Basis)}")
    p.add_argument("--method", default="manual", type=word, help=f"evidence method: {one_of(Method)}")
    p.add_argument("--source", help="id of the source this claim comes from")
    p.add_argument("--at", help="evidence time (ISO-8601), not later than now; default now")
    p.add_argument("--certainty", type=word, help=f"caller-asserted certainty: {one_of(Certainty)}")
    p.add_argument("--valid-from", help="start of the valid-time interval (ISO-8601)")
    p.add_argument("--valid-to", help="end of the valid-time interval (ISO-8601)")
    p.add_argument("--expected-resolution-at", help="checkpoint time after which the claim should be re-confirmed")
    p.add_argument("--alias", action="append", default=[], help="a search term (repeatable, at most 8)")
    p.add_argument("--topic", action="append", default=[], help="a topic id of the space's vocabulary (repeatable)")
    p.add_argument("--entity", action="append", default=[], help="an entity id of the space's vocabulary (repeatable)")
    p.add_argument("--pin", action="store_true", help="pin: exempt from dormancy, protected from weaker replacement")
    p.add_argument("--replaces-similar", action="store_true",
                   help="supersede the current records this claim is similar to (same kind, origin, subject and"
                        " attribute), if the write policy lets this evidence replace them; else store it quarantined")
    for role, text in RELATE_OPTIONS.items():
        p.add_argument(f"--{role.value}", action="append", default=[], metavar="ID",
                       help=f"{text}; repeatable; written in the same event")

    p = add_command(sub, "show", "one record, its quality and relations", cmd_show)
    p.add_argument("id", help="memory id or unique prefix (≥6 characters)")

    p = add_command(sub, "list", "page through records", cmd_list)
    p.add_argument("--status", type=word, help=one_of(Status))
    p.add_argument("--kind", type=word, help=one_of(Kind))
    p.add_argument("--origin", help="only records of this origin")
    p.add_argument("--page", type=positive_int, default=1, help="page number (20 records a page); past the last: exit 1")

    p = add_command(sub, "forget", "mark a record forgotten (or erase it with --purge)", cmd_forget,
                    description="Mark a record forgotten; its content stays in history and undo brings it back.\n"
                                "--purge instead erases the content from the record, the full-text index and every\n"
                                "event snapshot. A purge cannot be undone.")
    p.add_argument("id", help="memory id or unique prefix")
    p.add_argument("--purge", action="store_true", help="erase the content everywhere (irreversible)")

    for name, text in (("pin", "pin a record (never dormant, protected)"), ("unpin", "return a pinned record to durable")):
        p = add_command(sub, name, text, cmd_pin if name == "pin" else cmd_unpin)
        p.add_argument("id", help="memory id or unique prefix")

    p = add_command(sub, "alias", "add or remove one alias (search term) of a record", cmd_alias,
                    description="Add or remove one alias of a record: a search term recall also matches (2-64\n"
                                "characters, at most 8 a record). One undoable event; no evidence clock moves.")
    p.add_argument("id", help="memory id or unique prefix")
    p.add_argument("action", choices=("add", "remove"), help="add | remove")
    p.add_argument("word", help="the alias")

    p = add_command(sub, "confirm", "say a record still holds (moves its confirmation clock)", cmd_confirm,
                    description="Say a record still holds, without pinning it: its confirmation clock moves to now,\n"
                                "so its freshness is renewed and a dormant record is offered again. The evidence\n"
                                "date (the replacement-authority gate) does not move and no event is written.\n"
                                "One --source confirms a record once. Refused for project states (they go stale\n"
                                "silently: remember the current state instead) and for records not current.\n"
                                "`feedback ID accurate` does not move this clock: it is a verdict on the text.")
    p.add_argument("id", help="memory id or unique prefix")
    p.add_argument("--source", help="who or what checked it (a confirmation from the same source counts once)")

    p = add_command(sub, "history", "events, newest first", cmd_history)
    p.add_argument("id", nargs="?", help="only events that touched this memory")
    p.add_argument("--limit", type=positive_int, default=20, help="at most this many events (default 20)")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="also show each changed record's text before and after (at most 200 characters each)")

    p = add_command(sub, "undo", "append a compensating event", cmd_undo,
                    description="Undo an event by appending a compensating one. Refused, with the reason,\n"
                                "when a record the event touched has changed since.")
    p.add_argument("event", help="event id or unique prefix")

    p = add_command(sub, "export", "write records, relations and events as JSONL", cmd_export)
    p.add_argument("file", nargs="?", help="output file (default: standard output)")

    p = add_command(sub, "import", "read a JSONL export (idempotent, all-or-nothing)", cmd_import)
    p.add_argument("file", help="a file written by `cairn export` ('-' for standard input)")

    add_command(sub, "status", "integrity report: schema, counts, malformed rows", cmd_status)


def cmd_remember(cairn: Cairn, args) -> Output:
    result = cairn.remember(
        args.text,
        kind=args.kind,
        origin=args.origin,
        basis=args.basis,
        method=args.method,
        source=args.source,
        at=args.at,
        certainty=args.certainty,
        valid_from=args.valid_from,
        valid_to=args.valid_to,
        expected_resolution_at=args.expected_resolution_at,
        aliases=args.alias,
        topics=args.topic,
        entities=args.entity,
        pin=args.pin,
        relates=[(role.value, ref) for role in RELATE_OPTIONS for ref in getattr(args, role.value)] or None,
        replaces_similar=args.replaces_similar,
    )
    m = result.memory
    doc = result.to_dict()
    if result.deduplicated and result.event:
        return Output(doc, f"already stored as {m.id} ({m.status.value}); relations declared in event {result.event.id}")
    if result.deduplicated:
        return Output(doc, f"already stored as {m.id} ({m.status.value}); nothing written")
    lines = [f"remembered {m.id} ({m.kind.value}, {m.status.value}) in event {doc['event']}"]
    if result.replaced:
        lines.append(f"  supersedes {', '.join(short(i) for i in result.replaced)}")
    if result.withheld:
        lines += [f"  withheld: {short(i)} stands ({why}); this claim is quarantined" for i, why in result.withheld]
        return Output(doc, "\n".join(lines))
    for old in ([] if result.replaced else result.similar):
        lines += [f"  similar to current {old.kind.value} {short(old.id)}: \"{one_line(old.content, 70)}\"",
                  f"  if this replaces it: cairn relate {short(m.id)} supersedes {short(old.id)}"
                  f"  (or `corrects` if it was wrong)"]
    return Output(doc, "\n".join(lines))


def cmd_show(cairn: Cairn, args) -> Output:
    shown = cairn.show(args.id)
    doc = wire.shown(shown.memory, shown.quality, shown.relations, shown.confidence)
    m, q = doc["memory"], doc["quality"]
    lines = [
        f"{m['id']}  {m['kind']}  {m['status']}  {m['layer']}  revision {m['revision']}",
        f"  {m['content'] if m['purged_at'] is None else '(purged)'}",
        f"  origin: {m['origin'] or '-'}   aliases: {', '.join(m['aliases']) or '-'}",
        f"  evidence: {m['evidence']['basis']}/{m['evidence']['method']} source {m['evidence']['source_id'] or '-'}"
        f" at {m['evidence']['at'] or '-'}",
        f"  freshness {q['freshness']:.3f}  aging {q['aging']}  dormant {q['dormant']}  confirmed {q['confirmed_at']}"
        f"  priority {q['priority']}",
    ]
    if m["valid_from"] or m["valid_to"]:
        lines.append(f"  {span(m['valid_from'], m['valid_to'])}")
    fb = m["feedback"]
    if fb["utility"] or fb["accuracy"]:
        utility, accuracy = fb["utility"], fb["accuracy"]
        verdicts = (utility["verdict"] if utility else "-", accuracy["verdict"] if accuracy else "-")
        lines.append(f"  feedback: utility {verdicts[0]}, accuracy {verdicts[1]}")
    for r in doc["relations"]:
        lines.append(f"  relation: {r['from']} {r['role']} {r['to']} ({r['status']})")
    return Output(doc, "\n".join(lines))


def cmd_list(cairn: Cairn, args) -> Output:
    page = cairn.list(status=args.status, kind=args.kind, origin=args.origin, page=args.page)
    doc = page.to_dict()
    lines = [
        f"{short(m.id)}  {m.kind.value:<13} {m.status.value:<11} {one_line(m.content, 70) if m.purged_at is None else '(purged)'}"
        for m in page.memories
    ]
    lines.append(f"page {page.page}/{page.pages} ({_count(page.total, 'record', 'records')})")
    return Output(doc, "\n".join(lines))


def cmd_forget(cairn: Cairn, args) -> Output:
    event = cairn.forget(args.id, purge=args.purge)
    return Output(wire.event_ref(event), f"{'purged' if args.purge else 'forgot'} {event.changes[0].id} in event {event.id}")


def cmd_pin(cairn: Cairn, args) -> Output:
    event = cairn.pin(args.id)
    return Output(wire.event_ref(event), f"pinned {event.changes[0].id} in event {event.id}")


def cmd_unpin(cairn: Cairn, args) -> Output:
    event = cairn.unpin(args.id)
    return Output(wire.event_ref(event), f"unpinned {event.changes[0].id} in event {event.id}")


def cmd_alias(cairn: Cairn, args) -> Output:
    event = cairn.alias(args.id, args.action, args.word)
    done = "added" if args.action == "add" else "removed"
    return Output(wire.event_ref(event), f"{done} alias {event.data['alias']!r} of {event.changes[0].id} in event {event.id}")


def cmd_confirm(cairn: Cairn, args) -> Output:
    result = cairn.confirm(args.id, source=args.source)
    doc = result.to_dict()
    if result.moved:
        return Output(doc, f"confirmed {result.id}: its freshness runs from {doc['confirmed_at']}")
    return Output(doc, f"{result.id} unchanged: {result.reason}")


def cmd_history(cairn: Cairn, args) -> Output:
    events = cairn.history(args.id, limit=args.limit)
    if args.verbose:
        verbose = wire.verbose_history(events)
        lines = []
        for e in verbose["events"]:
            lines.append(f"{e['id']}  {e['at']}  {e['actor']:<7} {e['reason']}  [{', '.join(short(i) for i in e['changed'])}]")
            for t in e["texts"]:
                if t["before"] is not None:
                    lines.append(f"    {short(t['id'])} before: \"{t['before']}\"")
                lines.append(f"    {short(t['id'])} after:  \"{t['after']}\"")
        return Output(verbose, "\n".join(lines) or "no events")
    doc = wire.history(events)
    lines = [f"{e['id']}  {e['at']}  {e['actor']:<7} {e['reason']}  [{', '.join(short(i) for i in e['changed'])}]"
             for e in doc["events"]]
    return Output(doc, "\n".join(lines) or "no events")


def cmd_undo(cairn: Cairn, args) -> Output:
    event = cairn.undo(args.event)
    return Output(wire.event_ref(event), f"undid {event.data['undoes']} in event {event.id}")


class _Counted:
    """A text stream that ticks a progress line per line written."""

    def __init__(self, out, progress: Progress) -> None:
        self.out, self.progress = out, progress

    def write(self, text: str) -> int:
        self.progress.tick(text.count("\n"))
        return self.out.write(text)

    def flush(self) -> None:
        self.out.flush()


def _counted(lines, progress: Progress):
    for line in lines:
        progress.tick()
        yield line


def cmd_export(cairn: Cairn, args) -> Output:
    progress = Progress("export")
    if args.file:
        target = Path(args.file)
        try:
            if target.is_dir():
                raise InvalidInput("export file", f"{echo(args.file)} is a folder; give a file name")
            if not target.parent.is_dir():
                raise InvalidInput("export file", f"the folder {echo(str(target.parent))} does not exist")
        except OSError as err:  # a name too long for the file system, a loop of links, ...
            raise InvalidInput("export file", f"{echo(args.file)}: {err.strerror}") from None
        tmp = target.with_name(target.name + ".partial")
        try:
            with open(tmp, "w", encoding="utf-8") as out:
                counts = wire.exported(cairn.export(_Counted(out, progress)))  # type: ignore[arg-type]
            tmp.replace(target)
        except OSError as err:
            tmp.unlink(missing_ok=True)
            raise InvalidInput("export file", f"{echo(args.file)}: {err.strerror}") from None
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        progress.done()
        summary = f"exported {counts['records']} records, {counts['relations']} relations, {counts['events']} events"
        return Output(counts, f"{summary} to {target}")
    if args.json:
        # One object on stdout: the counts and every exported line as an object, in order
        # (`cairn import` reads this document as it reads the JSONL).
        buffer = io.StringIO()
        counts = wire.exported(cairn.export(buffer))
        return Output({**counts, "lines": [json.loads(line) for line in buffer.getvalue().splitlines()]}, "")
    doc = wire.exported(cairn.export(_Counted(sys.stdout, progress)))  # type: ignore[arg-type]
    progress.done()
    return Output(doc, "")


def cmd_import(cairn: Cairn, args) -> Output:
    progress = Progress("import (reading)")
    if args.file == "-":
        counts = wire.imported(cairn.import_(_counted(sys.stdin, progress)))
    else:
        try:
            with open(args.file, encoding="utf-8") as handle:
                counts = wire.imported(cairn.import_(_counted(handle, progress)))
        except OSError as err:
            raise InvalidInput("import file", f"{args.file}: {err.strerror}") from None
        except UnicodeDecodeError:
            raise InvalidInput("import file", f"{args.file} is not UTF-8 text") from None
    progress.done()
    return Output(counts, f"imported {counts['records']} records, {counts['relations']} relations, {counts['events']} events"
                          f" ({counts['skipped']} already present)")


def cmd_status(cairn: Cairn, args) -> Output:
    doc = cairn.status()
    memories = _count(doc["memories"], "memory", "memories")
    by_status = ", ".join(f"{n} {s}" for s, n in doc["by_status"].items() if n)
    if by_status:
        memories += f" ({by_status})"
    counts = [memories, _count(doc["events"], "event", "events"), _count(doc["relations"], "relation", "relations")]
    lines = [
        f"database {doc['path']} (schema {doc['schema']}, integrity {doc['integrity']})",
        f"space {doc['space']}: {'; '.join(counts)}",
    ]
    if doc["problems"]:
        lines.append(f"{len(doc['problems'])} malformed rows (skipped by reads):")
        lines += [f"  {p['table']} {p['id']}: {p['problem']}" for p in doc["problems"]]
    else:
        lines.append("no problems found")
    return Output(doc, "\n".join(lines))


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"
