"""Fixtures of the archive tests: transcripts written on the fly and an archived source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn import Cairn
from testkit.archive import SESSION, TURNS, claude_lines, jsonl, store_root


@pytest.fixture
def chat(tmp_path: Path) -> Path:
    path = tmp_path / "sources" / "survey chat.jsonl"
    path.parent.mkdir()
    path.write_bytes(jsonl(*TURNS))
    return path


@pytest.fixture
def claude(tmp_path: Path) -> Path:
    path = tmp_path / "sources" / f"{SESSION}.jsonl"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(b"".join(json.dumps(o).encode() + b"\n" for o in claude_lines()))
    return path


@pytest.fixture
def archived(cairn: Cairn, chat: Path):
    """(entry, absolute path of its preserved copy) of ``chat``, archived."""
    entry = cairn.archive_add(chat).entry
    return entry, store_root(cairn) / entry.preserved_path


