"""Consolidation batches: the wire form, parsed and validated before anything is read or written.

A batch is one source and the claims proposed from it (docs/evidence.md, "Batches")::

    {"source": {"id", "text", "kind", "basis"?, "method"?, "at"?, "origin"?},
     "claims": [{"kind", "content", "replaces"?, "aliases"?}]}

Claims may *propose* only kind/content/replaces/aliases. Evidence, status, confidence and
feedback are the host's to assign (from the source), so any other key in a claim is
refused rather than ignored: silently dropping a forged ``evidence`` would hide the forgery.

The source's kind bounds what basis it may claim: a summary is never user testimony, and
only a progress source carries tool observations. ``manual_correction`` needs method
``manual`` (:func:`cairn.model.codec.evidence_problem`). Missing basis/method take the kind's
default. Structural problems raise :class:`~cairn.errors.InvalidInput` naming the field;
content limits and redaction are applied by the engine, which owns them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import TypeVar

from ..errors import InvalidInput
from ..model import BadTime, Basis, Kind, Method, SourceKind, UnknownValue, parse_enum, parse_time
from ..model.codec import evidence_problem

MAX_CLAIMS = 64  # one source rarely yields more; larger batches are split by the caller
MAX_SOURCE_TEXT = 200_000  # characters
MAX_SOURCE_ID = 200

E = TypeVar("E", bound=StrEnum)

SOURCE_KEYS = frozenset({"id", "text", "kind", "basis", "method", "at", "origin"})
CLAIM_KEYS = frozenset({"kind", "content", "replaces", "aliases", "topics", "entities"})
LABEL_KEYS = ("topics", "entities")  # canonical vocabulary ids; validated by the engine before any write
CLAIM_KINDS = (Kind.FACT, Kind.PREFERENCE, Kind.DECISION, Kind.PROJECT_STATE)
BATCH_METHODS = (Method.LOCAL, Method.MODEL, Method.AGENT, Method.MANUAL)

# Which evidence basis each source kind may carry; the first is the default.
ALLOWED_BASES: dict[SourceKind, tuple[Basis, ...]] = {
    SourceKind.SUMMARY: (Basis.SUMMARY,),
    SourceKind.CONVERSATION: (Basis.USER_STATEMENT, Basis.SUMMARY),
    SourceKind.PROGRESS: (Basis.TOOL_OBSERVATION,),
    SourceKind.MANUAL: (Basis.MANUAL_CORRECTION, Basis.USER_STATEMENT),
}
DEFAULT_METHOD: dict[SourceKind, Method] = {
    SourceKind.SUMMARY: Method.LOCAL,
    SourceKind.CONVERSATION: Method.MODEL,
    SourceKind.PROGRESS: Method.MODEL,
    SourceKind.MANUAL: Method.MANUAL,
}


@dataclass(frozen=True, slots=True)
class SourceSpec:
    id: str
    text: str
    kind: SourceKind
    basis: Basis
    method: Method
    at: datetime | None  # None: the engine's now
    origin: str


@dataclass(frozen=True, slots=True)
class ClaimSpec:
    index: int
    kind: Kind
    content: str  # raw: the engine cleans it (limits, redaction)
    replaces: str | None
    aliases: tuple[str, ...]
    topics: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Batch:
    source: SourceSpec
    claims: tuple[ClaimSpec, ...]
    topics: tuple[str, ...] = ()  # labels every claim of the batch carries
    entities: tuple[str, ...] = ()


def load_batch(text: str) -> Batch:
    """Parse a batch file's text (JSON)."""
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise InvalidInput("batch", f"not JSON ({err})") from None
    return parse_batch(doc)


def parse_batch(doc: object) -> Batch:
    if not isinstance(doc, dict):
        raise InvalidInput("batch", "must be a JSON object with 'source' and 'claims'")
    extra = set(doc) - {"source", "claims", *LABEL_KEYS}
    if extra:
        raise InvalidInput("batch", f"unknown keys {sorted(extra)} (only 'source', 'claims', 'topics', 'entities')")
    claims = doc.get("claims")
    if not isinstance(claims, list):
        raise InvalidInput("claims", "must be a list")
    if len(claims) > MAX_CLAIMS:
        raise InvalidInput("claims", f"{len(claims)} claims; a batch holds at most {MAX_CLAIMS}")
    return Batch(parse_source(doc.get("source")), tuple(_claim(i, c) for i, c in enumerate(claims)),
                 *(_labels(doc, key, f"batch.{key}") for key in LABEL_KEYS))


def parse_source(raw: object) -> SourceSpec:
    if not isinstance(raw, dict):
        raise InvalidInput("source", "must be an object")
    extra = set(raw) - SOURCE_KEYS
    if extra:
        raise InvalidInput("source", f"unknown keys {sorted(extra)}")
    source_id = _text(raw, "id", "source.id")
    if not 1 <= len(source_id.strip()) <= MAX_SOURCE_ID or any(ord(c) < 32 for c in source_id):
        raise InvalidInput("source.id", f"must be 1-{MAX_SOURCE_ID} printable characters")
    text = _text(raw, "text", "source.text")
    if not text.strip():
        raise InvalidInput("source.text", "empty: a batch may only touch the records its text mentions")
    if len(text) > MAX_SOURCE_TEXT or "\x00" in text:
        raise InvalidInput("source.text", f"must be at most {MAX_SOURCE_TEXT} characters without NUL")
    kind = _choice(SourceKind, raw.get("kind"), "source.kind", tuple(SourceKind))
    basis = _choice(Basis, raw.get("basis", ALLOWED_BASES[kind][0]), "source.basis", ALLOWED_BASES[kind])
    method = _choice(Method, raw.get("method", DEFAULT_METHOD[kind]), "source.method", BATCH_METHODS)
    if problem := evidence_problem(basis, method):
        raise InvalidInput("source.method", problem)
    at = None
    if raw.get("at") is not None:
        try:
            at = parse_time(raw["at"])
        except BadTime:
            raise InvalidInput("source.at", f"not an ISO-8601 time: {raw['at']!r}") from None
    origin = raw.get("origin", "")
    if not isinstance(origin, str):
        raise InvalidInput("source.origin", "must be a string")
    return SourceSpec(source_id.strip(), text, kind, basis, method, at, origin)


def _claim(index: int, raw: object) -> ClaimSpec:
    where = f"claims[{index}]"
    if not isinstance(raw, dict):
        raise InvalidInput(where, "must be an object")
    extra = set(raw) - CLAIM_KEYS
    if extra:
        raise InvalidInput(where, f"may only propose kind/content/replaces/aliases/topics/entities, not {sorted(extra)}")
    kind = _choice(Kind, raw.get("kind"), f"{where}.kind", CLAIM_KINDS)
    content = _text(raw, "content", f"{where}.content")
    replaces = raw.get("replaces")
    if replaces is not None and (not isinstance(replaces, str) or not replaces.strip()):
        raise InvalidInput(f"{where}.replaces", "must be a record id")
    aliases = raw.get("aliases", [])
    if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        raise InvalidInput(f"{where}.aliases", "must be a list of strings")
    return ClaimSpec(index, kind, content, replaces.strip().lower() if replaces else None, tuple(aliases),
                     *(_labels(raw, key, f"{where}.{key}") for key in LABEL_KEYS))


def _labels(raw: dict, key: str, field: str) -> tuple[str, ...]:
    value = raw.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise InvalidInput(field, "must be a list of label ids")
    return tuple(dict.fromkeys(v.strip() for v in value))


def _text(raw: dict, key: str, field: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str):
        raise InvalidInput(field, "missing or not a string")
    return value


def _choice(cls: type[E], value: object, field: str, allowed: tuple[E, ...]) -> E:
    try:
        return parse_enum(cls, value, field, allowed=allowed)
    except UnknownValue as err:
        raise InvalidInput(field, f"{value!r} is not allowed here (one of: {', '.join(err.allowed)})") from None
