"""Relation resolution of a ranked recall (docs/recall.md, stage 7; docs/time.md).

Called by the recall pipeline after ranking and before packing. The contract:

    resolve(view, space, ranked_ids, *, include_history, now, as_of=None, known_at=None)
        -> list[Resolved]

Given the ranked ids that survived the gates (best first), return the list to pack, in
order, each id at most once:

* **Corrections.** A hit that an active ``corrects``/``supersedes`` chain replaces
  (A ← B ← C, of any length) gives way to the head of the chain (C): the live record that
  no live record replaces, found by following the relations, never by time or id; the
  result carries the marker ``corrected``, every older ref of its chain in ``corrects``
  (nearest first) and the replaced hit in ``matched``. A record that has older versions
  is marked ``corrected`` even when it matched itself. "Live" means the record exists,
  is not purged, and is neither forgotten nor conflicted (a withdrawn or quarantined
  correction corrects nothing). A ``supersedes`` is followed only once its newer record
  has begun to hold at the reference time (``as_of``, else ``now``): before that the
  older state is still the one that holds. A ``corrects`` is always followed: the older
  text was wrong, whenever one asks about.
* **Contradictions.** An unresolved ``contradicts`` pair — neither side replaced by a
  live correction/successor, neither side judged ``incorrect`` — comes back as a pair
  right after the first of its sides to be placed, both marked ``contradicted`` with the
  other's ref in ``contradicts``. No side is chosen.
* **Decision history.** When a hit was a *decision* directly superseded by the selected
  successor (also a decision), that one predecessor follows its successor immediately,
  marked ``historical-rationale`` with ``superseded_by`` (multi-hop recovery is not
  attempted). With ``include_history`` the best-ranked replaced hit of any kind
  follows its successor the same way. Never more than one predecessor per successor, and
  never a predecessor of a successor that was not placed: the packer must in addition
  drop a ``historical-rationale`` item whose successor was not emitted right before it.
* ``known_at`` resolves with the relations and record states Cairn held at that time, so
  a later correction does not rewrite what was known before it.

Records without relations come back unchanged, in their order, with no markers. Read-only.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import NamedTuple

from ..model import Kind, Marker, Memory, Relation, Role, Status, Verdict
from ..policy.temporal import has_started
from ..store import ReadView
from ..store.timetravel import memory_known_at, relations_known_at
from . import kept

CHAIN = (Role.CORRECTS, Role.SUPERSEDES)
KEPT_RECORDS = 8192  # records whose relations are kept per space


class Resolved(NamedTuple):
    id: str
    markers: tuple[str, ...] = ()
    corrects: tuple[str, ...] = ()  # older refs this record corrects/supersedes
    contradicts: tuple[str, ...] = ()  # refs of unresolved contradicting records
    superseded_by: str | None = None  # for historical-rationale items
    matched: str | None = None  # the id that matched the query, when it was replaced


class _Graph:
    """Relations and records of one space, read lazily (as held at ``known_at`` if given).

    A plain class: a dataclass costs every process that imports it its generated
    ``__init__`` (about 0.15 ms), and this working state needs nothing else of one."""

    __slots__ = ("view", "space", "known_at", "_edges", "_memories", "_all", "_kept", "_read")

    def __init__(self, view: ReadView, space: str, known_at: datetime | None,
                 read: Mapping[str, Memory] | None = None) -> None:
        self.view = view
        self.space = space
        self.known_at = known_at
        self._edges: dict[str, list[Relation]] = {}
        self._memories: dict[str, Memory | None] = {}
        # Records the caller read from this view as they stand now, taken when asked for
        # (most of a recall's candidates never are); not under known_at.
        self._read = read if known_at is None else None
        self._all: list[Relation] | None = None
        # Relations kept while the store's data is unchanged (cairn.recall.kept): most
        # hits have no relations, and the next recall asks about the same records.
        self._kept: dict[str, list[Relation]] | None = None

    def _known(self) -> dict[str, list[Relation]]:
        if self._kept is None:
            self._kept = kept.table(self.view, ("relations", self.space), KEPT_RECORDS)
        return self._kept

    def edges(self, record_id: str) -> list[Relation]:
        if record_id not in self._edges:
            if self.known_at is None:
                known = self._known()
                found = known.get(record_id)
                if found is None:
                    found = known[record_id] = self.view.relations(self.space, record_id=record_id)
                self._edges[record_id] = found
            else:
                if self._all is None:
                    self._all = relations_known_at(self.view, self.space, self.known_at)
                self._edges[record_id] = [r for r in self._all if record_id in (r.from_id, r.to_id)]
        return self._edges[record_id]

    def memory(self, record_id: str) -> Memory | None:
        if record_id not in self._memories:
            held = self._read.get(record_id) if self._read else None
            if held is not None and held.space == self.space:
                self._memories[record_id] = held
            elif self.known_at is None:
                self._memories[record_id] = self.view.get_memory(self.space, record_id)
            else:
                self._memories[record_id] = memory_known_at(self.view, self.space, record_id, self.known_at)
        return self._memories[record_id]

    def live(self, record_id: str) -> bool:
        m = self.memory(record_id)
        return m is not None and m.purged_at is None and m.status not in (Status.FORGOTTEN, Status.CONFLICTED)

    def successors(self, record_id: str, reference: datetime) -> list[str]:
        """Newer records declared to correct/supersede ``record_id`` that apply now."""
        out = []
        for r in self.edges(record_id):
            if r.to_id != record_id or r.role not in CHAIN:
                continue
            newer = self.memory(r.from_id)
            if newer is None:
                continue
            if r.role is Role.SUPERSEDES and not has_started(newer, reference):
                continue  # the successor state has not begun: the older one still holds
            out.append(r.from_id)
        return out

    def predecessors(self, record_id: str) -> list[str]:
        """Every older record the chain below ``record_id`` replaces, nearest first (by
        relation steps; records as far apart, newest first)."""
        order: list[str] = []
        seen = {record_id}
        frontier = [record_id]
        while frontier:
            following: dict[str, None] = {}
            for node in frontier:
                for r in self.edges(node):
                    if r.from_id == node and r.role in CHAIN and r.to_id not in seen:
                        following[r.to_id] = None
            frontier = sorted(following, key=self._age_key, reverse=True)
            seen.update(frontier)
            order += frontier
        return order

    def head(self, record_id: str, reference: datetime) -> str:
        """The head of ``record_id``'s chain: the live record, among those that
        (transitively) replace it, that no live record replaces in turn; ``record_id``
        itself when nothing live replaces it.

        Found by following the relations only, never by comparing times or ids: records
        written at one instant (one batch, one ``--now``) carry equal timestamps, and a
        chain A <- B <- C must resolve to C whatever their ids. Only where the relations
        give no order — two live branches replacing the same record (a fork), or a cycle
        that an import brought in — does the newer record time decide, then the id.
        """
        later = self._later(record_id, reference)
        live = [n for n in later if self.live(n)]
        if not live:
            return record_id
        heads = [n for n in live if not any(self.live(d) for d in self._later(n, reference) if d != n)]
        return max(heads or live, key=self._age_key)

    def _later(self, record_id: str, reference: datetime) -> list[str]:
        """Every record that (transitively) replaces ``record_id``, nearest first."""
        seen: dict[str, None] = {}
        frontier = [record_id]
        while frontier:
            following = []
            for node in frontier:
                for newer in self.successors(node, reference):
                    if newer not in seen:  # guards imported cycles too
                        seen[newer] = None
                        following.append(newer)
            frontier = following
        return list(seen)

    def incorrect(self, record_id: str) -> bool:
        m = self.memory(record_id)
        return m is not None and m.feedback.accuracy is not None and m.feedback.accuracy.verdict is Verdict.INCORRECT

    def open_contradictions(self, record_id: str, reference: datetime) -> list[str]:
        """The other sides of unresolved ``contradicts`` pairs of ``record_id``."""
        if self.incorrect(record_id):
            return []
        out = []
        for r in self.edges(record_id):
            if r.role is not Role.CONTRADICTS:
                continue
            other = r.to_id if r.from_id == record_id else r.from_id
            if other in out or not self.live(other) or self.incorrect(other):
                continue
            if self.head(other, reference) != other:
                continue  # that side was corrected or superseded: the pair is resolved
            out.append(other)
        return out

    def _age_key(self, record_id: str):
        m = self.memory(record_id)
        return (m.created_at.isoformat() if m else "", record_id)


def related(view: ReadView, space: str, record_id: str) -> bool:
    """Whether ``record_id`` has an active relation (read as :func:`resolve` reads it, kept
    in the same table): a record without one resolves to itself, is nobody's correction,
    contradiction or history, and moves nothing else."""
    known = kept.table(view, ("relations", space), KEPT_RECORDS)
    found = known.get(record_id)
    if found is None:
        found = known[record_id] = view.relations(space, record_id=record_id)
    return bool(found)


def resolve(
    view: ReadView,
    space: str,
    ranked_ids: list[str],
    *,
    include_history: bool,
    now: datetime,
    as_of: datetime | None = None,
    known_at: datetime | None = None,
    read: Mapping[str, Memory] | None = None,
) -> list[Resolved]:
    """The ranked hits with relations applied (see the module docstring). ``read``: records
    the caller already read from ``view`` in its current state, by id (ignored under
    ``known_at``, which resolves with the records as they stood then)."""
    graph = _Graph(view, space, known_at, read)
    reference = now if as_of is None else as_of
    heads = {i: graph.head(i, reference) for i in ranked_ids}
    out: list[Resolved] = []
    placed: set[str] = set()
    for hit in ranked_ids:
        head = heads[hit]
        if head in placed:
            continue
        older = tuple(graph.predecessors(head))
        partners = tuple(o for o in graph.open_contradictions(head, reference))
        markers = _markers(corrected=bool(older), contradicted=bool(partners))
        out.append(Resolved(head, markers, older, partners, None, hit if hit != head else None))
        placed.add(head)
        rationale = _rationale(graph, head, ranked_ids, heads, placed, include_history)
        if rationale is not None:
            out.append(Resolved(rationale, (Marker.HISTORICAL_RATIONALE.value,), superseded_by=head))
            placed.add(rationale)
        for other in partners:
            if other in placed:
                continue
            # A partner that did not match itself is brought in beside the hit that did.
            its_older = tuple(graph.predecessors(other))
            its_markers = _markers(corrected=bool(its_older), contradicted=True)
            out.append(Resolved(other, its_markers, its_older, (head,), None, None if other in heads else hit))
            placed.add(other)
    return out


def _markers(*, corrected: bool, contradicted: bool) -> tuple[str, ...]:
    found = []
    if corrected:
        found.append(Marker.CORRECTED.value)
    if contradicted:
        found.append(Marker.CONTRADICTED.value)
    return tuple(found)


def _rationale(graph: _Graph, head: str, ranked_ids, heads, placed, include_history: bool) -> str | None:
    """The one replaced hit that may follow ``head`` as history: a direct predecessor
    first (best-ranked), then — only with ``include_history`` — any replaced hit."""
    replaced = [h for h in ranked_ids if h != head and heads[h] == head and h not in placed]
    direct = {r.to_id: r.role for r in graph.edges(head) if r.from_id == head and r.role in CHAIN}
    for hit in replaced:
        if hit in direct and (include_history or _decision_pair(graph, head, hit, direct[hit])):
            return hit
    if include_history and replaced:
        return replaced[0]
    return None


def _decision_pair(graph: _Graph, newer_id: str, older_id: str, role: Role) -> bool:
    """A decision superseded (changed, not corrected as wrong) by a decision: its
    rationale explains a past choice."""
    newer, older = graph.memory(newer_id), graph.memory(older_id)
    return (
        role is Role.SUPERSEDES
        and newer is not None
        and older is not None
        and newer.kind is Kind.DECISION
        and older.kind is Kind.DECISION
    )
