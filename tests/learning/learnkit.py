"""Builders shared by the evidence/authority tests (imported as ``learnkit``)."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
_ids = itertools.count(1)


def day(n: float) -> datetime:
    """T0 plus ``n`` days."""
    return T0 + timedelta(days=n)


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def source(text: str, *, kind: str = "summary", at: datetime | None = None, origin: str = "acme", id: str | None = None, **extra) -> dict:
    doc = {"id": id or f"src-{next(_ids)}", "text": text, "kind": kind, "origin": origin, **extra}
    if at is not None:
        doc["at"] = iso(at)
    return doc


def claim(content: str, *, kind: str = "fact", replaces: str | None = None, aliases: list[str] | None = None) -> dict:
    doc = {"kind": kind, "content": content}
    if replaces:
        doc["replaces"] = replaces
    if aliases:
        doc["aliases"] = aliases
    return doc


def batch(src: dict, *claims: dict) -> dict:
    return {"source": src, "claims": list(claims)}


def _root_conftest():
    """The suite's shared conftest, loaded by path: ``conftest`` here names this folder's."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "conftest.py"
    spec = importlib.util.spec_from_file_location("cairn_suite_conftest", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


db_fingerprint = _root_conftest().db_fingerprint
