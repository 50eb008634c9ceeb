"""The writing tools (memory_remember, memory_correct, memory_relate, memory_feedback,
memory_pin) and the destructive ones (memory_forget, memory_undo).

Evidence written through MCP says where it came from. An agent is not the user:

* ``memory_remember`` records ``method: agent`` and the basis the call names — ``summary``
  (the agent's own conclusion, the default), ``tool_observation`` (read from a file, a
  command, a tool) or ``user_statement``. Only when the call says the user stated it
  (``basis: user_statement``) is the method ``manual``: the words are the user's own.
  ``manual_correction`` is not accepted: it would claim the strongest evidence.
* ``memory_correct`` is the one tool that writes ``manual_correction``; its description
  tells the agent to use it only on the user's explicit instruction, with the user's words.
  ``memory_feedback`` does not offer ``accurate``, which would protect a record at the same
  priority.
* Records, relations, forgets and undos are written with the actor ``agent``, so the
  history says who acted.

Each call is one engine operation: one transaction and one event, or nothing written.
"""

from __future__ import annotations

from .. import wire
from ..engine import Cairn
from ..model import Actor, Basis, Certainty, Kind, Method, Role, Verdict
from . import render
from .registry import DESTRUCTIVE, WRITES, Args, Reply, tool
from .schema import boolean, string, strings

# The bases an agent may claim for what it remembers (manual_correction is memory_correct's).
AGENT_BASES = (Basis.SUMMARY, Basis.USER_STATEMENT, Basis.TOOL_OBSERVATION)
# `accurate` lifts a record to the priority of a manual correction, which only the user may grant.
AGENT_VERDICTS = (Verdict.USEFUL, Verdict.UNHELPFUL, Verdict.INCORRECT)
RECORD_KINDS = tuple(k for k in Kind if k is not Kind.EPISODE)  # episodes come from `cairn ingest`

ID = "memory id, or a unique prefix of at least 6 characters"


def evidence_method(basis: str) -> Method:
    """``manual`` only when the user stated it; anything else the agent wrote is ``agent``."""
    return Method.MANUAL if basis == Basis.USER_STATEMENT else Method.AGENT


@tool(
    "memory_remember", WRITES, wire.RememberDoc, title="Remember a claim",
    description="Store one durable claim: a fact, a preference, a decision or the state of a project, in one short"
                " self-contained sentence (4-800 characters). Say where it comes from: basis user_statement only for"
                " what the user said themselves; tool_observation for what you read from a file or a tool; summary"
                " (default) for your own conclusion. If it replaces an older memory, name it in corrects (it was"
                " wrong) or supersedes (it changed). Identical text already stored is not stored twice.",
    content=string("the claim, one self-contained sentence (4-800 characters)", required=True, max_length=800),
    kind=string("what the claim is", required=True, enum=RECORD_KINDS),
    basis=string("where the claim comes from: summary (your own conclusion, default), tool_observation (read from a"
                 " tool or file), user_statement (the user said it)", enum=AGENT_BASES, default=Basis.SUMMARY.value),
    source=string("id of the message, file or tool call the claim comes from"),
    origin=string("project, repository or channel the claim belongs to (records deduplicate within one origin)"),
    aliases=strings("other words someone might search for (at most 8)"),
    certainty=string("how sure the source is", enum=Certainty),
    valid_from=string("when the claim started to hold in the world (ISO-8601)"),
    valid_to=string("when the claim stopped holding (ISO-8601); leave out if it still holds"),
    corrects=strings("ids of older memories this claim shows were wrong"),
    supersedes=strings("ids of older memories this claim replaces because things changed"),
)
def remember(cairn: Cairn, a: Args) -> Reply:
    relates = [(Role.CORRECTS, ref) for ref in a["corrects"]] + [(Role.SUPERSEDES, ref) for ref in a["supersedes"]]
    result = cairn.remember(
        a["content"], kind=a["kind"], origin=a["origin"] or "", basis=a["basis"], method=evidence_method(a["basis"]),
        source=a["source"], certainty=a["certainty"], valid_from=a["valid_from"], valid_to=a["valid_to"],
        aliases=a["aliases"], actor=Actor.AGENT, relates=relates or None,
    )
    m = result.memory
    doc = wire.remembered(m, result.event, deduplicated=result.deduplicated)
    if result.deduplicated:
        text = f"already stored as {m.id} ({m.status.value})" + (
            f"; relations declared in event {result.event.id}" if result.event else "; nothing written")
    else:
        text = f"remembered {m.id} ({m.kind.value}, {m.status.value}) in event {doc['event']}"
    return Reply(doc, text)


@tool(
    "memory_correct", WRITES, wire.CorrectDoc, title="Correct a memory (user's words)",
    description="Replace a stored memory's text with the user's literal correction. Use it ONLY when the user"
                " explicitly tells you a stored memory is wrong and says what is right; pass their words. It records"
                " the strongest evidence (manual_correction), which later claims cannot easily override. For a"
                " correction you inferred yourself, call memory_remember with corrects=[id] instead.",
    id=string(ID, required=True),
    text=string("the corrected claim, in the user's words (4-800 characters)", required=True, max_length=800),
)
def correct(cairn: Cairn, a: Args) -> Reply:
    result = cairn.correct(a["id"], a["text"])
    return Reply(wire.corrected(result.memory, result.event),
                 f"corrected {result.memory.id} (manual_correction) in event {result.event.id}")


@tool(
    "memory_relate", WRITES, wire.RelateDoc, title="Relate two memories",
    description="Declare how a newer memory relates to an older one: corrects (the older was wrong), supersedes (things"
                " changed), contradicts (they disagree; no side is chosen), qualifies (adds a condition). Recall then"
                " returns the newer one marked, instead of or beside the older.",
    from_id=string("the newer memory (id or unique prefix)", required=True),
    role=string("the relation", required=True, enum=Role),
    to_id=string("the older memory (id or unique prefix)", required=True),
)
def relate(cairn: Cairn, a: Args) -> Reply:
    doc = wire.related(cairn.relate(a["from_id"], a["role"], a["to_id"], actor=Actor.AGENT))
    r = doc["relation"]
    return Reply(doc, f"{r['from']} {r['role']} {r['to']} in event {doc['event']}")


@tool(
    "memory_feedback", WRITES, wire.FeedbackDoc, title="Give feedback on a memory",
    description="Record a verdict on a recalled memory: useful or unhelpful (was it worth recalling), or incorrect"
                " (it is wrong: it is quarantined). source is the receipt: the same source gives at most one verdict"
                " per memory, so a retried call is not counted twice. (accurate is not offered here: it would protect"
                " the memory as strongly as the user's own correction; the user gives it with `cairn feedback`.)",
    id=string(ID, required=True),
    verdict=string("the verdict", required=True, enum=AGENT_VERDICTS),
    source=string("what the verdict comes from: the recall's trace id, or the id of the user's message",
                  required=True),
)
def feedback(cairn: Cairn, a: Args) -> Reply:
    result = cairn.feedback(a["id"], a["verdict"], a["source"])
    doc = wire.feedback(applied=result.applied, reason=result.reason, event=result.event, quarantined=result.quarantined)
    text = f"{a['verdict']} applied in event {doc['event']}" if result.applied else f"not applied: {result.reason}"
    if result.quarantined:
        text += f"; quarantined {', '.join(result.quarantined)}"
    return Reply(doc, text)


@tool(
    "memory_pin", WRITES, wire.EventRefDoc, title="Pin or unpin a memory",
    description="Pin a memory the user wants kept: it never goes dormant and weaker claims cannot replace it."
                " pinned=false returns it to the ordinary layer.",
    id=string(ID, required=True),
    pinned=boolean("true to pin (default), false to unpin", default=True),
)
def pin(cairn: Cairn, a: Args) -> Reply:
    event = cairn.pin(a["id"]) if a["pinned"] else cairn.unpin(a["id"])
    doc = wire.event_ref(event)
    return Reply(doc, render.event("pinned" if a["pinned"] else "unpinned", doc, event.changes[0].id))


@tool(
    "memory_forget", DESTRUCTIVE, wire.EventRefDoc, title="Forget a memory",
    description="Mark a memory forgotten: recall stops returning it; history keeps it and memory_undo brings it back."
                " purge=true instead erases its text everywhere, irreversibly: only when the user explicitly asks"
                " for the text to be deleted (a secret, personal data).",
    id=string(ID, required=True),
    purge=boolean("erase the text everywhere (cannot be undone)"),
)
def forget(cairn: Cairn, a: Args) -> Reply:
    event = cairn.forget(a["id"], purge=a["purge"], actor=Actor.AGENT)
    doc = wire.event_ref(event)
    return Reply(doc, render.event("purged" if a["purge"] else "forgot", doc, event.changes[0].id))


@tool(
    "memory_undo", DESTRUCTIVE, wire.EventRefDoc, title="Undo an event",
    description="Undo one event (from memory_history or a write's reply) by appending a compensating event. Refused,"
                " with the reason, when a memory it touched has changed since.",
    event=string("event id or unique prefix", required=True),
)
def undo(cairn: Cairn, a: Args) -> Reply:
    event = cairn.undo(a["event"], actor=Actor.AGENT)
    doc = wire.event_ref(event)
    return Reply(doc, f"undid {event.data['undoes']} in event {event.id}")


@tool(
    "memory_report_use", WRITES, wire.UseReportDoc, title="Report what a recall was used for",
    description="After a memory_recall, report what you did with the memories it returned: used (you relied on"
                " them), unused (they did not help), wrong (they were incorrect). Give the recall's trace id and the"
                " ids. The report is joined to the recall and classified (stale, disputed, irrelevant-digest); it"
                " never changes ranking. Refused for an unknown or expired trace.",
    trace=string("the trace id memory_recall returned", required=True),
    verdict=string("what you did with them", required=True, enum=("used", "unused", "wrong")),
    ids=strings("ids of memories that recall returned", max_items=20),
)
def report_use(cairn: Cairn, a: Args) -> Reply:
    doc = cairn.report_use(a["trace"], a["verdict"], a["ids"]).to_dict()
    classes = ", ".join(f"{r['id'][:10]} {r['failure_class'] or '-'}" for r in doc["refs"])
    return Reply(doc, f"{doc['verdict']} reported on trace {doc['trace']}: {classes}")


@tool(
    "memory_reinforce", WRITES, wire.ReinforceDoc, title="Reinforce or correct a memory",
    description="Record how a memory fared: explicit_reinforcement only when the user directly confirmed it;"
                " implicit_success when it led to a successful tool or test outcome; explicit_correction when the"
                " user contradicted it. It feeds maintenance recommendations and the memory's confidence grounds.",
    id=string(ID, required=True),
    outcome=string("what happened", required=True,
                   enum=("explicit_reinforcement", "implicit_success", "explicit_correction")),
    session=string("the session the signal came from"),
    note=string("a short note (at most 500 characters)", max_length=500),
)
def reinforce(cairn: Cairn, a: Args) -> Reply:
    result = cairn.reinforce(a["id"], a["outcome"], session=a["session"], note=a["note"], source=a["session"])
    doc = result.to_dict()
    return Reply(doc, f"{a['outcome']} recorded on {a['id']}" if result.recorded else f"not recorded: {result.reason}")
