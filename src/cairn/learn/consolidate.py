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

**Plan** (:func:`plan_batch`): every replacement is decided first (by
:func:`cairn.policy.authority.decide`, against its target as it stood before the batch),
then written, then the additions are planned. The values of withheld replacements are
quarantined for the whole batch, whatever the claim order: an addition of one (of any
kind) is stored ``conflicted``, a replacement of a weaker record with one is withheld
too (the record keeps its text), so neither a duplicate nor a second replacement can
sneak a weaker claim past the guard. A replacement whose value another active record of
the origin already holds attaches its evidence to that record and retires the replaced
one: one current record, never two copies with different evidence.

**Succession** (``Context.succession``, what ``cairn learn`` asks for): a replacement the
authority policy lets through is written as a new record that ``corrects`` the old one
(``Plan.corrects``), instead of new text in the old record's place. The old record keeps
its text, recall gives way to the new one and marks it ``corrected``: a conversation's
correction stays visible as one. Withheld and reaffirmed claims are as without it.

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
from ..policy.authority import Decision, Incoming, Reaffirm, Refuse, Replace, Withhold, decide
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
    corrects: list[tuple[str, str]] = field(default_factory=list)  # (newer id, older id): relations to declare

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
    succession: bool = False  # a replacement adds a record that corrects the old one


Standing = dict[tuple[Kind, str], list[Memory]]  # (kind, fingerprint) -> records holding that text


def plan_batch(claims: Iterable[ClaimSpec], mentioned: list[Memory], standing: Standing, ctx: Context) -> Plan:
    """Decide every claim. ``claims`` are cleaned, ``replaces`` resolved to ids of
    ``mentioned`` records; ``standing`` maps (kind, fingerprint) to the origin's records
    holding that text.

    Two passes, so that no claim order lets a value through: every replacement is first
    decided against its target as it stood before the batch; the values of the withheld
    ones are the batch's *quarantined values*. Then the decisions are written and the
    additions planned, and no claim of the batch — of any kind, replacement or addition —
    writes a quarantined value anywhere but into a ``conflicted`` record.
    """
    plan = Plan()
    by_id = {m.id: m for m in mentioned}
    standing = {key: list(found) for key, found in standing.items()}
    claims = list(claims)
    targeted: dict[str, int] = {}
    decided: list[tuple[ClaimSpec, Memory, Decision]] = []
    for claim in claims:
        if not claim.replaces:
            continue
        if claim.replaces in targeted:
            raise InvalidInput(
                f"claims[{claim.index}].replaces", f"{claim.replaces} is already named by claims[{targeted[claim.replaces]}]"
            )
        targeted[claim.replaces] = claim.index
        target = by_id[claim.replaces]
        same = fingerprint(target.content) == fingerprint(claim.content)
        decision = decide(target, claim.kind, same, ctx.incoming, ctx.now)
        if isinstance(decision, Refuse):
            raise InvalidInput(f"claims[{claim.index}].replaces", decision.reason)
        decided.append((claim, target, decision))
    withheld = frozenset(fingerprint(c.content) for c, _, d in decided if isinstance(d, Withhold))
    batch = _Batch(
        withheld=withheld,
        # Records whose text this batch will overwrite (a replacement with a quarantined
        # value overwrites nothing): a value they hold now is leaving.
        leaving={t.id for c, t, d in decided if isinstance(d, Replace) and fingerprint(c.content) not in withheld},
    )
    reaffirmed: set[str] = set()
    for claim, target, decision in decided:
        _replacement(plan, claim, target, decision, standing, ctx, batch, reaffirmed)
    for claim in (c for c in claims if not c.replaces):
        _addition(plan, claim, standing, ctx, batch)
    plan.outcomes.sort(key=lambda o: o.index)
    if ctx.incoming.source_kind is not SourceKind.PROGRESS:
        # A record holding a value this batch had withheld was disputed, not confirmed.
        plan.confirm = [
            m.id
            for m in mentioned
            if m.kind is not Kind.PROJECT_STATE
            and (m.id not in targeted or m.id in reaffirmed)
            and fingerprint(plan.current(m).content) not in batch.withheld
        ]
    return plan


@dataclass
class _Batch:
    """What the first pass of :func:`plan_batch` learnt about the whole batch."""

    withheld: frozenset[str]  # fingerprints of withheld replacement values: quarantined in this batch
    leaving: set[str]  # ids of records whose text a replacement still has to overwrite


def _replacement(
    plan: Plan,
    claim: ClaimSpec,
    target: Memory,
    decision: Decision,
    standing: Standing,
    ctx: Context,
    batch: _Batch,
    reaffirmed: set[str],
) -> None:
    old = plan.current(target)
    value = fingerprint(claim.content)
    match decision:
        case Reaffirm() if value in batch.withheld:
            # The record already holds a value the same batch proposed against stronger
            # evidence: restating it is not a reaffirmation (no refresh, no confirmation).
            _done(plan, claim, "reaffirmed", old.id, QUARANTINED_VALUE)
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
        case Replace() if value in batch.withheld:
            # The same batch proposed this value against a stronger record and was withheld:
            # writing it over a weaker one would revive it. The target keeps its text.
            batch.leaving.discard(target.id)
            _withhold(plan, claim, QUARANTINED_VALUE, standing, ctx, batch)
        case Replace(reason=reason):
            batch.leaving.discard(target.id)
            holder = _holder(plan, standing, claim.kind, value, besides=target.id, leaving=batch.leaving)
            if holder is not None:
                _merge(plan, claim, target, old, holder, ctx, reaffirmed)
                return
            if ctx.succession:
                # The correction gets a record of its own and declares that it corrects
                # the old one, which keeps its text: recall shows the new one `corrected`.
                newer = _create(plan, claim, ctx, Status.PROVISIONAL, standing, counted=False)
                plan.corrects.append((newer.id, target.id))
                _done(plan, claim, "replaced", newer.id, reason)
                return
            after = plan.write(target, _replaced(old, claim, ctx))
            # The record now holds the new text: a later claim of it finds it here.
            standing.setdefault((claim.kind, value), []).append(after)
            _done(plan, claim, "replaced", old.id, reason)
        case Withhold(reason=reason):
            _withhold(plan, claim, reason, standing, ctx, batch)


QUARANTINED_VALUE = "quarantined-value"  # the value was withheld elsewhere in the same batch
REUSED_VALUE = "reused-value"  # the replacement's value already stands in another record


def _withhold(plan: Plan, claim: ClaimSpec, reason: str, standing: Standing, ctx: Context, batch: _Batch) -> None:
    """The stronger record stands; the weaker variant is kept, quarantined. A quarantined
    variant of the same kind and text is reused; so is a record that held the text before
    the batch and keeps it (existing variants are never silently quarantined)."""
    plan.counts["withheld"] += 1
    plan.withheld_reasons[reason] = plan.withheld_reasons.get(reason, 0) + 1
    found = [m for m in _holding(plan, standing, claim.kind, fingerprint(claim.content)) if m.id not in batch.leaving]
    existing = [m for m in found if m.status is Status.CONFLICTED] + [m for m in found if m.active]
    variant = existing[0] if existing else _create(plan, claim, ctx, Status.CONFLICTED, standing)
    plan.outcomes.append(ClaimOutcome(claim.index, "withheld", variant.id, reason))


def _holder(plan: Plan, standing: Standing, kind: Kind, value: str, *, besides: str, leaving: set[str]) -> Memory | None:
    """The active record of this kind that holds ``value`` and keeps holding it, if any."""
    for m in _holding(plan, standing, kind, value):
        if m.active and m.id != besides and m.id not in leaving:
            return m
    return None


def _holding(plan: Plan, standing: Standing, kind: Kind, value: str) -> list[Memory]:
    """The origin's records of ``kind`` holding ``value`` as they stand now in the plan (a
    record replaced earlier in this batch no longer holds its old text)."""
    out: dict[str, Memory] = {}
    for m in standing.get((kind, value), []):
        current = plan.current(m)
        if fingerprint(current.content) == value:
            out[current.id] = current
    return list(out.values())


def _merge(plan: Plan, claim: ClaimSpec, target: Memory, old: Memory, holder: Memory, ctx: Context, reaffirmed: set[str]) -> None:
    """A replacement whose new value another record already holds. Writing it would leave
    two current copies, one with the new evidence and one with the old: instead the newer
    evidence is attached to the record holding the value (when the source may refresh
    it, as a reaffirmation would), and the replaced record is retired. One current record."""
    match decide(holder, claim.kind, True, ctx.incoming, ctx.now):
        case Reaffirm(refresh=True):
            refreshed = replace(_annotated(holder, claim.aliases), evidence=ctx.incoming.evidence, updated_at=ctx.incoming.at)
            plan.write(holder, refreshed)
            reaffirmed.add(holder.id)
        case _:
            _annotate(plan, holder, holder, claim.aliases)
    plan.write(target, replace(old, status=Status.RETIRED))
    _done(plan, claim, "replaced", holder.id, REUSED_VALUE)


def _addition(plan: Plan, claim: ClaimSpec, standing: Standing, ctx: Context, batch: _Batch) -> None:
    value = fingerprint(claim.content)
    found = _holding(plan, standing, claim.kind, value)
    active = [m for m in found if m.active]
    quarantined = [m for m in found if m.status is Status.CONFLICTED]
    if quarantined and (value in batch.withheld or not active):
        # The same text as a quarantined variant - one withheld earlier in this batch
        # (replacements are planned first) or in an earlier one: it stays quarantined.
        _done(plan, claim, "duplicate", quarantined[0].id, "quarantined-variant")
    elif active and value in batch.withheld:
        # Held before the batch by an active record (never silently quarantined); the
        # batch's own copy of a withheld value adds nothing to it, not even aliases.
        _done(plan, claim, "duplicate", active[0].id, QUARANTINED_VALUE)
    elif active:
        # Re-emitting stored text is not evidence of anything: aliases may be added, the
        # evidence date does not move.
        _annotate(plan, active[0], active[0], claim.aliases)
        _done(plan, claim, "duplicate", active[0].id, "already-stored")
    elif value in batch.withheld:
        # A withheld value re-proposed under another kind (a summary's "decision" beside its
        # withheld "fact"): changing kind does not escape the quarantine.
        memory = _create(plan, claim, ctx, Status.CONFLICTED, standing)
        plan.outcomes.append(ClaimOutcome(claim.index, "quarantined", memory.id, QUARANTINED_VALUE))
    else:
        memory = _create(plan, claim, ctx, Status.PROVISIONAL, standing)
        plan.outcomes.append(ClaimOutcome(claim.index, "added", memory.id, ""))


def _done(plan: Plan, claim: ClaimSpec, outcome: str, memory_id: str, reason: str) -> None:
    counter = {"replaced": "replaced", "reaffirmed": "reaffirmed", "duplicate": "unchanged"}.get(outcome)
    if counter:
        plan.counts[counter] += 1
    plan.outcomes.append(ClaimOutcome(claim.index, outcome, memory_id, reason))


def _create(plan: Plan, claim: ClaimSpec, ctx: Context, status: Status, standing: Standing, *,
            counted: bool = True) -> Memory:
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
    if counted:
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
