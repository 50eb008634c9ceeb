"""Fixtures of the ingest tests: small transcript files written on the fly."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from ingest_samples import TURNS, jsonl, locomo_conversation

_spec = importlib.util.spec_from_file_location("cairn_root_conftest", Path(__file__).parents[1] / "conftest.py")
_root = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_root)


@pytest.fixture
def fingerprint(db_path):
    """``fingerprint()``: the root conftest's digest of every row of the test database."""
    return lambda: _root.db_fingerprint(db_path)


@pytest.fixture
def transcript(tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text(jsonl(*TURNS), encoding="utf-8")
    return path


@pytest.fixture
def locomo_file(tmp_path):
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([locomo_conversation("conv-a"), locomo_conversation("conv-b", "Cy", "Di")]), encoding="utf-8")
    return path
