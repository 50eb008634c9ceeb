"""What the event log says about trust in each record: reinforcement, reviews, decay,
stability, use reports; and the confidence composed from it.

Nothing here has a table of its own: reinforcement events, use reports and applied
maintenance are events (``data`` keys ``reinforcement``, ``use_report``, ``maintenance``)
carrying an unchanged snapshot of each record they concern, so they sit in the record's
history and ``undo`` of the event removes their effect (undone events are skipped).
:class:`Ledger` folds those events, in order, into one :class:`TrustState` per record.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from ..model import Change, Event, Memory, Relation, memory_to_dict
from ..policy.confidence import Confidence, Support, compose
from ..policy.maintenance import DEFAULT_STABILITY, RecordState
from ..recall import kept
from ..recall.resolve import KEPT_RECORDS
from ..store import ReadView, RecordFacts
from .scope import Part


class TrustState:
    """What the ledger has folded so far for one record.

    A plain class with a dataclass's constructor, repr and equality: as a dataclass, its
    generated methods cost every recall process about 0.3 ms of start-up."""

    __slots__ = ("supports", "stability", "reviewed_at", "decay", "reports")

    def __init__(self, supports: list[Support] | None = None, stability: str = DEFAULT_STABILITY,
                 reviewed_at: datetime | None = None, decay: float = 0.0, reports: list[str] | None = None) -> None:
        self.supports: list[Support] = [] if supports is None else supports
        self.stability = stability
        self.reviewed_at = reviewed_at
        self.decay = decay
        self.reports: list[str] = [] if reports is None else reports  # used | unused | wrong, oldest first

    def _fields(self) -> tuple:
        return (self.supports, self.stability, self.reviewed_at, self.decay, self.reports)

    def __repr__(self) -> str:
        return (f"TrustState(supports={self.supports!r}, stability={self.stability!r}, "
                f"reviewed_at={self.reviewed_at!r}, decay={self.decay!r}, reports={self.reports!r})")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass was


class Ledger:
    """Trust state per record id, folded from events oldest first."""

    def __init__(self, events: Iterable[Event]) -> None:
        events = list(events)
        undone = {e.data.get("undoes") for e in events if e.data.get("undoes")}
        self.states: dict[str, TrustState] = {}
        for event in events:
            if event.id not in undone:
                self._fold(event)

    def state(self, memory_id: str) -> TrustState:
        return self.states.get(memory_id) or TrustState()

    def _get(self, memory_id: str) -> TrustState:
        return self.states.setdefault(memory_id, TrustState())

    def _fold(self, event: Event) -> None:
        data = event.data
        r = data.get("reinforcement")
        if isinstance(r, dict) and isinstance(r.get("memory"), str):
            try:
                at = datetime.fromisoformat(r["at"])
                weight = float(r["weight"])
            except (KeyError, TypeError, ValueError):
                return  # a malformed event is skipped, as every reader skips it
            self._get(r["memory"]).supports.append(Support(str(r.get("outcome")), weight, at, r.get("source")))
        u = data.get("use_report")
        if isinstance(u, dict):
            for ref in u.get("refs") or ():
                if isinstance(ref, str):
                    self._get(ref).reports.append(str(u.get("verdict")))
        mt = data.get("maintenance")
        if isinstance(mt, dict):
            for op in mt.get("ops") or ():
                if isinstance(op, dict) and isinstance(op.get("id"), str):
                    self._apply_op(self._get(op["id"]), op, event.at)

    @staticmethod
    def _apply_op(state: TrustState, op: dict, at: datetime) -> None:
        kind = op.get("op")
        if op.get("to") and kind in ("increase_stability", "decrease_stability", "flag_for_review"):
            state.stability = str(op["to"])
        if kind == "confidence_decay":
            state.decay += float(op.get("decay") or 0.0)
        # Every applied op on a record is a review of it: its cadence counts from here.
        state.reviewed_at = at


# The reasons of the events a ledger folds (reinforcement, use reports, applied
# maintenance) and of undos, which may cancel them: a space-wide ledger reads only these
# events (``ReadView.events_by_reason``), not the whole log. Each writer of such an event
# uses one of them (tests/trust/test_ledger.py holds them to it).
LEDGER_REASONS = ("reinforce ", "use report ", "maintain ", "undo ")


def record_state(facts: RecordFacts, state: TrustState) -> RecordState | None:
    """What the maintenance rules read of a record: its stability, outcomes and the
    anchor of its review cadence — the latest of its creation, its last confirmation
    (``cairn confirm`` or an accurate verdict) and its last applied maintenance op.
    None when its creation time cannot be read (such a row is skipped)."""
    if facts.created_at is None:
        return None
    seconds = max(t for t in (facts.created_at, facts.reinforced_at, facts.last_confirmed_at) if t is not None)
    anchor = datetime.fromtimestamp(seconds, UTC)
    if state.reviewed_at is not None and state.reviewed_at > anchor:
        anchor = state.reviewed_at
    return RecordState(facts.id, state.stability, anchor, tuple(s.outcome for s in state.supports))


def unchanged(memory: Memory) -> Change:
    """A change that leaves the record as it is: the event joins the record's history."""
    snapshot = memory_to_dict(memory)
    return Change("memory", memory.id, snapshot, snapshot)


class Trust(Part):
    """Confidence of records, read from their events and relations."""

    def ledger(self, view: ReadView | None = None) -> Ledger:
        """The whole space's ledger (one pass over the events it folds)."""
        return Ledger((view or self.store).events_by_reason(self.space, LEDGER_REASONS))

    def confidence(self, memory: Memory, view: ReadView | None = None) -> Confidence:
        view = view or self.store
        events = view.events(self.space, record_id=memory.id, newest_first=False)
        relations = view.relations(self.space, record_id=memory.id)
        return self._compose(memory, Ledger(events).state(memory.id), relations)

    def confidences(self, ids: Sequence[str]) -> dict[str, Confidence]:
        """Confidence of each readable record among ``ids`` (recall results): the same
        values as :meth:`confidence` of each, read in one snapshot.

        Only the ledger events of each record's history are read, in one query for all of
        them: every other event folds to nothing, as the space-wide :meth:`ledger` relies
        on too. A recalled turn's history holds its conversation's ingest event, every
        turn of it, which :meth:`confidence` decodes whole for each result.

        Each record's relations and ledger history are kept while the store's data is
        unchanged (:mod:`cairn.recall.kept`, which empties them on any write but a trace):
        the recall asking has just read the same relations to resolve its results, and a
        question asked again finds its results' histories there."""
        with self.store.snapshot() as view:
            found = view.get_memories(self.space, list(ids))
            relations = kept.table(view, ("relations", self.space), KEPT_RECORDS)  # the table resolve keeps
            histories = kept.table(view, ("ledger history", self.space), KEPT_RECORDS)
            missing = [i for i in found if i not in histories]
            if missing:
                read = view.history_by_reason(self.space, missing, LEDGER_REASONS)
                histories.update((i, tuple(read.get(i, ()))) for i in missing)
            for i in found:
                if i not in relations:
                    relations[i] = view.relations(self.space, record_id=i)
            return {i: self._compose(m, Ledger(histories[i]).state(i), relations[i]) for i, m in found.items()}

    def _compose(self, memory: Memory, state: TrustState, relations: list[Relation]) -> Confidence:
        incoming = [r for r in relations if r.to_id == memory.id]
        return compose(memory, now=self.now(), incoming=incoming, supports=state.supports, decay=state.decay)
