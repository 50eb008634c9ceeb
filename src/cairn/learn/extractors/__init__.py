"""Extractors: propose claims from a source, as the :class:`~cairn.learn.batch.Batch`
that ``Cairn.apply`` consolidates.

An extractor is a plug-in of the entry point group ``cairn.extractors``
(:mod:`cairn.plugins`): a rule set, a local model, a hosted model. It reads one source —
its text and metadata, a :class:`~cairn.learn.batch.SourceSpec` the caller built and
validated (:func:`~cairn.learn.batch.parse_source`) — and returns a batch of claims it
proposes.

What an extractor may set, and what it may not:

* It proposes, per claim, only the ``kind`` (fact, preference, decision,
  project_state), the ``content``, the id it ``replaces`` and ``aliases`` — the four
  fields of :class:`~cairn.learn.batch.ClaimSpec`, numbered ``index`` 0, 1, … in order.
* It returns the source it was given, unchanged. The source's kind, evidence basis and
  method are the caller's statement of where the text came from; an extractor that
  could restate them could promote a summary to user testimony.
* It decides nothing else: evidence, authority (whether a claim may replace another),
  status, confidence and feedback are the engine's, from the source and the records
  already held. Content limits and redaction are applied by the engine too.

:func:`extract` runs an extractor and refuses, with a
:class:`~cairn.errors.PluginError` naming it, a result that breaks these rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ... import plugins
from ...model import Kind
from ..batch import CLAIM_KINDS, MAX_CLAIMS, Batch, ClaimSpec, SourceSpec

GROUP = plugins.EXTRACTOR_GROUP


@runtime_checkable
class Extractor(Protocol):
    """Proposes claims from one source (see the module docstring for what it may set)."""

    name: str

    def extract(self, source: SourceSpec) -> Batch:
        """The claims proposed from ``source``, as ``Batch(source, claims)``."""
        ...


@dataclass(frozen=True, slots=True)
class Candidate:
    """A record (or an earlier claim of the same source) a correction may name: ``ref`` is
    a record id, or ``#N`` for claim N of the batch being proposed. The engine chooses
    the candidates; an extractor only picks among them."""

    ref: str
    kind: Kind
    content: str


@dataclass(frozen=True, slots=True)
class Proposal:
    """What an extractor proposes from conversation turns: a batch, and the reason for
    every piece of its output it rejected (which the run reports)."""

    batch: Batch
    rejected: tuple[str, ...] = ()


@runtime_checkable
class TurnExtractor(Extractor, Protocol):
    """An extractor that reads a conversation's user turns one by one, and may name one of
    the engine's candidates (or ``#N``, an earlier claim of the same batch) in ``replaces``.
    ``cairn learn`` uses this form when an extractor offers it, else :meth:`Extractor.extract`
    on the user turns joined."""

    def extract_turns(self, source: SourceSpec, turns: Sequence[str], candidates: Sequence[Candidate]) -> Proposal:
        """The claims proposed from ``turns`` (the user's words in ``source``)."""
        ...


def extractor(name: str) -> Extractor:
    """The installed extractor called ``name`` (a :class:`~cairn.errors.PluginError` if none)."""
    found: Extractor = plugins.load(GROUP, name, Extractor)
    return found


def extractor_names() -> tuple[str, ...]:
    """The installed extractors' names. Reads metadata, imports no extractor."""
    return plugins.names(GROUP)


def extract_turns(
    model: Extractor, source: SourceSpec, turns: Sequence[str], candidates: Sequence[Candidate] = ()
) -> Proposal:
    """Run ``model`` on a conversation's user turns; its proposal, checked like
    :func:`extract`, and every ``replaces`` one of ``candidates`` or an earlier claim."""
    if isinstance(model, TurnExtractor):
        proposal = model.extract_turns(source, turns, candidates)
        if not isinstance(proposal, Proposal):
            raise plugins.PluginError(GROUP, model.name, f"returned {type(proposal).__name__}, not a Proposal")
    else:
        proposal = Proposal(model.extract(source))
    _check(model, source, proposal.batch, limit=None)  # the engine splits a long source into batches
    refs = {c.ref for c in candidates}
    for claim in proposal.batch.claims:
        ref = claim.replaces
        if ref is None or ref in refs:
            continue
        if not (ref.startswith("#") and ref[1:].isdigit() and int(ref[1:]) < claim.index):
            raise plugins.PluginError(GROUP, model.name, f"claim {claim.index} replaces {ref!r}, which is not a candidate")
    return proposal


def extract(model: Extractor, source: SourceSpec) -> Batch:
    """Run ``model`` on ``source``; its batch, checked against the rules above."""
    batch = model.extract(source)
    _check(model, source, batch)
    return batch


def _check(model: Extractor, source: SourceSpec, batch: object, limit: int | None = MAX_CLAIMS) -> None:
    if not isinstance(batch, Batch):
        raise plugins.PluginError(GROUP, model.name, f"returned {type(batch).__name__}, not a Batch")
    if batch.source != source:
        raise plugins.PluginError(GROUP, model.name, "changed the source: its kind, basis and method are the caller's")
    if limit is not None and len(batch.claims) > limit:
        raise plugins.PluginError(GROUP, model.name, f"proposed {len(batch.claims)} claims; a batch holds at most {MAX_CLAIMS}")
    for i, claim in enumerate(batch.claims):
        if not isinstance(claim, ClaimSpec) or claim.index != i:
            raise plugins.PluginError(GROUP, model.name, f"claim {i} is not a ClaimSpec numbered {i}")
        if claim.kind not in CLAIM_KINDS:
            raise plugins.PluginError(GROUP, model.name, f"claim {i} has kind {claim.kind!r}, which a batch may not propose")
