"""Builders of learning batches (one source and the claims proposed from it) and of
times relative to ``T0``, the suite's fixed clock."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta
from typing import Any

from testkit import NOW

T0 = NOW
_ids = itertools.count(1)


def day(n: float) -> datetime:
    """T0 plus ``n`` days."""
    return T0 + timedelta(days=n)


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def source(
    text: str, *, kind: str = "summary", at: datetime | None = None, origin: str = "acme", id: str | None = None, **extra: Any
) -> dict[str, Any]:
    doc = {"id": id or f"src-{next(_ids)}", "text": text, "kind": kind, "origin": origin, **extra}
    if at is not None:
        doc["at"] = iso(at)
    return doc


def claim(content: str, *, kind: str = "fact", replaces: str | None = None, aliases: list[str] | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {"kind": kind, "content": content}
    if replaces:
        doc["replaces"] = replaces
    if aliases:
        doc["aliases"] = aliases
    return doc


def batch(src: dict[str, Any], *claims: dict[str, Any]) -> dict[str, Any]:
    return {"source": src, "claims": list(claims)}
