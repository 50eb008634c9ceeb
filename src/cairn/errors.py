"""Cairn's one error hierarchy. Expected outcomes (no match, a withheld replacement)
are return values, not exceptions; these are for refused or impossible operations.

    CairnError                     every error Cairn raises on purpose (CLI exit 1)
    ├── InvalidInput               bad argument: kind, time, text length, verdict, ...
    │   ├── BadImportLine          an import line that cannot be read (line number, reason)
    │   ├── BenchDataMissing       benchmark data absent or unreadable at the path given or defaulted
    │   └── UnknownLabel           a topic/entity label not in the space's vocabulary (where, field, label)
    ├── NotFound                   no record/event with that id in this space
    ├── AmbiguousId                a prefix matching several ids (candidates listed)
    ├── Refused                    a valid request the rules do not allow
    │   ├── UndoRefused            the records an event touched changed since
    │   ├── RelationRefused        self-reference, cycle, cross-space, purged target
    │   └── ArchiveFailed          an archived source failed verification; nothing was read
    ├── PluginError                a lane, extractor or embedder not installed, not loadable, or misbehaving
    └── StoreError                 the database cannot be used as asked
        ├── SchemaTooNew           written by a newer Cairn; refused before any DDL
        ├── StoreUnavailable       read-only, locked beyond the timeout, unopenable, not a database
        └── NoSuchDatabase         a command that only reads (or needs records) named a missing file

Each carries its data as attributes so interfaces and tests need not parse messages, and
a stable ``error_code`` (a class attribute: ``invalid_input``, ``not_found``, …) that
interfaces print beside the message so scripts can branch on it (``--json`` errors).
A message never repeats more than :data:`ECHO_MAX` characters of what it was given.
"""

from __future__ import annotations

from pathlib import Path

ECHO_MAX = 80  # characters of a caller's value an error message repeats at most


def echo(value: object, limit: int = ECHO_MAX) -> str:
    """``value`` as an error message quotes it: its repr, cut to ``limit`` characters
    with the full length stated, so a 60,000-character argument yields a short line."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) > limit:
        return repr(text[:limit]) + f"… ({len(text)} characters)"
    return repr(text) if isinstance(value, str) else text


def _shown_path(path: str) -> str:
    return path if len(path) <= 200 else f"{path[:200]}… ({len(path)} characters)"


class CairnError(Exception):
    """Base of every deliberate Cairn error. ``str(err)`` is a one-line reason."""

    error_code = "error"


class InvalidInput(CairnError):
    error_code = "invalid_input"

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"invalid {field}: {reason}")
        self.field = field
        self.reason = reason


class BadImportLine(InvalidInput):
    error_code = "bad_import_line"

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"import line {line}", reason)
        self.line = line


class BenchDataMissing(InvalidInput):
    """The evaluation data is not where the benchmark looks (``--data PATH`` or its default),
    or is not data of the expected shape."""

    error_code = "bench_data_missing"

    def __init__(self, path: Path, hint: str) -> None:
        super().__init__("data", hint)
        # The message leads with the file, which is what the reader must fix.
        self.args = (f"LoCoMo data not found at {path}: {hint}",)
        self.path = path


class NotFound(CairnError):
    error_code = "not_found"

    def __init__(self, what: str, ref: str) -> None:
        super().__init__(f"no {what} matches {echo(ref)} in this space")
        self.what = what
        self.ref = ref


class AmbiguousId(CairnError):
    error_code = "ambiguous_id"

    def __init__(self, prefix: str, candidates: list[str]) -> None:
        shown = ", ".join(candidates[:10]) + (" ..." if len(candidates) > 10 else "")
        super().__init__(f"id prefix {echo(prefix)} is ambiguous: matches {shown}")
        self.prefix = prefix
        self.candidates = candidates


class Refused(CairnError):
    error_code = "refused"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class UndoRefused(Refused):
    error_code = "undo_refused"

    def __init__(self, event_id: str, reason: str) -> None:
        super().__init__(f"undo of {event_id} refused: {reason}")
        self.event_id = event_id


class RelationRefused(Refused):
    error_code = "relation_refused"  # the instance's ``code`` says which rule refused it

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(f"relation refused ({code}): {reason}")
        self.code = code  # self-reference | cycle | cross-space | purged | ...


class PluginError(CairnError):
    """A plug-in that cannot be found, loaded or used; names the group, the plug-in
    and, when known, the distribution that registered it (docs/plugins.md)."""

    error_code = "plugin_error"

    def __init__(self, group: str, name: str, reason: str) -> None:
        # Cairn's entry-point groups are named cairn.<kind>s: "cairn.lanes" -> "lane plug-in".
        kind = group.removeprefix("cairn.").removesuffix("s")
        super().__init__(f"{kind} plug-in {name!r}: {reason}")
        self.group = group
        self.name = name
        self.reason = reason


class StoreError(CairnError):
    error_code = "store_error"


class SchemaTooNew(StoreError):
    error_code = "schema_too_new"

    def __init__(self, found: int, known: int) -> None:
        super().__init__(
            f"database schema version {found} is newer than this Cairn understands ({known}); "
            "upgrade Cairn — nothing was changed"
        )
        self.found = found
        self.known = known


class StoreUnavailable(StoreError):
    error_code = "store_unavailable"

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"cannot use database {_shown_path(path)}: {reason}")
        self.path = path
        self.reason = reason


class NoSuchDatabase(StoreError):
    """A command that reads (or changes existing records) named a file that does not
    exist: nothing is created, so a mistyped path is not answered from an empty store."""

    error_code = "no_such_database"

    def __init__(self, path: str) -> None:
        super().__init__(f"no such database: {_shown_path(path)}")
        self.path = path


def error_codes() -> dict[str, type[CairnError]]:
    """Every stable error code and the class that carries it (documented in docs/usage.md)."""
    found: dict[str, type[CairnError]] = {}
    pending: list[type[CairnError]] = [CairnError]
    while pending:
        cls = pending.pop()
        found.setdefault(cls.error_code, cls)
        pending += cls.__subclasses__()
    return found


class ArchiveFailed(Refused):
    """An archived source failed verification; nothing was read from it. ``failures``
    holds one line per failed check (``"<source id>: <code>: <detail>"``)."""

    error_code = "archive_failed"

    def __init__(self, source_id: str, failures: list[str]) -> None:
        more = f" (+{len(failures) - 1} more)" if len(failures) > 1 else ""
        super().__init__(f"archive {source_id} failed verification: {failures[0] if failures else '?'}{more}")
        self.source_id = source_id
        self.failures = failures


class UnknownLabel(InvalidInput):
    """A topic or entity label that is not a canonical id of the space's vocabulary:
    ``where`` names the batch or line and the record, ``field`` is topics or entities."""

    error_code = "unknown_label"

    def __init__(self, where: str, field: str, label: str) -> None:
        super().__init__(f"{where} {field}", f"unknown label {label!r} (not in this space's vocabulary; "
                                              "see `cairn labels`); nothing was written")
        self.where = where
        self.label_field = field
        self.label = label
