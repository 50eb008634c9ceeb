"""The refusals drill: commands that Cairn refuses must leave every file as it was —
content, permission bits, journal mode, WAL side files — and create nothing.

Each scenario is a path Cairn must not adopt (a folder, a text file, another program's
SQLite database, a newer Cairn's database in rollback mode, a file whose header is
damaged, a missing file for commands that do not create, a missing folder for commands
that do) or an input Cairn must refuse on its own database. Every command is run on
every scenario through the CLI entry point; the folder holding the path is compared
before and after."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ...store.sqlite.faults import foreign_database, from_a_newer_cairn
from . import file_state

COMMANDS: list[tuple[str, ...]] = [
    ("status",), ("list",), ("show", "abcdef"), ("history",), ("export",), ("recall", "debian"),
    ("search", "debian"), ("explain", "debian"), ("timeline", "debian"),
    ("remember", "The staging host runs Debian 12", "--kind", "fact"),
    ("forget", "abcdef"), ("pin", "abcdef"), ("undo", "abcdef"), ("correct", "abcdef", "The host runs Debian 13"),
    ("feedback", "abcdef", "useful"), ("relate", "abcdef", "corrects", "bcdefa"),
]


@dataclass
class RefusalResult:
    runs: int = 0
    refused: int = 0
    changed: list[str] = field(default_factory=list)
    not_refused: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.changed and not self.not_refused

    def lines(self) -> list[str]:
        out = [f"refused commands: {self.refused}/{self.runs}; refused commands that changed a file: {len(self.changed)}"]
        out += [f"  changed: {c}" for c in self.changed[:20]]
        out += [f"  not refused: {c}" for c in self.not_refused[:20]]
        return out


def _cli(argv: list[str]) -> int:
    from ...cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            return main(argv)
        except SystemExit as exit_:
            return int(exit_.code or 0)


def _folder(base: Path) -> Path:
    path = base / "d"
    path.mkdir()
    os.chmod(path, 0o755)
    return path


def _text(base: Path) -> Path:
    path = base / "notes.txt"
    path.write_text("shopping list\n")
    os.chmod(path, 0o644)
    return path


def _foreign(base: Path) -> Path:
    path = base / "other.sqlite"
    foreign_database(path)
    os.chmod(path, 0o644)
    return path


def _newer(base: Path) -> Path:
    from ...engine import Cairn

    path = base / "future.db"
    with Cairn(path) as cairn:
        cairn.remember("The staging host runs Debian 11", kind="fact")
    from_a_newer_cairn(path)
    os.chmod(path, 0o644)
    return path


def _damaged(base: Path) -> Path:
    path = base / "damaged.db"
    path.write_bytes(b"SQLite format 3\x00" + os.urandom(4096))
    os.chmod(path, 0o644)
    return path


def _missing(base: Path) -> Path:
    return base / "new" / "nested" / "c.db"


SCENARIOS: dict[str, Callable[[Path], Path]] = {
    "folder": _folder, "text file": _text, "foreign sqlite": _foreign, "newer schema": _newer,
    "damaged header": _damaged, "missing folder": _missing,
}
BAD_INPUTS: list[tuple[str, ...]] = [
    ("remember", "no", "--kind", "fact"), ("remember", "A valid claim text", "--kind", "nonsense"),
    ("remember", "caf\udce9 opens", "--kind", "fact"), ("history", "--limit", "99999999999999999999"),
    ("recall", "debian", "--as-of", "9999-12-31T23:59:59-01:00"), ("show", "a" * 60_000), ("import", "/nonexistent/x"),
    ("export", "/nonexistent/dir/out.jsonl"), ("forget", "zzzzzzzz"), ("undo", "zzzzzzzz"),
]


def run(rounds: int = 1) -> RefusalResult:
    from ...engine import Cairn

    result = RefusalResult()
    for _ in range(rounds):
        for name, make in SCENARIOS.items():
            for command in COMMANDS:
                with tempfile.TemporaryDirectory() as tmp:
                    path = make(Path(tmp))
                    before = (file_state(tmp), file_state(path))
                    code = _cli(["--db", str(path), *command])
                    result.runs += 1
                    if code != 1:
                        result.not_refused.append(f"{name}: {command[0]} exit {code}")
                        continue
                    result.refused += 1
                    if (file_state(tmp), file_state(path)) != before:
                        result.changed.append(f"{name}: {command[0]}")
        # Cairn's own database and inputs it must refuse: the store stays byte-identical.
        for command in BAD_INPUTS:
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "own.db"
                with Cairn(path) as cairn:
                    cairn.remember("The staging host runs Debian 11", kind="fact")
                before = file_state(path)
                code = _cli(["--db", str(path), *command])
                result.runs += 1
                if code != 1:
                    result.not_refused.append(f"own db: {command[0]} exit {code}")
                    continue
                result.refused += 1
                if file_state(path)[:3] != before[:3]:
                    result.changed.append(f"own db: {' '.join(command)[:60]}")
    return result
