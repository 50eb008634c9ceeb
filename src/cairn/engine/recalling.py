"""Recall, search and explain on the facade.

Bad input is refused before anything is read or written. The pipeline runs on one read
snapshot and writes nothing; afterwards, unless ``trace=False`` (or the store is opened
read-only), one trace row is written and expired traces are pruned — the only write a
recall makes. ``explain`` never writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any, NamedTuple

from ..errors import InvalidInput
from ..recall.explain import explain_doc, recall_doc
from ..recall.fusion import default_lane
from ..recall.gates import Reason
from ..recall.pack import PACK
from ..recall.pipeline import LANES, MAX_LIMIT, Outcome, Request, ResultItem, join_dormant, run, turn_lane, validate
from ..recall.traces import RETENTION_DAYS, write_trace
from ..store import ReadView
from ..wire import ExplainDoc, RecallDoc
from .scope import Part
from .trust import Trust
from .validate import as_time, clean_origin

# LANES: the lane names a recall accepts, read from the lane registry on first use.
__all__ = ["LANES", "SEARCH_BUDGET", "SEARCH_LIMIT", "Recalled", "Recalling"]

SEARCH_LIMIT = 10  # search returns up to 10 (docs/recall.md)
SEARCH_BUDGET = 8192  # ten excerpts do not fit the 2048-byte digest default


class Recalled(NamedTuple):
    """A recall's outcome and the id of its trace (None when no trace was written)."""

    outcome: Outcome
    trace: str | None
    confidence: Mapping[str, Mapping[str, Any]] | None = None  # by record id, composed after ranking

    @property
    def results(self) -> list[ResultItem]:
        return self.outcome.results

    @property
    def ids(self) -> list[str]:
        return [r.id for r in self.outcome.results]

    @property
    def digest(self) -> str:
        return self.outcome.digest

    @property
    def note(self) -> str | None:
        return self.outcome.note

    def to_dict(self) -> RecallDoc:
        """The wire form (``recall --json``)."""
        return recall_doc(self.outcome, self.trace, self.confidence)




class Recalling(Part):
    """recall, search and explain over one read snapshot; a trace written after a recall."""

    trace_retention_days: float = RETENTION_DAYS
    with_confidence: bool = True  # attach each result's confidence (after ranking; never reorders)

    def recall(
        self,
        query: str,
        *,
        limit: int = PACK.limit,
        budget: int = PACK.budget,
        lane: str | None = None,
        include_dormant: bool = False,
        include_history: bool = False,
        as_of: datetime | str | None = None,
        known_at: datetime | str | None = None,
        trace: bool = True,
        origin: str | None = None,
        prefer_origin: str | None = None,
        include_retired: bool = False,
        inject: bool = False,
    ) -> Recalled:
        """The few memories that matter for ``query``, packed in a bounded digest.

        ``origin`` keeps only that origin's records (the others are excluded as
        ``other-origin``); ``prefer_origin`` puts that origin's relevant records first
        without leaving the others out. Dormant records: see :meth:`Cairn.recall`."""
        request = self._recall_request(query, limit, budget, lane, include_dormant, include_history, as_of, known_at,
                                       origin, prefer_origin, include_retired)
        outcome = self._answered(request, inject, lane is None)
        trace_id = None
        if trace and not self.store.read_only:
            trace_id = write_trace(self.store, self.space, outcome, request.now, retention_days=self.trace_retention_days)
        confidence = None
        if self.with_confidence and outcome.results:
            found = Trust(self.scope).confidences([r.id for r in outcome.results])
            confidence = {i: c.to_dict() for i, c in found.items()}
        return Recalled(outcome, trace_id, confidence)

    def search(
        self,
        query: str,
        *,
        limit: int = SEARCH_LIMIT,
        budget: int = SEARCH_BUDGET,
        lane: str | None = None,
        include_history: bool = False,
        as_of: datetime | str | None = None,
        known_at: datetime | str | None = None,
        trace: bool = True,
        origin: str | None = None,
        prefer_origin: str | None = None,
    ) -> Recalled:
        """Explicit lookup: like recall, dormant records included, up to 10 results."""
        if isinstance(limit, int) and not isinstance(limit, bool) and limit > SEARCH_LIMIT:
            raise InvalidInput("limit", f"{limit}; search returns at most {SEARCH_LIMIT}")
        return self.recall(
            query, limit=limit, budget=budget, lane=lane, include_dormant=True, include_history=include_history,
            as_of=as_of, known_at=known_at, trace=trace, origin=origin, prefer_origin=prefer_origin,
            include_retired=True,
        )

    def explain(
        self,
        query: str,
        *,
        limit: int = PACK.limit,
        budget: int = PACK.budget,
        lane: str | None = None,
        include_dormant: bool = False,
        include_history: bool = False,
        as_of: datetime | str | None = None,
        known_at: datetime | str | None = None,
        origin: str | None = None,
        prefer_origin: str | None = None,
        inject: bool = False,
    ) -> ExplainDoc:
        """Every stage's numbers for ``query``, no memory bodies, at most 8 KB. Writes nothing."""
        request = self._recall_request(query, limit, budget, lane, include_dormant, include_history, as_of, known_at,
                                       origin, prefer_origin)
        return explain_doc(self._answered(request, inject, lane is None))

    # -- helpers -----------------------------------------------------------------------

    def _answered(self, request: Request, inject: bool, default_lane: bool = False) -> Outcome:
        """The recall of ``request`` or, when nothing current answers and the caller is
        asking rather than injecting, what does answer it:

        * the dormant records that pass the gates a current record passes: old is not
          false, and a question whose only answer is old gets that answer, labelled
          ``dormant``, rather than a pointer to it;
        * else, when the caller left the lane to its default, the conversation turns that
          pass the relevance gates (``Outcome.turns_found``), from the episode lane
          (``hybrid-episodes`` when the recall weighed meaning: ``pipeline.turn_lane``) and
          labelled as episodes: after ``cairn ingest``, a plain question finds what was
          said. A lane the caller chose (``--lane claims``) is kept to.

        A current answer is joined by the dormant records that answer as well as it does
        (:meth:`_with_dormant`), never by turns. Every recall of one call reads the same
        snapshot."""
        with self.store.snapshot() as view:
            outcome = run(view, request)
            if outcome.results and outcome.dormant_beside and not inject and not request.include_dormant:
                return self._with_dormant(view, request, outcome)
            if inject or outcome.results:
                return outcome
            if not request.include_dormant and outcome.withheld.get(Reason.DORMANT.value):
                answered = self._dormant_answer(view, request, outcome)
                if answered is not None:
                    return answered
            if default_lane and outcome.turns_found:
                return self._turns_answer(view, request, outcome)
            return outcome

    def _with_dormant(self, view: ReadView, request: Request, outcome: Outcome) -> Outcome:
        """The recall again with the dormant records that answer as well as its results
        (``Outcome.dormant_beside``) ranked beside them by the same formula, labelled
        ``dormant``; the first recall, with its note naming them, if none of them ranks in."""
        again = join_dormant(view, outcome) or run(view, replace(request, admitted=frozenset(outcome.dormant_beside)),
                                                   parsed=outcome.query)
        shown = sum(r.dormant for r in again.results)
        if not shown:
            return outcome
        note = (f"{shown} dormant {'memory' if shown == 1 else 'memories'} (not confirmed lately) "
                f"{'answers' if shown == 1 else 'answer'} as well as the current ones: shown labelled dormant "
                "(--inject leaves dormant records out)")
        return replace(again, note=note, withheld=outcome.withheld, dormant_beside=())

    def _dormant_answer(self, view: ReadView, request: Request, outcome: Outcome) -> Outcome | None:
        again = run(view, replace(request, include_dormant=True), parsed=outcome.query)
        dormant = {r.id for r in again.results if r.dormant}
        if not dormant:
            return None
        n = len(dormant)
        shown = f"{'it is' if n == 1 else 'they are'} shown labelled dormant"
        note = (f"nothing current to recall; {n} dormant {'memory matches' if n == 1 else 'memories match'}"
                f" (not confirmed lately): {shown} (--inject leaves dormant records out)")
        return replace(again, note=note, withheld=outcome.withheld)

    def _turns_answer(self, view: ReadView, request: Request, outcome: Outcome) -> Outcome:
        """The best turns for ``request`` in the turn lane's order (``pipeline.turn_lane``),
        up to its limit: the ones that answer, and the ones the lane ranks beside them (a
        reply that shares no word with the question, a later turn that changed what an
        earlier one said).

        The lane's candidates are those it gave when the turns were counted
        (``Outcome.turn_candidates``, same request, same snapshot): asking it again
        would return the same list at the cost of a second episode ranking."""
        n = outcome.turns_found
        name = turn_lane(request)
        asked = {name: outcome.turn_candidates} if outcome.turn_candidates is not None else None
        again = run(view, replace(request, lane=name, answering_turns=True), asked, scanned=outcome.turn_scan)
        if not again.results:
            return outcome
        shown = len(again.results)
        note = (f"no remembered claim answers this; from the conversations: {shown} "
                f"{'turn' if shown == 1 else 'turns'} (verbatim episodes; --lane claims or --inject leaves them out)")
        return replace(again, note=note, withheld=outcome.withheld, turns_found=n)

    def _recall_request(self, query, limit, budget, lane, include_dormant, include_history, as_of, known_at,
                        origin=None, prefer_origin=None, include_retired=False) -> Request:
        if lane is None:
            lane = default_lane(self.store)  # hybrid with the semantic extra active, else claims
        text = validate(query, limit=limit, budget=budget, lane=lane, max_limit=MAX_LIMIT)
        for field, value in (("origin", origin), ("prefer_origin", prefer_origin)):
            if value is not None and not isinstance(value, str):
                raise InvalidInput(field, "must be a string (an origin name)")
        return Request(
            query=text,
            space=self.space,
            now=self.now(),
            limit=limit,
            budget=budget,
            lane=lane,
            include_dormant=bool(include_dormant),
            include_history=bool(include_history),
            as_of=as_time(as_of, "as_of"),
            known_at=as_time(known_at, "known_at"),
            origin=None if origin is None else clean_origin(origin),
            prefer_origin=None if prefer_origin is None else clean_origin(prefer_origin),
            include_retired=bool(include_retired),
        )

