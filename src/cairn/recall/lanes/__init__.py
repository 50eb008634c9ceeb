"""Recall lanes: where a recall's candidates come from, behind one protocol.

A lane turns the request and its parsed query into candidates, read from a store read
view. The pipeline (:mod:`cairn.recall.pipeline`) runs the lanes a request names, gates
and ranks what they return, then resolves and packs. Lanes are plug-ins of the entry
point group ``cairn.lanes`` (:mod:`cairn.plugins`); Cairn's own, ``claims`` and
``episodes`` (one module each here), are registered there like any other.

What :meth:`Lane.candidates` returns, in the lane's own order:

* every candidate it considered, as :class:`~cairn.recall.pipeline.Candidate` with its
  ``lane`` set to the lane's name and its ``memory`` read in the request's space (a
  candidate the lane cannot read carries a ``reason`` instead);
* exclusions applied: :func:`cairn.recall.pipeline.exclude` sets the lifecycle and
  temporal reasons. Lanes call it before scoring so that explain shows no scores for
  excluded records; the pipeline applies it again on return, so a lane that forgets
  cannot let a forgotten or out-of-space record through;
* each remaining candidate scored: ``raw`` (its relevance, the number the cutoff and
  the ranking read) and ``lexical`` (the evidence the relevance gates read; the
  pipeline computes it when a lane leaves it out).

The lane does not gate: with ``applies_gates`` the pipeline rejects candidates that
fail a relevance gate or the relative cutoff and orders the rest by rank score; without
it the verdicts are only *reported* (``gate_reported`` in explain) and the lane's own
order is kept — for lanes that serve evidence-finding, where recall matters more than
precision. ``scan`` is a dict the lane may fill with how much of the index it read
(explain shows it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ... import plugins

if TYPE_CHECKING:
    from ...store import ReadView
    from ..pipeline import Candidate, Request
    from ..query import ParsedQuery

GROUP = plugins.LANE_GROUP


@runtime_checkable
class Lane(Protocol):
    """A source of recall candidates (see the module docstring for the contract)."""

    name: str
    applies_gates: bool

    def candidates(self, view: ReadView, request: Request, query: ParsedQuery, scan: dict) -> list[Candidate]:
        """The lane's candidates for ``request``, excluded and scored, not gated."""
        ...


def lane(name: str) -> Lane:
    """The installed lane called ``name`` (a :class:`~cairn.errors.PluginError` if none)."""
    found: Lane = plugins.load(GROUP, name, Lane)
    return found


def lane_names() -> tuple[str, ...]:
    """The installed lanes' names, Cairn's own first. Reads metadata, imports no lane."""
    return plugins.names(GROUP)
