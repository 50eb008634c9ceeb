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


@dataclass(frozen=True, slots=True)
class Record:
    """What a policy reads of a record (the store reads these without decoding records)."""

    id: str
    kind: str
    status: str
    revision: int
    pinned: bool
    purged: bool
    at: float  # evidence time, else creation time, in POSIX seconds

    @classmethod
    def of(cls, m: Memory) -> Record:
        return cls(m.id, m.kind.value, m.status.value, m.revision, m.pinned, m.purged_at is not None,
                   (m.evidence.at or m.created_at).timestamp())


OUTSIDE = frozenset({Status.RETIRED.value, Status.FORGOTTEN.value})


def eligible(memory: Memory | Record) -> bool:
    """Pinned, forgotten, purged and already retired records are outside every policy."""
    r = memory if isinstance(memory, Record) else Record.of(memory)
    return not (r.pinned or r.purged or r.status in OUTSIDE)


def scope(policies: Iterable[Policy]) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None]:
    """The kinds and the statuses any of ``policies`` can match (None: any), so that only
    those records are read."""
    policies = list(policies)
    kinds = None if any(p.kind is None for p in policies) else tuple(sorted({p.kind.value for p in policies if p.kind}))
    statuses = (None if any(p.status is None for p in policies)
                else tuple(sorted({p.status.value for p in policies if p.status})))
    return kinds, statuses


def matches(policies: Iterable[Policy], records: Iterable[Record], now: datetime, used: set[str]) -> list[Match]:
    """Each eligible record the first matching policy retires, with the reason."""
    rules = [(p, p.kind.value if p.kind else None, p.status.value if p.status else None,
              (now - timedelta(days=p.older_than_days)).timestamp()) for p in policies]
    out = []
    for r in records:
        if not eligible(r):
            continue
        for p, kind, status, cutoff in rules:
            if (kind is not None and r.kind != kind) or (status is not None and r.status != status) or r.at > cutoff:
                continue
            if p.no_use_report and r.id in used:
                continue
            out.append(Match(r.id, p.name, _why(p, r, now), r.revision))
            break
    return out


def _why(p: Policy, r: Record, now: datetime) -> str:
    parts = [r.kind, r.status, f"{int((now.timestamp() - r.at) // 86400)} days old (> {p.older_than_days:g})"]
    if p.no_use_report:
        parts.append("never reported used")
    return ", ".join(parts)
