"""The fuzz drill: generated inputs through the CLI entry point (in-process) and the
Python API, then corrupted and malformed databases. The property: no traceback (an
exception escaping ``cairn.cli.main`` or a non-Cairn exception from the API) and no
"internal error" line, whatever the input; refusals are one line with exit 1.

Inputs are drawn from pools of edge values (empty, huge, non-UTF-8, control characters,
FTS and SQL syntax, numbers beyond SQLite's integers, dates at the calendar's edges,
deeply nested or malformed JSON files, folders and missing files given as files)
combined by every command's argument shape, with a fixed seed so that a failure can be
replayed (``--seed``)."""

from __future__ import annotations

import contextlib
import inspect
import io
import json
import os
import random
import shutil
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ...store.sqlite.faults import malform_rows

TEXTS = [
    "The staging host runs Debian 12", "we deploy on fridays", "", " ", "a", "x" * 801, "y" * 20_001,
    "caf\udce9 open", "nul\x00byte", "\x1b[31mred\x1b[0m", "emoji 🎉 party", "עברית עם English", "--", "-1",
    "'; DROP " + "TABLE memories;--", '"unbalanced quote', "NEAR(a b)", "*", "a OR b AND NOT c", "content:evil", "^start",
    "password=Hunter2isBack", "\ud800", "tab\tseparated\nnewline", "ＦＵＬＬＷＩＤＴＨ", "0" * 600,
]
IDS = ["", "abc", "abcdef", "a" * 60_000, "%", "_____", "ABCDEF", "../../etc", "zzzzzzzz", "\udce9\udce9\udce9", "12345678"]
NUMBERS = ["0", "-1", "1", "3", "99999999999999999999", "1e309", "nan", "inf", "abc", "2.5", "", "٣"]
DATES = ["2026-01-01", "2026-10-01T10:00:00Z", "9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+01:00", "not a date",
         "2026-02-30", "", "2026-01-01T25:00", "+002026-01-01", "0099-12-31", "1970-01-01T00:00:00Z"]
KINDS = ["fact", "preference", "decision", "procedure", "Fact", "", "nonsense", "episode", "FACT"]
VERDICTS = ["useful", "unhelpful", "accurate", "incorrect", "Useful", "", "maybe"]
ROLES = ["corrects", "supersedes", "contradicts", "qualifies", "", "likes"]


def _files(base: Path) -> list[str]:
    """Paths of files of every troublesome kind, written once per run."""
    base.mkdir(parents=True, exist_ok=True)

    def write(name: str, data: str | bytes) -> str:
        path = base / name
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"))
        return str(path)

    folder = base / "folder"
    folder.mkdir(exist_ok=True)
    batch = {"source": {"id": "s1", "kind": "summary", "text": "ops sync notes", "origin": "ops"},
             "claims": [{"kind": "fact", "content": "The cache layer uses Redis 7"}]}
    return [
        str(base / "missing.json"), str(folder), write("empty", ""), write("binary", os.urandom(256)),
        write("deep.json", '{"source": ' + "[" * 50_000 + "]" * 50_000 + "}"),
        write("surrogate.json", '{"source": {"id": "s\\udce9", "kind": "summary", "text": "x"}, "claims": []}'),
        write("batch.json", json.dumps(batch)), write("list.json", "[]"), write("obj.json", "{}"),
        write("bad.jsonl", '{"id": "t1", "speaker": "a", "text": "hi", "time": "2026-01-01T00:00:00Z"}\n{oops\n'),
        write("turns.jsonl", '{"id": "t1", "speaker": "ana", "text": "we ship on monday", "time": "2026-10-01T10:00:00Z"}\n'),
        write("export.jsonl", '{"type": "memory", "data": {"id": "x"}}\n'),
        write("huge-int.json", '{"source": {"id": "s", "kind": "summary", "text": "x", "at": 1e999}, "claims": []}'),
        write("latin1.txt", "caf\xe9".encode("latin-1")),
    ]


def _argv(rng: random.Random, files: list[str], ids: list[str]) -> list[str]:
    """One generated command line (without --db)."""
    pick = rng.choice
    some_id = lambda: pick(ids + IDS)  # noqa: E731 - a pool of known ids and edge values
    shapes: list[Callable[[], list[str]]] = [
        lambda: ["remember", pick(TEXTS), "--kind", pick(KINDS)]
        + pick([[], ["--origin", pick(TEXTS)], ["--alias", pick(TEXTS)], ["--source", pick(TEXTS)], ["--at", pick(DATES)],
                ["--valid-from", pick(DATES), "--valid-to", pick(DATES)], ["--corrects", some_id()], ["--pin"]]),
        lambda: ["show", some_id()],
        lambda: ["list"] + pick([[], ["--page", pick(NUMBERS)], ["--kind", pick(KINDS)], ["--status", pick(KINDS)]]),
        lambda: ["history"] + pick([[], [some_id()], ["--limit", pick(NUMBERS)]]),
        lambda: [pick(["recall", "search", "explain"]), pick(TEXTS)]
        + pick([[], ["--limit", pick(NUMBERS)], ["--budget", pick(NUMBERS)], ["--as-of", pick(DATES)],
                ["--known-at", pick(DATES)], ["--lane", pick(["claims", "episodes", "all", "nope"])]]),
        lambda: ["timeline", pick(TEXTS)] + pick([[], ["--limit", pick(NUMBERS)]]),
        lambda: ["forget", some_id()] + pick([[], ["--purge"]]),
        lambda: [pick(["pin", "unpin", "undo"]), some_id()],
        lambda: ["correct", some_id(), pick(TEXTS)],
        lambda: ["feedback", some_id(), pick(VERDICTS)] + pick([[], ["--source", pick(TEXTS)]]),
        lambda: ["relate", some_id(), pick(ROLES), some_id()],
        lambda: [pick(["apply", "candidates"]), pick(files)],
        lambda: ["ingest", pick(files)]
        + pick([[], ["--format", "locomo"], ["--origin", pick(TEXTS)], ["--sample", pick(NUMBERS)]]),
        lambda: ["import", pick(files)],
        lambda: ["export"] + pick([[], [pick(files)], [pick(files) + ".out"]]),
        lambda: ["status"],
    ]
    argv = pick(shapes)()
    prefix = pick([[], ["--json"], ["--now", pick(DATES)], ["--space", pick(["default", "other", "", "bad space", "x" * 70])]])
    return prefix + argv


@dataclass
class FuzzResult:
    cli_inputs: int = 0
    api_calls: int = 0
    corrupted_inputs: int = 0
    exits: dict[int, int] = field(default_factory=dict)
    tracebacks: list[str] = field(default_factory=list)
    internal_errors: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.cli_inputs + self.api_calls + self.corrupted_inputs

    @property
    def ok(self) -> bool:
        return not self.tracebacks and not self.internal_errors

    def lines(self) -> list[str]:
        out = [f"inputs: {self.total} ({self.cli_inputs} CLI, {self.api_calls} API, {self.corrupted_inputs} on corrupted"
               f" or malformed databases); exits {dict(sorted(self.exits.items()))}",
               f"tracebacks: {len(self.tracebacks)}  internal errors: {len(self.internal_errors)}"]
        out += [f"  traceback: {t}" for t in self.tracebacks[:10]]
        out += [f"  internal: {t}" for t in self.internal_errors[:10]]
        return out


def _call_cli(argv: list[str], result: FuzzResult, stdin: str = "") -> int:
    from ...cli import main

    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except SystemExit as exit_:
        code = int(exit_.code) if isinstance(exit_.code, int) else 2
    except BaseException as exc:  # noqa: BLE001 - the drill counts what escapes
        if isinstance(exc, KeyboardInterrupt):
            raise
        result.tracebacks.append(f"{_shown(argv)}: {type(exc).__name__}: {str(exc)[:120]}")
        return -1
    if "internal error" in err.getvalue() or "Traceback" in err.getvalue():
        result.internal_errors.append(f"{_shown(argv)}: {err.getvalue().strip()[:160]}")
    result.exits[code] = result.exits.get(code, 0) + 1
    return code


def _shown(argv: list[str]) -> str:
    return repr([a if len(a) < 40 else a[:37] + "…" for a in argv])


API_VALUES: list[Any] = [None, True, 1.5, -1, 0, 2**70, "", "x" * 70_000, b"bytes", [], {}, [1], ["abc"], "abcdef",
                         "fact", "useful", "corrects", "2026-01-01", datetime(1, 1, 1, tzinfo=UTC), "caf\udce9", float("nan"),
                         [("corrects", "abcdef")], "The staging host runs Debian 12"]
API_METHODS = ["get", "resolve_id", "remember", "show", "list", "forget", "pin", "unpin", "history", "undo", "export",
               "import_", "apply", "mentioned_by", "correct", "feedback", "parse_feedback_message", "recall", "search",
               "explain", "ingest", "relate", "timeline", "quality"]


def _call_api(cairn, rng: random.Random, ids: list[str], result: FuzzResult) -> None:
    from ...errors import CairnError

    name = rng.choice(API_METHODS)
    method = getattr(cairn, name)
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for param in inspect.signature(method).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        required = param.default is param.empty
        if not required and rng.random() < 0.6:
            continue
        value = rng.choice(API_VALUES + ids) if rng.random() < 0.8 else rng.choice(ids or ["abcdef"])
        if param.kind == param.KEYWORD_ONLY or not required:
            kwargs[param.name] = value
        else:
            args.append(value)
    result.api_calls += 1
    try:
        method(*args, **kwargs)
    except CairnError:
        pass
    except Exception as exc:  # noqa: BLE001 - the drill counts what is not a Cairn error
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        result.tracebacks.append(f"api {name}({_shown([repr(a) for a in args])}, {sorted(kwargs)}): {type(exc).__name__}:"
                                 f" {str(exc)[:80]} at {Path(frame.filename).name}:{frame.lineno}")


def _corruptions(rng: random.Random, good: Path, base: Path, count: int) -> list[Path]:
    """Copies of ``good`` damaged in the ways disks and hands damage files."""
    data = good.read_bytes()
    out = []
    for i in range(count):
        damaged = bytearray(data)
        how = i % 6
        if how == 0:  # random bytes flipped anywhere after the header
            for _ in range(rng.randint(1, 40)):
                damaged[rng.randrange(100, len(damaged))] ^= 1 << rng.randrange(8)
        elif how == 1:  # truncated
            damaged = damaged[: rng.randrange(100, len(damaged))]
        elif how == 2:  # one page zeroed
            page = rng.randrange(1, max(2, len(damaged) // 4096))
            damaged[page * 4096 : (page + 1) * 4096] = bytes(4096)
        elif how == 3:  # header fields garbled
            damaged[16:24] = os.urandom(8)
        elif how == 4:  # a page of garbage
            page = rng.randrange(1, max(2, len(damaged) // 4096))
            damaged[page * 4096 : (page + 1) * 4096] = os.urandom(4096)
        path = base / f"corrupt{i}.db"
        path.write_bytes(bytes(damaged))
        if how == 5:  # intact bytes, malformed rows written through SQLite
            malform_rows(path, rng)
        out.append(path)
    return out


def run(base: Path, inputs: int = 10_000, seed: int = 11, progress=None) -> FuzzResult:
    """``inputs`` generated CLI inputs (a tenth of that again as API calls and as commands
    on damaged databases) against a store under ``base``."""
    from ...engine import Cairn

    rng = random.Random(seed)
    result = FuzzResult()
    files = _files(base / "files")
    db = base / "fuzz.db"
    with Cairn(db) as cairn:
        ids = [cairn.remember(f"Seed fact {i} about the staging host and its Debian release", kind="fact").memory.id
               for i in range(8)]
        cairn.relate(ids[1], "supersedes", ids[0])
    ids += [i[:8] for i in ids]
    for n in range(inputs):
        _call_cli(["--db", str(db), *_argv(rng, files, ids)], result)
        result.cli_inputs += 1
        if progress and (n + 1) % 500 == 0:
            progress(n + 1, inputs)
    with Cairn(db) as cairn:
        for _ in range(max(1, inputs // 10)):
            _call_api(cairn, rng, ids, result)
    corrupt_dir = base / "corrupt"
    corrupt_dir.mkdir(exist_ok=True)
    commands = [["status"], ["list"], ["recall", "debian"], ["search", "staging"], ["export"], ["history"],
                ["show", ids[0]], ["timeline", "debian"], ["remember", "A new fact after the damage", "--kind", "fact"],
                ["forget", ids[2]], ["import", files[11]]]
    for path in _corruptions(rng, db, corrupt_dir, max(6, inputs // (10 * len(commands)))):
        for command in commands:
            copy = corrupt_dir / "work.db"
            shutil.copyfile(path, copy)
            for suffix in ("-wal", "-shm"):
                Path(str(copy) + suffix).unlink(missing_ok=True)
            _call_cli(["--db", str(copy), *command], result)
            result.corrupted_inputs += 1
    return result
