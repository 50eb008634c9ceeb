"""Retention policies: which records a declared policy retires, and why. Pure; no writes.

A policy file (TOML) declares policies for a space::

    [[policy]]
    name = "stale project state"
    kind = "project_state"        # optional: fact, preference, decision, project_state, episode
    status = "conflicted"         # optional: only records in this status
    older_than_days = 30          # required: evidence time (else creation) before now - N days
    no_use_report = true          # optional: only records no use report marked used

Retired is not deleted: a retired record leaves recall candidates and comes back under
``search`` and ``--include-retired``. Pinned, forgotten, purged and already retired records
are outside every policy. Nothing is retired without an explicit ``apply`` of a plan.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from ..model import Kind, Memory, Status

KEYS = frozenset({"name", "kind", "status", "older_than_days", "no_use_report"})


class PolicyError(ValueError):
    """A policy file that cannot be read; the message names the policy and the field."""


@dataclass(frozen=True, slots=True)
class Policy:
    name: str
    older_than_days: float
    kind: Kind | None = None
    status: Status | None = None
    no_use_report: bool = False


@dataclass(frozen=True, slots=True)
class Match:
    id: str
    policy: str
    reason: str
    revision: int


def parse_policies(text: str) -> list[Policy]:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise PolicyError(f"not TOML: {err}") from None
    rows = doc.get("policy")
    if not isinstance(rows, list) or not rows:
        raise PolicyError("no [[policy]] entries")
    return [_policy(i, row) for i, row in enumerate(rows, 1)]


def _policy(i: int, row: object) -> Policy:
    if not isinstance(row, Mapping):
        raise PolicyError(f"policy {i} is not a table")
    unknown = set(row) - KEYS
    if unknown:
        raise PolicyError(f"policy {i}: unknown field(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(KEYS))})")
    name = row.get("name", f"policy {i}")
    days = row.get("older_than_days")
    if not isinstance(name, str) or not name.strip():
        raise PolicyError(f"policy {i}: name must be a non-empty string")
    if isinstance(days, bool) or not isinstance(days, (int, float)) or not 0 < days <= 36_500:
        raise PolicyError(f"policy {name!r}: older_than_days must be a number of days (1-36500)")
    try:
        kind = Kind(row["kind"]) if "kind" in row else None
        status = Status(row["status"]) if "status" in row else None
    except ValueError as err:
        raise PolicyError(f"policy {name!r}: {err}") from None
    if status in (Status.RETIRED, Status.FORGOTTEN):
        raise PolicyError(f"policy {name!r}: status {status.value} is outside every policy")
    no_use = row.get("no_use_report", False)
    if not isinstance(no_use, bool):
        raise PolicyError(f"policy {name!r}: no_use_report must be true or false")
    return Policy(name, float(days), kind, status, no_use)


def eligible(memory: Memory) -> bool:
    """Pinned, forgotten, purged and already retired records are outside every policy."""
    return not (memory.pinned or memory.purged_at is not None or memory.status in (Status.RETIRED, Status.FORGOTTEN))


def matches(policies: Iterable[Policy], memories: Iterable[Memory], now: datetime, used: set[str]) -> list[Match]:
    """Each eligible record the first matching policy retires, with the reason."""
    policies = list(policies)
    out = []
    for m in memories:
        if not eligible(m):
            continue
        for p in policies:
            reason = _why(p, m, now, used)
            if reason is not None:
                out.append(Match(m.id, p.name, reason, m.revision))
                break
    return out


def _why(p: Policy, m: Memory, now: datetime, used: set[str]) -> str | None:
    if p.kind is not None and m.kind is not p.kind:
        return None
    if p.status is not None and m.status is not p.status:
        return None
    when = m.evidence.at or m.created_at
    if when > now - timedelta(days=p.older_than_days):
        return None
    if p.no_use_report and m.id in used:
        return None
    parts = [m.kind.value, m.status.value, f"{(now - when).days} days old (> {p.older_than_days:g})"]
    if p.no_use_report:
        parts.append("never reported used")
    return ", ".join(parts)
