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
        └── StoreUnavailable       read-only, locked beyond the timeout, unopenable

Each carries its data as attributes so interfaces and tests need not parse messages.
"""

from __future__ import annotations

from pathlib import Path


class CairnError(Exception):
    """Base of every deliberate Cairn error. ``str(err)`` is a one-line reason."""


class InvalidInput(CairnError):
    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"invalid {field}: {reason}")
        self.field = field
        self.reason = reason


class BadImportLine(InvalidInput):
    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"import line {line}", reason)
        self.line = line


class BenchDataMissing(InvalidInput):
    """The evaluation data is not where the benchmark looks (``--data PATH`` or its default),
    or is not data of the expected shape."""

    def __init__(self, path: Path, hint: str) -> None:
        super().__init__("data", hint)
        # The message leads with the file, which is what the reader must fix.
        self.args = (f"LoCoMo data not found at {path}: {hint}",)
        self.path = path


class NotFound(CairnError):
    def __init__(self, what: str, ref: str) -> None:
        super().__init__(f"no {what} matches {ref!r} in this space")
        self.what = what
        self.ref = ref


class AmbiguousId(CairnError):
    def __init__(self, prefix: str, candidates: list[str]) -> None:
        shown = ", ".join(candidates[:10]) + (" ..." if len(candidates) > 10 else "")
        super().__init__(f"id prefix {prefix!r} is ambiguous: matches {shown}")
        self.prefix = prefix
        self.candidates = candidates


class Refused(CairnError):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class UndoRefused(Refused):
    def __init__(self, event_id: str, reason: str) -> None:
        super().__init__(f"undo of {event_id} refused: {reason}")
        self.event_id = event_id


class RelationRefused(Refused):
    def __init__(self, code: str, reason: str) -> None:
        super().__init__(f"relation refused ({code}): {reason}")
        self.code = code  # self-reference | cycle | cross-space | purged | ...


class PluginError(CairnError):
    """A plug-in that cannot be found, loaded or used; names the group, the plug-in
    and, when known, the distribution that registered it (docs/plugins.md)."""

    def __init__(self, group: str, name: str, reason: str) -> None:
        # Cairn's entry-point groups are named cairn.<kind>s: "cairn.lanes" -> "lane plug-in".
        kind = group.removeprefix("cairn.").removesuffix("s")
        super().__init__(f"{kind} plug-in {name!r}: {reason}")
        self.group = group
        self.name = name
        self.reason = reason


class StoreError(CairnError):
    pass


class SchemaTooNew(StoreError):
    def __init__(self, found: int, known: int) -> None:
        super().__init__(
            f"database schema version {found} is newer than this Cairn understands ({known}); "
            "upgrade Cairn — nothing was changed"
        )
        self.found = found
        self.known = known


class StoreUnavailable(StoreError):
    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"cannot use database {path}: {reason}")
        self.path = path
        self.reason = reason


class ArchiveFailed(Refused):
    """An archived source failed verification; nothing was read from it. ``failures``
    holds one line per failed check (``"<source id>: <code>: <detail>"``)."""

    def __init__(self, source_id: str, failures: list[str]) -> None:
        more = f" (+{len(failures) - 1} more)" if len(failures) > 1 else ""
        super().__init__(f"archive {source_id} failed verification: {failures[0] if failures else '?'}{more}")
        self.source_id = source_id
        self.failures = failures


class UnknownLabel(InvalidInput):
    """A topic or entity label that is not a canonical id of the space's vocabulary:
    ``where`` names the batch or line and the record, ``field`` is topics or entities."""

    def __init__(self, where: str, field: str, label: str) -> None:
        super().__init__(f"{where} {field}", f"unknown label {label!r} (not in this space's vocabulary; "
                                              "see `cairn labels`); nothing was written")
        self.where = where
        self.label_field = field
        self.label = label
