"""Consolidation: which records a source may touch, and what a batch does to them.

Pure functions over values; the engine reads the store, calls these, and applies the plan
in one transaction with one event.

**Mentioned records** (:func:`select_mentioned`; ``cairn candidates`` lists them): the
records a source *mentions*, chosen by the host, never by the proposer. A record qualifies
when it is in the source's origin, active (provisional or confirmed; dormancy is a
read-time property, so dormant records qualify too), not an episode, and the source text
contains enough of its content terms: containment ``|record ∩ source| / |record| >= 0.5``
with at least two shared terms (or all of them for a one-term record). Terms come from
:func:`cairn.text.content_terms`, the one tokeniser, so stopwords never count. A progress
source is offered project states only. The qualifying records are capped at the 32 most
recent (by evidence time), so a long-lived origin cannot flood the proposer. Only
mentioned records may be named by ``replaces``.

**Plan** (:func:`plan_batch`): replacement claims first (each decided by
:func:`cairn.policy.authority.decide`), then additions, so that an addition identical to
a withheld variant is quarantined too however the claims were ordered: a duplicate in
the same batch cannot sneak a weaker claim past the guard.

**Confirmation**: mentioned records left standing, or named and reaffirmed with identical
content, are returned in ``confirm``; never for project_state (states go stale silently)
and never for progress sources (their mentioned records are nominated by kind, not
measured).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime

from ..errors import InvalidInput
from ..model import NO_FEEDBACK, Kind, Memory, SourceKind, Status
from ..policy.authority import Incoming, Reaffirm, Refuse, Replace, Withhold, decide
from ..text import STOPWORDS, content_terms, normalize, stem
from .batch import ClaimSpec

MENTIONED_CAP = 32
MIN_CONTAINMENT = 0.5
MIN_SHARED_TERMS = 2
ALIASES_MAX = 8


def fingerprint(text: str) -> str:
    """The dedup key of a claim's text (the store's ``content_hash`` canonical form)."""
    return " ".join(normalize(text).split())


def containment(record_text: str, source_terms: frozenset[str]) -> tuple[float, int]:
    """Share of the record's distinct content terms found in the source, and their count."""
    own = set(content_terms(record_text))
    if not own:
        return 0.0, 0
    shared = len(own & source_terms)
    return shared / len(own), shared


def mentions(record_text: str, source_terms: frozenset[str]) -> bool:
    share, shared = containment(record_text, source_terms)
    needed = min(MIN_SHARED_TERMS, len(set(content_terms(record_text))))
    return shared > 0 and shared >= needed and share >= MIN_CONTAINMENT


# Index terms that may have come from a stopword (the index keeps stems, not surfaces).
_STOP_TERMS = frozenset(STOPWORDS) | frozenset(stem(w) for w in STOPWORDS)


def may_mention(index_terms: str, source_terms: frozenset[str]) -> bool:
    """A sound, cheap upper bound of :func:`mentions` on a record's indexed terms: False
    only when the record surely is not mentioned, so exact measuring can be skipped.

    Every indexed term outside :data:`_STOP_TERMS` is surely a content term, so their count
    bounds the record's content terms from below, and the shared indexed terms bound the
    shared content terms from above.
    """
    indexed = set(index_terms.split())
    shared = len(indexed & source_terms)
    floor = len(indexed - _STOP_TERMS)
    if floor == 0:
        return shared > 0
    return shared >= min(MIN_SHARED_TERMS, floor) and shared / floor >= MIN_CONTAINMENT


def select_mentioned(memories: Iterable[Memory], *, text: str, origin: str, source_kind: SourceKind) -> list[Memory]:
    """The records this source mentions, most recent first, at most :data:`MENTIONED_CAP`."""
    source_terms = frozenset(content_terms(text))
    found = [
        m
        for m in memories
        if m.origin == origin
        and m.active
        and m.kind is not Kind.EPISODE
        and m.purged_at is None
        and (source_kind is not SourceKind.PROGRESS or m.kind is Kind.PROJECT_STATE)
        and mentions(m.content, source_terms)
    ]
    found.sort(key=lambda m: (m.updated_at, m.created_at, m.id), reverse=True)
    return found[:MENTIONED_CAP]


@dataclass(frozen=True, slots=True)
class ClaimOutcome:
    """What happened to one claim. ``outcome``: added | replaced | reaffirmed | withheld |
    duplicate; ``id`` the record it landed in; ``reason`` the decision's reason."""

    index: int
    outcome: str
    id: str
    reason: str = ""


@dataclass
class Plan:
    writes: dict[str, tuple[Memory | None, Memory]] = field(default_factory=dict)  # id -> (before, after)
    outcomes: list[ClaimOutcome] = field(default_factory=list)
    confirm: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("added", "replaced", "withheld", "conflicted", "reaffirmed", "unchanged"), 0)
    )
    withheld_reasons: dict[str, int] = field(default_factory=dict)

    def write(self, before: Memory | None, after: Memory) -> Memory:
        """Record a change; a record touched twice by one batch is still one change of
        one revision, from its state before the batch."""
        first = self.writes.get(after.id, (before, after))[0]
        if first is not None:
            after = replace(after, revision=first.revision + 1)
        self.writes[after.id] = (first, after)
        return after

    def current(self, memory: Memory) -> Memory:
        return self.writes.get(memory.id, (None, memory))[1]


@dataclass(frozen=True, slots=True)
class Context:
    space: str
    origin: str
    incoming: Incoming
    now: datetime
    new_id: Callable[[], str]


Standing = dict[tuple[Kind, str], list[Memory]]  # (kind, fingerprint) -> records holding that text


def plan_batch(claims: Iterable[ClaimSpec], mentioned: list[Memory], standing: Standing, ctx: Context) -> Plan:
    """Decide every claim. ``claims`` are cleaned, ``replaces`` resolved to ids of
    ``mentioned`` records; ``standing`` maps (kind, fingerprint) to the origin's records
    holding that text."""
    plan = Plan()
    by_id = {m.id: m for m in mentioned}
    standing = {key: list(found) for key, found in standing.items()}
    claims = list(claims)
    targeted: dict[str, int] = {}
    reaffirmed: set[str] = set()
    for claim in claims:
        if not claim.replaces:
            continue
        if claim.replaces in targeted:
            raise InvalidInput(
                f"claims[{claim.index}].replaces", f"{claim.replaces} is already named by claims[{targeted[claim.replaces]}]"
            )
        targeted[claim.replaces] = claim.index
        _replacement(plan, claim, by_id[claim.replaces], standing, ctx, reaffirmed)
    for claim in (c for c in claims if not c.replaces):
        _addition(plan, claim, standing, ctx)
    plan.outcomes.sort(key=lambda o: o.index)
    if ctx.incoming.source_kind is not SourceKind.PROGRESS:
        plan.confirm = [
            m.id for m in mentioned if m.kind is not Kind.PROJECT_STATE and (m.id not in targeted or m.id in reaffirmed)
        ]
    return plan


def _replacement(plan: Plan, claim: ClaimSpec, target: Memory, standing: Standing, ctx: Context, reaffirmed: set[str]) -> None:
    old = plan.current(target)
    same = fingerprint(old.content) == fingerprint(claim.content)
    match decide(old, claim.kind, same, ctx.incoming, ctx.now):
        case Refuse(reason=reason):
            raise InvalidInput(f"claims[{claim.index}].replaces", reason)
        case Reaffirm(refresh=True, reason=reason):
            # An incorporated explicit reaffirmation: attach the newer evidence.
            refreshed = replace(_annotated(old, claim.aliases), evidence=ctx.incoming.evidence, updated_at=ctx.incoming.at)
            plan.write(target, refreshed)
            _done(plan, claim, "reaffirmed", old.id, reason)
            reaffirmed.add(old.id)
        case Reaffirm(reason=reason):
            _annotate(plan, target, old, claim.aliases)
            _done(plan, claim, "reaffirmed", old.id, reason)
            reaffirmed.add(old.id)
        case Replace(reason=reason):
            after = plan.write(target, _replaced(old, claim, ctx))
            # The record now holds the new text: a later addition of it is a duplicate.
            standing.setdefault((claim.kind, fingerprint(claim.content)), []).append(after)
            _done(plan, claim, "replaced", old.id, reason)
        case Withhold(reason=reason):
            # The stronger record stands; the weaker variant is kept, quarantined.
            plan.counts["withheld"] += 1
            plan.withheld_reasons[reason] = plan.withheld_reasons.get(reason, 0) + 1
            key = (claim.kind, fingerprint(claim.content))
            existing = [m for m in standing.get(key, []) if m.status in (Status.CONFLICTED, Status.PROVISIONAL, Status.CONFIRMED)]
            variant = existing[0] if existing else _create(plan, claim, ctx, Status.CONFLICTED, standing)
            plan.outcomes.append(ClaimOutcome(claim.index, "withheld", variant.id, reason))


def _addition(plan: Plan, claim: ClaimSpec, standing: Standing, ctx: Context) -> None:
    key = (claim.kind, fingerprint(claim.content))
    # As they stand now: a record replaced earlier in this batch no longer holds its old text.
    found = [c for c in (plan.current(m) for m in standing.get(key, [])) if fingerprint(c.content) == key[1]]
    active = [m for m in found if m.active]
    quarantined = [m for m in found if m.status is Status.CONFLICTED]
    if active:
        # Re-emitting stored text is not evidence of anything: aliases may be added, the
        # evidence date does not move.
        _annotate(plan, active[0], active[0], claim.aliases)
        _done(plan, claim, "duplicate", active[0].id, "already-stored")
    elif quarantined:
        # The same text as a quarantined variant - one withheld earlier in this batch
        # (replacements are planned first) or in an earlier one: it stays quarantined.
        _done(plan, claim, "duplicate", quarantined[0].id, "quarantined-variant")
    else:
        memory = _create(plan, claim, ctx, Status.PROVISIONAL, standing)
        plan.outcomes.append(ClaimOutcome(claim.index, "added", memory.id, ""))


def _done(plan: Plan, claim: ClaimSpec, outcome: str, memory_id: str, reason: str) -> None:
    counter = {"replaced": "replaced", "reaffirmed": "reaffirmed", "duplicate": "unchanged"}.get(outcome)
    if counter:
        plan.counts[counter] += 1
    plan.outcomes.append(ClaimOutcome(claim.index, outcome, memory_id, reason))


def _create(plan: Plan, claim: ClaimSpec, ctx: Context, status: Status, standing: Standing) -> Memory:
    memory = Memory(
        id=ctx.new_id(),
        space=ctx.space,
        origin=ctx.origin,
        kind=claim.kind,
        content=claim.content,
        aliases=claim.aliases[:ALIASES_MAX],
        status=status,
        evidence=ctx.incoming.evidence,
        created_at=ctx.now,
        updated_at=ctx.incoming.at,
    )
    plan.write(None, memory)
    plan.counts["conflicted" if status is Status.CONFLICTED else "added"] += 1
    standing.setdefault((claim.kind, fingerprint(claim.content)), []).append(memory)
    return memory


def _replaced(old: Memory, claim: ClaimSpec, ctx: Context) -> Memory:
    """New content in the old record's place. Nothing of the old claim's judgement carries
    over: feedback, certainty, validity and checkpoints belonged to the old text."""
    return replace(
        old,
        content=claim.content,
        aliases=claim.aliases[:ALIASES_MAX],
        status=Status.PROVISIONAL,
        evidence=ctx.incoming.evidence,
        updated_at=ctx.incoming.at,
        feedback=NO_FEEDBACK,
        certainty=None,
        valid_from=None,
        valid_to=None,
        expected_resolution_at=None,
        last_confirmed_at=None,
    )


def _annotated(old: Memory, aliases: tuple[str, ...]) -> Memory:
    merged = list(old.aliases)
    for alias in aliases:
        if alias.casefold() not in (a.casefold() for a in merged) and len(merged) < ALIASES_MAX:
            merged.append(alias)
    return replace(old, aliases=tuple(merged))


def _annotate(plan: Plan, original: Memory, old: Memory, aliases: tuple[str, ...]) -> None:
    """Add new aliases without touching evidence or dates (aliases are not evidence)."""
    after = _annotated(old, aliases)
    if after.aliases != old.aliases:
        plan.write(original, after)
