"""Fixtures of the hardening tests: the CLI run in-process against any path."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout

import pytest

from cairn.cli import main
from testkit import CliResult


@pytest.fixture
def run() -> Callable[..., CliResult]:
    """``run(*argv, stdin=None)``: the CLI in-process with exactly these arguments."""

    def call(*args: str, stdin: str | None = None) -> CliResult:
        out, err = io.StringIO(), io.StringIO()
        old_stdin = sys.stdin
        if stdin is not None:
            sys.stdin = io.StringIO(stdin)
        try:
            with redirect_stdout(out), redirect_stderr(err):
                try:
                    code = main(list(args))
                except SystemExit as exit_:
                    code = int(exit_.code or 0)
        finally:
            sys.stdin = old_stdin
        return CliResult(code, out.getvalue(), err.getvalue())

    return call


def one_line_refusal(result: CliResult) -> bool:
    """Exit 1 with exactly one line on stderr, starting "cairn: ", and no internal error."""
    lines = result.err.strip().splitlines()
    return (
        result.code == 1
        and len(lines) == 1
        and lines[0].startswith("cairn: ")
        and "internal error" not in result.err
        and "Traceback" not in result.err
    )
