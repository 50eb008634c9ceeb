"""Fixtures for ``cairn ui``: ``ui`` a real server on a loopback port over a temporary
database with a fixed clock; ``ui_token`` the same with ``$CAIRN_UI_TOKEN`` configured;
``ui_policies`` the same started with retention policies (``--retention``; helpers in
:mod:`web.uikit`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from web.uikit import POLICIES, TOKEN, UI, serve


@pytest.fixture
def ui(db_path: Path) -> Iterator[UI]:
    yield from serve(db_path)


@pytest.fixture
def ui_token(db_path: Path) -> Iterator[UI]:
    """A server with ``$CAIRN_UI_TOKEN`` configured (bearer access for scripts)."""
    yield from serve(db_path, token=TOKEN)


@pytest.fixture
def ui_policies(db_path: Path) -> Iterator[UI]:
    """A server started with retention policies declared (``cairn ui --retention FILE``)."""
    yield from serve(db_path, policies=POLICIES)
