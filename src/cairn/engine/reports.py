"""Use reports: what the agent did with a recall's results, joined to the recall's trace.

``report(trace, verdict, refs)`` stores one event (``data["use_report"]``) holding the
trace id, the verdict (``used`` / ``unused`` / ``wrong``), the full ids it names and the
mechanical failure class of each, plus the trace's lane. Every ref must be a record the
trace selected: a report names what the recall returned. A trace that does not exist (or
has been pruned, or is older than the trace retention window) is refused; nothing is
written. Reports carry ids and classes only: no query and no memory text.

Failure classes (mechanical, from the store's state at report time):

* ``stale``: ``wrong`` on a record that has since been corrected or superseded, or that is
  no longer active;
* ``disputed``: ``wrong`` on a record never corrected;
* ``irrelevant-digest``: ``unused`` naming every record the recall selected;
* ``unused``: ``unused`` on some of them; ``used`` gets no class.

Reports never change ranking: nothing in recall reads them.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from .. import wire
from ..errors import InvalidInput, NotFound, Refused
from ..model import Actor, BadTime, Event, Memory, Role, parse_time
from ..recall.traces import RETENTION_DAYS, get_trace
from ..store import ReadView
from .scope import Part
from .trust import unchanged
from .validate import as_time

VERDICTS = ("used", "unused", "wrong")
AGE_BUCKETS = ((7, "<7d"), (30, "7-30d"), (365, "30-365d"))


@dataclass(frozen=True, slots=True)
class Reported:
    trace: str
    verdict: str
    classes: dict[str, str | None]
    event: Event

    def to_dict(self) -> wire.UseReportDoc:
        """The wire form (``report --json``, ``memory_report_use``)."""
        return {"trace": self.trace, "verdict": self.verdict, "event": self.event.id,
                "refs": [{"id": i, "failure_class": c} for i, c in self.classes.items()]}


class Reports(Part):
    retention_days: float = RETENTION_DAYS

    def report(self, trace_id: str, verdict: str, refs: Sequence[str], *, actor: Actor = Actor.MANUAL) -> Reported:
        if verdict not in VERDICTS:
            raise InvalidInput("verdict", f"{verdict!r} (one of: {', '.join(VERDICTS)})")
        if not isinstance(trace_id, str) or not trace_id:
            raise InvalidInput("trace", "must be a trace id (printed by `cairn recall --json` as trace)")
        if isinstance(refs, str) or not refs or not all(isinstance(r, str) and r for r in refs):
            raise InvalidInput("refs", "name at least one record the recall returned")
        with self.scope.mutation(actor, f"use report {verdict}") as m:
            trace = self._trace(m.tx, trace_id)
            selected: list[str] = [s for s in trace.get("selected") or () if isinstance(s, str)]
            ids = [self._in_trace(ref, selected, trace_id) for ref in refs]
            memories = m.tx.get_memories(self.space, ids)
            classes = {i: self._class(m.tx, memories.get(i), verdict, ids, selected) for i in dict.fromkeys(ids)}
            for i in classes:
                if i in memories:
                    m.changes.append(unchanged(memories[i]))
            m.data["use_report"] = {"trace": trace_id, "verdict": verdict, "refs": list(classes),
                                    "classes": classes, "lane": trace.get("lane", "claims"),
                                    "at": self.now().isoformat()}
        if m.event is None:
            raise Refused(f"the records trace {trace_id} returned are no longer readable")
        return Reported(trace_id, verdict, classes, m.event)

    def _trace(self, view: ReadView, trace_id: str) -> dict:
        trace = get_trace(view, self.space, trace_id)
        if trace is None:
            raise NotFound(f"recall trace (traces are kept {self.retention_days:g} days)", trace_id)
        try:
            taken = parse_time(str(trace.get("at")))
        except (BadTime, ValueError):
            raise Refused(f"recall trace {trace_id} has no readable time") from None
        if taken < self.now() - timedelta(days=self.retention_days):
            raise Refused(f"recall trace {trace_id} has expired (older than {self.retention_days:g} days)")
        return trace

    @staticmethod
    def _in_trace(ref: str, selected: list[str], trace_id: str) -> str:
        found = [s for s in selected if s == ref or (len(ref) >= 6 and s.startswith(ref))]
        if len(found) != 1:
            raise InvalidInput("refs", f"{ref!r} is not {'one' if not found else 'a unique prefix'} of the records"
                               f" trace {trace_id} returned")
        return found[0]

    def _class(self, view: ReadView, memory: Memory | None, verdict: str, ids: list[str], selected: list[str]) -> str | None:
        if verdict == "used":
            return None
        if verdict == "unused":
            return "irrelevant-digest" if set(selected) <= set(ids) else "unused"
        corrected = memory is None or not memory.active or any(
            r.to_id == memory.id and r.role in (Role.CORRECTS, Role.SUPERSEDES)
            for r in view.relations(self.space, record_id=memory.id))
        return "stale" if corrected else "disputed"

    def summary(self, since: datetime | str | None = None) -> wire.ReportSummaryDoc:
        """Use rate by lane, kind, age and evidence basis, from every report since ``since``."""
        start = as_time(since, "since")
        events = self.store.events(self.space, newest_first=False)
        undone = {e.data.get("undoes") for e in events}
        rows: list[tuple[str, dict, str]] = []
        for e in events:
            u = e.data.get("use_report")
            if isinstance(u, dict) and e.id not in undone and (start is None or e.at >= start):
                rows += [(i, u, str(u.get("verdict"))) for i in u.get("refs") or () if isinstance(i, str)]
        memories = self.store.get_memories(self.space, sorted({i for i, _, _ in rows}))
        groups: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
        classes: Counter = Counter()
        for i, u, verdict in rows:
            m = memories.get(i)
            keys = {"lane": str(u.get("lane", "claims")),
                    "kind": m.kind.value if m else "unreadable",
                    "age": _age(m, datetime.fromisoformat(u["at"])) if m and u.get("at") else "unknown",
                    "basis": m.evidence.basis.value if m else "unreadable"}
            for axis, key in keys.items():
                groups[axis][key][verdict] += 1
            cls = (u.get("classes") or {}).get(i)
            if cls:
                classes[cls] += 1
        return cast(wire.ReportSummaryDoc, {"since": None if start is None else start.isoformat(), "reports": len(rows),
                "failure_classes": dict(sorted(classes.items())),
                **{axis: {k: _rates(c) for k, c in sorted(groups[axis].items())} for axis in ("lane", "kind", "age", "basis")}})


def _age(m: Memory, at: datetime) -> str:
    days = (at - (m.evidence.at or m.created_at)).days
    return next((name for limit, name in AGE_BUCKETS if days < limit), ">365d")


def _rates(c: Counter) -> dict:
    total = sum(c.values())
    return {"reports": total, **{v: c[v] for v in VERDICTS}, "use_rate": round(c["used"] / total, 3) if total else None}
