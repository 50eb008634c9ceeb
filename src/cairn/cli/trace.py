"""CLI command ``trace ID``: read back the stored trace of one recall.

It prints :class:`cairn.wire.TraceDoc` as stored (``--json``), or a short listing: the
request, the query features, and one line per candidate with its reason, raw relevance,
rank score and the query phrase its record matched. Read-only; a trace holds
ids, numbers and query features, never a memory body.
"""

from __future__ import annotations

from ..engine import Cairn
from .common import Output, add_command, short


def register(sub) -> None:
    """Add ``trace`` to the `cairn` parser."""
    p = add_command(
        sub, "trace", "read back the stored trace of one recall (no memory bodies)", cmd_trace,
        description="Show the trace a recall or search wrote (its id is the `trace` of `recall --json`): the\n"
                    "query's features (terms of the redacted query, never its text), the parameters, the selected\n"
                    "ids, and every candidate with its reason, raw relevance, rank score and the query phrase\n"
                    "its record matched. No memory bodies. Writes nothing.\n"
                    "Traces are kept 14 days; an unknown or pruned id exits 1.",
    )
    p.add_argument("trace_id", metavar="ID", help="the trace id (24 hexadecimal characters)")


def cmd_trace(cairn: Cairn, args) -> Output:
    doc = cairn.read_trace(args.trace_id)
    query = doc["query"]
    lines = [
        f"trace {doc['id']} at {doc['at']}  lane {doc['lane']}  limit {doc['limit']}  budget {doc['budget']}",
        f"  features: {' '.join(query.get('features', [])) or '-'}",
        f"  candidates: {doc['candidates']}  selected: {', '.join(map(short, doc['selected'])) or '-'}",
    ]
    for s in doc["scores"]:
        rank = "-" if s["rank_score"] is None else f"{s['rank_score']:.4f}"
        span = f"  phrase {s['span']!r}" if "span" in s else ""
        lines.append(f"  {short(s['id'])}  {s['reason']:<22} raw {s['raw']:.4f}  rank {rank}{span}")
    if doc["note"]:
        lines.append(f"  note: {doc['note']}")
    return Output(doc, "\n".join(lines))
