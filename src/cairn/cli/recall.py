"""CLI commands of the recall group: recall, search, explain.

They print the engine's documents as they are: a recall or search is a
:class:`cairn.wire.RecallDoc`, an explain a :class:`cairn.wire.ExplainDoc`.
"""

from __future__ import annotations

import argparse

from .. import wire
from ..engine import Cairn
from ..engine.recalling import LANES
from .common import Output, add_command, positive_int, short


def register(sub) -> None:
    """Add recall, search and explain to the `cairn` parser."""
    for name in COMMANDS:
        register_one(sub, name)


# The commands of this group, in help order.
COMMANDS = ("recall", "search", "explain")


def register_one(sub, name: str) -> None:
    """Add the command ``name`` alone: a process that runs it parses no other (cairn.cli.build_parser)."""
    if name == "recall":
        p = add_command(
            sub, "recall", "the few memories that matter for a query, as a bounded digest", cmd_recall,
            description="Recall the memories relevant to QUERY: at most --limit claims within --budget UTF-8 bytes,\n"
                        "each labelled with kind, status, evidence and markers. Relevance first; quality only\n"
                        "re-orders relevant matches. A query without a topic (\"ok\", \"thanks\") returns nothing.\n"
                        "Writes nothing but a trace (skip it with --no-trace).",
        )
        _common(p, limit=3, budget=2048, dormant=True, trace=True)
        p.add_argument("--topic", help="a topic hint (a vocabulary id or alias); an unknown one warns and the query runs")
        p.add_argument("--include-retired", action="store_true", help="also offer records a retention policy retired")
    elif name == "search":
        p = add_command(
            sub, "search", "explicit lookup: like recall, dormant records included, up to 10", cmd_search,
            description="Look QUERY up explicitly: like recall, but dormant records are included and up to 10 results\n"
                        "are returned (default budget 8192 bytes). Records a retention policy retired come back here.",
        )
        _common(p, limit=10, budget=8192, dormant=False, trace=True)
    elif name == "explain":
        p = add_command(
            sub, "explain", "every stage's numbers for a query (no memory bodies, at most 8 KB)", cmd_explain,
            description="Show, for QUERY, every candidate with its raw relevance, each factor, its rank score and the\n"
                        "reason it was selected, excluded or rejected. No memory bodies; at most 8 KB. Writes nothing.",
        )
        _common(p, limit=3, budget=2048, dormant=True, trace=False)
    else:
        raise ValueError(f"not a command of the recall group: {name!r}")


def _common(p: argparse.ArgumentParser, *, limit: int, budget: int, dormant: bool, trace: bool) -> None:
    p.add_argument("query", help="the topic to recall; a longer text (a whole prompt, up to 64 KB) is read"
                                 " for its last 512 characters")
    p.add_argument("--limit", type=positive_int, default=limit, help=f"at most this many claims (default {limit})")
    p.add_argument("--budget", type=int, default=budget, help=f"digest size in UTF-8 bytes (default {budget})")
    # LANES is read from the lane registry only when --lane is given or help is shown.
    p.add_argument("--lane", default=None, choices=LANES, metavar="LANE",
                   help="where candidates come from, one of: %(choices)s. claims (the default without the semantic"
                        " extra): remembered claims; episodes: verbatim turns (gates reported, not applied); all: both,"
                        " interleaved claim first; semantic, semantic-episodes: nearest by meaning; hybrid (the default"
                        " with the semantic extra), hybrid-episodes: lexical and semantic fused (see docs/semantic.md);"
                        " any other: a lane from an installed plug-in")
    p.add_argument("--as-of", help="what held at this valid time (ISO-8601)")
    p.add_argument("--known-at", help="what Cairn held at this record time (ISO-8601)")
    p.add_argument("--origin", help="only records of this origin (project, channel, folder)")
    p.add_argument("--prefer-origin", metavar="ORIGIN",
                   help="put this origin's relevant records first, without leaving other origins out")
    p.add_argument("--include-history", action="store_true",
                   help="let a superseded decision follow its successor as historical rationale")
    if dormant:
        p.add_argument("--include-dormant", action="store_true",
                       help="rank every dormant (old, unconfirmed) match beside current ones, labelled dormant; without"
                            " it only those answering as well as the current results come back, or when nothing"
                            " current answers")
        p.add_argument("--inject", action="store_true",
                       help="recall as a host injecting memories unprompted: dormant records and conversation turns"
                            " never come back in place of claims (the note counts them)")
    if trace:
        p.add_argument("--no-trace", action="store_true", help="do not write a trace of this recall")


def _options(args) -> dict:
    return {
        "limit": args.limit,
        "budget": args.budget,
        "lane": args.lane,
        "include_history": args.include_history,
        "as_of": args.as_of,
        "known_at": args.known_at,
        "origin": args.origin,
        "prefer_origin": args.prefer_origin,
    }


def cmd_recall(cairn: Cairn, args) -> Output:
    recalled = cairn.recall(args.query, include_dormant=args.include_dormant, inject=args.inject, trace=not args.no_trace,
                            include_retired=args.include_retired, **_options(args))
    output = _render(recalled)
    if args.topic is not None:
        _topic_hint(cairn, args.topic, recalled, output)
    return output


def _topic_hint(cairn: Cairn, topic: str, recalled, output: Output) -> None:
    """Report how a --topic hint was understood: an unknown hint is a warning on stderr
    (and in the document), never a refusal; a known one names the results carrying it."""
    hint = cairn.label_hint(topic)
    carried = [r.id for r in recalled.results if hint.label is not None and hint.label in cairn.get(r.id).topics]
    doc = dict(output.doc)
    doc["topic"] = wire.TopicHintDoc(given=hint.given, label=hint.label, how=hint.how, carried_by=carried)
    if hint.warning:
        doc["warnings"] = [*doc.get("warnings", []), hint.warning]
        output.stderr.append(f"cairn: warning: {hint.warning}")
    else:
        output.text += f"\n(topic {hint.label}: carried by {len(carried)} of {len(recalled.results)} results)"
    output.doc = doc


def cmd_search(cairn: Cairn, args) -> Output:
    recalled = cairn.search(args.query, trace=not args.no_trace, **_options(args))
    return _render(recalled)


def _render(recalled) -> Output:
    doc = recalled.to_dict()
    if recalled.digest:
        text = recalled.digest + (f"\n({recalled.note})" if recalled.note else "")
    else:
        text = recalled.note or "nothing relevant"
    if recalled.trace:
        text += f"\n(trace {short(recalled.trace)})"
    return Output(doc, text)


def cmd_explain(cairn: Cairn, args) -> Output:
    doc = cairn.explain(args.query, include_dormant=args.include_dormant, inject=args.inject, **_options(args))
    q = doc["query"]
    lines = [
        f"query features: {', '.join(q['features']) or '-'}"
        + (f"   literals: {', '.join(q['literals'])}" if q["literals"] else "")
        + (f"   subject: {q['subject']}  attributes: {', '.join(q['attributes'])}" if q["subject"] and q["attributes"] else ""),
        f"lane {q['lane']}, limit {q['limit']}, budget {q['budget']}" + (f"; {doc['note']}" if doc["note"] else ""),
    ]
    for c in doc["candidates"]:
        f = c["factors"]
        numbers = f"raw {c['raw']:.3f}"
        if c["rank_score"] is not None:
            numbers += f"  rank {c['rank_score']:.3f}  fresh {f.get('freshness', 0):.2f}  prio {f.get('priority', 0)}"
        if "coverage" in f:
            numbers += f"  cov {f['coverage']:.2f}"
        if "phrase" in f:
            numbers += f"  phrase \"{f['phrase']['span']}\" +{f['phrase']['bonus']:.2f}"
        if "gate_reported" in f:
            numbers += f"  gate (reported, not applied): {f['gate_reported']}"
        lines.append(f"{short(c['id'])}  {c['reason']:<22} {numbers}")
    if doc["omitted"]:
        lines.append(f"({doc['omitted']} more candidates omitted to stay within 8 KB)")
    return Output(doc, "\n".join(lines))
