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
    # The default layout (shared/ beside the clone), then the one of this project's worktrees.
    candidates += [locomo.DEFAULT_DATA, Path("/work/shared/data/locomo10.json")]
    for path in candidates:
        if path.is_file():
            return path
    pytest.skip(f"LoCoMo data not found (looked at {', '.join(map(str, candidates))})")
