"""Fixtures of the benchmark tests. The LoCoMo file is read where the harness expects it
(``../shared/data/locomo10.json`` beside the repository) or from ``$CAIRN_LOCOMO``;
tests that need it are skipped, saying why, when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cairn.bench import locomo


@pytest.fixture(scope="session")
def locomo_path() -> Path:
    candidates = [Path(os.environ["CAIRN_LOCOMO"])] if os.environ.get("CAIRN_LOCOMO") else []
    candidates.append(locomo.DEFAULT_DATA)  # shared/ beside the clone, as CI lays it out
    for path in candidates:
        if path.is_file():
            return path
    pytest.skip(f"LoCoMo data not found (looked at {', '.join(map(str, candidates))})")
