"""Maintenance and retention on the facade: recommendations, plans, and applying them.

Both follow one shape: a read-only pass returns a **plan** (a JSON document a person can
read and edit); applying a plan is a separate, explicit call that writes **one event**,
undoable with ``cairn undo``. A plan names its space and kind; a plan for another space or
of another kind, or one that does not parse, is refused before anything is written.

Maintenance ops are recorded in the event's ``data["maintenance"]`` (stability, decay and
reviews live in the event log, see :mod:`.trust`); ``mark_contested_suggestion`` also
quarantines the record (status ``conflicted``). ``auto=True`` applies only the low-risk
ops: confidence decay and stability increases.

Retention retires (status ``retired``), never deletes. Applying a retention plan skips any
record that changed since the plan was made (its revision moved) or that a policy no
longer covers (pinned since, forgotten), and counts it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, cast

from .. import wire
from ..errors import InvalidInput, Refused
from ..model import Actor, Event, Status
from ..policy import maintenance, retention
from ..store import RecordFacts
from .scope import Part
from .trust import LEDGER_REASONS, Ledger, record_state, unchanged

MAINTENANCE_PLAN = "cairn-maintenance-plan"
RETENTION_PLAN = "cairn-retention-plan"
ACTIVE = (Status.PROVISIONAL.value, Status.CONFIRMED.value)
CLAIMS = ("fact", "preference", "decision", "project_state")  # maintenance concerns claims, not episodes
OP_NAMES = frozenset({"review_memory", "decrease_stability", "mark_contested_suggestion", "increase_stability",
                      "flag_for_review", "review_due", "confidence_decay"})


@dataclass(frozen=True, slots=True)
class PlanApplied:
    applied: int
    skipped: int
    event: Event | None

    def to_dict(self) -> wire.PlanAppliedDoc:
        """The wire form (``maintain --apply --json``, ``retention apply --json``)."""
        return {"applied": self.applied, "skipped": self.skipped, "event": self.event.id if self.event else None}


class Maintaining(Part):
    # -- maintenance -------------------------------------------------------------------

    def maintenance_plan(self) -> wire.MaintenancePlanDoc:
        """Every recommendation for this space's active claims, as a plan document."""
        with self.store.snapshot() as view:
            ledger = Ledger(view.events_by_reason(self.space, LEDGER_REASONS))
            facts = view.record_facts(self.space, statuses=ACTIVE, kinds=CLAIMS)
        found = (record_state(f, ledger.state(f.id)) for f in facts)
        states = [s for s in found if s is not None]
        now = self.now()
        ops = maintenance.plan(states, now)
        return cast(wire.MaintenancePlanDoc, {"kind": MAINTENANCE_PLAN, "space": self.space, "created_at": now.isoformat(),
                                              "records": len(states), "ops": [op.to_dict() for op in ops]})

    def apply_maintenance(self, plan: object, *, auto: bool = False) -> PlanApplied:
        doc = self._plan(plan, MAINTENANCE_PLAN)
        ops = [_op(o) for o in doc["ops"]]
        chosen = [o for o in ops if not auto or o["op"] in maintenance.LOW_RISK]
        skipped = len(ops) - len(chosen)
        with self.scope.mutation(Actor.MANUAL, "maintain --auto" if auto else "maintain --apply") as m:
            found = m.tx.get_memories(self.space, sorted({o["id"] for o in chosen}))
            kept = [o for o in chosen if o["id"] in found]
            skipped += len(chosen) - len(kept)
            for i in dict.fromkeys(o["id"] for o in kept):
                memory = found[i]
                if any(o["op"] == "mark_contested_suggestion" for o in kept if o["id"] == i) and memory.active:
                    m.put(memory, replace(memory, status=Status.CONFLICTED, revision=memory.revision + 1,
                                          updated_at=self.now()))
                else:
                    m.changes.append(unchanged(memory))
            m.data["maintenance"] = {"auto": auto, "ops": kept}
        return PlanApplied(len(kept), skipped, m.event)

    # -- retention ---------------------------------------------------------------------

    def retention_plan(self, policies_text: str) -> wire.RetentionPlanDoc:
        """What each policy matches and why (reads only)."""
        try:
            policies = retention.parse_policies(policies_text)
        except retention.PolicyError as err:
            raise InvalidInput("policies", str(err)) from None
        kinds, statuses = retention.scope(policies)
        with self.store.snapshot() as view:
            ledger = Ledger(view.events_by_reason(self.space, LEDGER_REASONS))
            facts = view.record_facts(self.space, kinds=kinds, statuses=statuses)
        used = {i for i, s in ledger.states.items() if "used" in s.reports}
        records = [r for r in map(_retention_record, facts) if r is not None]
        now = self.now()
        found = retention.matches(policies, records, now, used)
        return {"kind": RETENTION_PLAN, "space": self.space, "created_at": now.isoformat(),
                "policies": [p.name for p in policies], "records": len(records),
                "matches": [{"id": f.id, "policy": f.policy, "reason": f.reason, "revision": f.revision} for f in found]}

    def apply_retention(self, plan: object) -> PlanApplied:
        doc = self._plan(plan, RETENTION_PLAN)
        rows = [_match(r) for r in doc["matches"]]
        applied = 0
        with self.scope.mutation(Actor.MANUAL, "retention apply") as m:
            found = m.tx.get_memories(self.space, sorted({r["id"] for r in rows}))
            for r in rows:
                memory = found.get(r["id"])
                if memory is None or memory.revision != r["revision"] or not retention.eligible(memory):
                    continue
                m.put_lifecycle(memory, replace(memory, status=Status.RETIRED, revision=memory.revision + 1,
                                                updated_at=self.now()))
                applied += 1
            m.data["retention"] = {"policies": doc.get("policies", []), "retired": applied}
        return PlanApplied(applied, len(rows) - applied, m.event)

    # -- helpers -----------------------------------------------------------------------

    def _plan(self, plan: object, kind: str) -> Mapping[str, Any]:
        if isinstance(plan, str):
            try:
                plan = json.loads(plan)
            except ValueError as err:
                raise InvalidInput("plan", f"not JSON: {err}") from None
        if not isinstance(plan, Mapping) or plan.get("kind") != kind:
            maker = "maintain" if kind == MAINTENANCE_PLAN else "retention plan"
            raise InvalidInput("plan", f"not a {kind} (make one with `cairn {maker}`)")
        if plan.get("space") != self.space:
            raise Refused(f"the plan is for space {plan.get('space')!r}, not {self.space!r}")
        if not isinstance(plan.get("ops" if kind == MAINTENANCE_PLAN else "matches"), list):
            raise InvalidInput("plan", "its list of operations is missing")
        return plan


def _retention_record(f: RecordFacts) -> retention.Record | None:
    at = f.evidence_at if f.evidence_at is not None else f.created_at
    if at is None:
        return None  # no readable time: no age to judge, so no policy retires it
    return retention.Record(f.id, f.kind, f.status, f.revision, f.pinned, f.purged, at)


def _op(o: object) -> dict:
    if not isinstance(o, Mapping) or o.get("op") not in OP_NAMES or not isinstance(o.get("id"), str):
        raise InvalidInput("plan", f"unreadable op {str(o)[:80]!r}")
    to = o.get("to")
    if to is not None and to not in maintenance.STABILITIES:
        raise InvalidInput("plan", f"unknown stability {to!r}")
    decay = o.get("decay", 0.0)
    if isinstance(decay, bool) or not isinstance(decay, (int, float)) or not 0 <= decay <= 1:
        raise InvalidInput("plan", f"decay {decay!r} is not between 0 and 1")
    return dict(o)


def _match(r: object) -> dict:
    if not isinstance(r, Mapping) or not isinstance(r.get("id"), str) or not isinstance(r.get("revision"), int):
        raise InvalidInput("plan", f"unreadable match {str(r)[:80]!r}")
    return dict(r)
