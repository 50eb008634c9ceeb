"""Helpers shared by the whole suite, imported as an ordinary package (``tests/`` is the one
``pythonpath`` entry): the fixed clock and the in-process CLI result used by the root
conftest's fixtures, and a real-process CLI runner.

    testkit            NOW, Clock, CliResult, run_cli_process
    testkit.db         digests of a database file, to prove what an operation wrote
    testkit.batches    learning batches: sources, claims, day offsets from T0
    testkit.transcripts small conversations written by the tests themselves
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from typing import Any

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


class Clock:
    """A settable clock for the engine (``cairn.now()`` reads it)."""

    def __init__(self, at: datetime = NOW) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


class CliResult:
    """One in-process CLI run: exit code, stdout, stderr; ``json()`` parses stdout."""

    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def json(self) -> Any:
        return json.loads(self.out)


def run_cli_process(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the CLI as a separate OS process."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "cairn", *args], capture_output=True, text=True, env=full_env, timeout=timeout
    )


def timeless(doc: Any) -> Any:
    """``doc`` without the milliseconds a lane noted in it (keys ending in ``_ms``: the
    semantic lanes time their search and the load of their vectors): two runs of the same
    recall differ only there."""
    if isinstance(doc, dict):
        return {k: timeless(v) for k, v in doc.items() if not k.endswith("_ms")}
    if isinstance(doc, list):
        return [timeless(v) for v in doc]
    return doc
