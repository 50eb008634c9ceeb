"""Fixtures of the ingest tests: small transcript files written on the fly."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from testkit.db import db_fingerprint
from testkit.transcripts import TURNS, jsonl, locomo_conversation


@pytest.fixture
def fingerprint(db_path: Path) -> Callable[[], str]:
    """``fingerprint()``: the digest of every row of the test database."""
    return lambda: db_fingerprint(db_path)


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    path = tmp_path / "chat.jsonl"
    path.write_text(jsonl(*TURNS), encoding="utf-8")
    return path


@pytest.fixture
def locomo_file(tmp_path: Path) -> Path:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([locomo_conversation("conv-a"), locomo_conversation("conv-b", "Cy", "Di")]), encoding="utf-8")
    return path
