"""Fixtures of the benchmark tests. The LoCoMo file is read from ``$CAIRN_LOCOMO`` or where
the harness looks by default (``cairn.bench.locomo.DEFAULT_DATA``, outside the repository:
the data is never copied into it); tests that need it are skipped, saying why, when it is
absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cairn.bench import locomo


@pytest.fixture(scope="session")
def locomo_path() -> Path:
    candidates = [Path(os.environ["CAIRN_LOCOMO"])] if os.environ.get("CAIRN_LOCOMO") else []
    candidates.append(locomo.DEFAULT_DATA)
    for path in candidates:
        if path.is_file():
            return path
    pytest.skip(f"LoCoMo data not found (looked at {', '.join(map(str, candidates))})")
