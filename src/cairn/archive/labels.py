"""Topic and entity labels: strict at ingestion, permissive at query time.

A space's **vocabulary** holds canonical ids in two namespaces, ``topics`` and
``entities``, each with optional aliases (the words a query may use for it)::

    {"topics":   {"field_test": {"aliases": ["field test", "野外测试"]}},
     "entities": {"observatory_captain": {"aliases": ["observatory captain"]}}}

(an id's value may also be just the list of its aliases, or an empty list.)

Two boundaries, two sets:

* **Validation** (:meth:`Vocabulary.check`) accepts a stored label only when it is a
  canonical id of the matching namespace. Aliases do not validate, and neither does a
  label's presence in other records: repetition is not authority, otherwise a typo
  repeated in two batches would authorise itself. ``remember``, ``apply`` and ``import``
  run it before writing and refuse the whole write, naming the batch or line, the record,
  the field and the label; ``labels check`` runs the same function over stored records.
* **Recognition** (:meth:`Vocabulary.resolve_hint`, :meth:`Vocabulary.recognise`) is
  wider: canonical ids, aliases and labels already present in records. An unknown query
  hint is a warning, never an error. ASCII aliases match on word boundaries ("cap" does
  not match "captain"); an alias holding CJK characters matches as a substring only when
  it is at least :data:`CJK_MIN` characters long, since one common character appears in
  unrelated text everywhere.

Pure: values in, values out; the file is read and written by the engine.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

FIELDS = ("topics", "entities")
ID_RE = re.compile(r"^[a-z0-9][a-z0-9_.:-]{0,63}$")
ALIAS_MAX = 64
CJK_MIN = 2  # shortest CJK alias matched as a substring
MAX_LABELS = 16  # per field of one record
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


class VocabularyError(ValueError):
    """A vocabulary file that is not a vocabulary: names the field and the entry."""


@dataclass(frozen=True, slots=True)
class LabelProblem:
    """One label that fails validation, located."""

    where: str  # "batch src-1 claim 2", "line 7 record 3f2a…", "record 3f2a…"
    field: str  # topics | entities
    label: str

    def __str__(self) -> str:
        return f"{self.where} {self.field}: unknown label {self.label!r}"


@dataclass(frozen=True, slots=True)
class Hint:
    """How a query hint was understood."""

    given: str
    label: str | None  # the canonical id (or present label) it names, None when unknown
    how: str  # canonical | alias | present | unknown
    warning: str | None = None


@dataclass(frozen=True, slots=True)
class Recognised:
    """The canonical ids whose id or alias occurs in a text, per namespace."""

    topics: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, list[str]]:
        return {"topics": list(self.topics), "entities": list(self.entities)}


@dataclass(frozen=True, slots=True)
class Vocabulary:
    topics: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    entities: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def namespace(self, name: str) -> Mapping[str, tuple[str, ...]]:
        return self.topics if name == "topics" else self.entities

    def to_dict(self) -> dict:
        return {name: {k: {"aliases": list(v)} for k, v in sorted(self.namespace(name).items())} for name in FIELDS}

    # -- validation (ingestion) --------------------------------------------------------

    def check(self, where: str, labels: Mapping[str, Iterable[str]]) -> list[LabelProblem]:
        """Every label of one record that is not a canonical id of its namespace."""
        problems = []
        for name in FIELDS:
            known = self.namespace(name)
            for label in labels.get(name, ()):
                if label not in known:
                    problems.append(LabelProblem(where, name, label))
        return problems

    # -- recognition (queries) ---------------------------------------------------------

    def resolve_hint(self, hint: str, name: str = "topics", present: Iterable[str] = ()) -> Hint:
        """The label a query hint names: a canonical id, an alias, or a label already
        stored on records; otherwise a warning (the query still runs)."""
        known = self.namespace(name)
        key = _fold(hint)
        for label in known:
            if _fold(label) == key:
                return Hint(hint, label, "canonical")
        for label, aliases in known.items():
            if any(_fold(alias) == key for alias in aliases):
                return Hint(hint, label, "alias")
        for label in present:
            if _fold(label) == key:
                return Hint(hint, label, "present")
        return Hint(hint, None, "unknown",
                    f"{name[:-1]} hint {hint!r} is not in this space's vocabulary; the query runs without it")

    def recognise(self, text: str) -> Recognised:
        """Per namespace, the canonical ids whose id or alias occurs in ``text``."""
        found: dict[str, list[str]] = {name: [] for name in FIELDS}
        for name in FIELDS:
            for label, aliases in sorted(self.namespace(name).items()):
                if any(alias_matches(a, text) for a in (label.replace("_", " "), *aliases)):
                    found[name].append(label)
        return Recognised(tuple(found["topics"]), tuple(found["entities"]))


def alias_matches(alias: str, text: str) -> bool:
    """Whether ``alias`` occurs in ``text``: on word boundaries, or (CJK) as a substring
    of at least :data:`CJK_MIN` characters."""
    alias = _fold(alias)
    text = _fold(text)
    if not alias:
        return False
    if _CJK.search(alias):
        return len(alias) >= CJK_MIN and alias in text
    return re.search(rf"(?<![\w]){re.escape(alias)}(?![\w])", text) is not None


def _fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def parse_vocabulary(doc: object) -> Vocabulary:
    """A vocabulary from its JSON form; raises :class:`VocabularyError` naming the entry."""
    if not isinstance(doc, dict):
        raise VocabularyError('expected an object {"topics": {...}, "entities": {...}}')
    extra = sorted(set(doc) - set(FIELDS))
    if extra:
        raise VocabularyError(f"unknown key(s) {', '.join(extra)} (expected topics, entities)")
    parsed: dict[str, dict[str, tuple[str, ...]]] = {}
    for name in FIELDS:
        raw = doc.get(name, {})
        if isinstance(raw, list):
            raw = {label: [] for label in raw}
        if not isinstance(raw, dict):
            raise VocabularyError(f"{name} must be an object of id -> aliases")
        space: dict[str, tuple[str, ...]] = {}
        owner: dict[str, str] = {}
        for label, value in raw.items():
            if not isinstance(label, str) or not ID_RE.match(label):
                raise VocabularyError(f"{name} id {label!r}: 1-64 lowercase letters, digits, '_', '.', ':' or '-'")
            aliases = value.get("aliases", []) if isinstance(value, dict) else value
            if not isinstance(aliases, list) or not all(isinstance(a, str) and 0 < len(a.strip()) <= ALIAS_MAX
                                                       for a in aliases):
                raise VocabularyError(f"{name} {label}: aliases must be a list of 1-{ALIAS_MAX} character strings")
            for alias in aliases:
                key = _fold(alias)
                if owner.setdefault(key, label) != label:
                    raise VocabularyError(f"{name} alias {alias!r} names both {owner[key]} and {label}")
            space[label] = tuple(a.strip() for a in aliases)
        parsed[name] = space
    return Vocabulary(parsed["topics"], parsed["entities"])


def labels_of(raw: Mapping[str, object], where: str) -> dict[str, tuple[str, ...]]:
    """The ``topics``/``entities`` lists of a wire object (a claim, a batch, a record),
    checked for shape only; raises :class:`VocabularyError` naming ``where``."""
    out: dict[str, tuple[str, ...]] = {}
    for name in FIELDS:
        value = raw.get(name, [])
        if value is None:
            value = []
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise VocabularyError(f"{where} {name} must be a list of label ids")
        if len(value) > MAX_LABELS:
            raise VocabularyError(f"{where} {name}: at most {MAX_LABELS} labels")
        out[name] = tuple(dict.fromkeys(value))
    return out
