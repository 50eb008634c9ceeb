"""Label vocabularies, as the engine enforces and offers them.

The vocabulary of a space is a JSON file in the space's private directory beside the
database (``<db>.archive/<space>/vocabulary.json``, 0600), written whole and atomically
by ``labels import``. The write paths call :func:`require` before writing anything:
``remember`` (the record), ``apply`` (the batch's and each claim's labels, located as
``batch <source id> claim <n>``) and ``import`` (each record line). The first unknown label
refuses the whole write with :class:`~cairn.errors.UnknownLabel`; the previous state is
untouched. :meth:`Labelling.check` runs the same validator over every stored record, of
any status (a retired or forgotten record's labels count too), and writes nothing.

Queries are permissive: :meth:`Labelling.hint` resolves a ``--topic`` hint through ids,
aliases and labels already on records, and returns a warning for an unknown one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from ..archive.labels import (
    FIELDS,
    Hint,
    LabelProblem,
    Recognised,
    Vocabulary,
    VocabularyError,
    parse_vocabulary,
)
from ..archive.raw import CATALOG_MODE, RawStore, space_root
from ..errors import InvalidInput, Refused, UnknownLabel
from ..learn.batch import Batch
from ..learn.consolidate import Plan
from ..model import Memory
from .scope import Part, Scope

VOCABULARY_FILE = "vocabulary.json"
EMPTY = Vocabulary()


def _space_dir(scope: Scope) -> Path | None:
    return space_root(scope.path, scope.space)


def load_vocabulary(scope: Scope) -> Vocabulary:
    """The space's vocabulary; empty (every label unknown) when none was imported."""
    folder = _space_dir(scope)
    if folder is None:
        return EMPTY
    try:
        text = (folder / VOCABULARY_FILE).read_text(encoding="utf-8")
    except FileNotFoundError:
        return EMPTY
    try:
        return parse_vocabulary(json.loads(text))
    except (ValueError, VocabularyError) as err:
        raise Refused(f"the label vocabulary of space {scope.space} is unreadable ({err}); import it again") from None


def require(scope: Scope, records: Iterable[tuple[str, Mapping[str, Iterable[str]]]]) -> None:
    """Refuse (:class:`UnknownLabel`) the first unknown label among ``(where, labels)``."""
    vocabulary: Vocabulary | None = None
    for where, labels in records:
        if not any(labels.get(name) for name in FIELDS):
            continue
        vocabulary = vocabulary or load_vocabulary(scope)
        for problem in vocabulary.check(where, labels):
            raise UnknownLabel(problem.where, problem.field, problem.label)


def batch_labels(batch: Batch) -> list[tuple[str, dict[str, tuple[str, ...]]]]:
    """Where each label of a batch sits: the batch itself, then each claim."""
    where = f"batch {batch.source.id}"
    found = [(where, {"topics": batch.topics, "entities": batch.entities})]
    found += [(f"{where} claim {c.index}", {"topics": c.topics, "entities": c.entities}) for c in batch.claims]
    return found


def memory_labels(memory: Memory) -> dict[str, tuple[str, ...]]:
    return {"topics": memory.topics, "entities": memory.entities}


def label_plan(plan: Plan, batch: Batch) -> None:
    """Put each claim's labels (and the batch's) on the record it was written to."""
    for outcome in plan.outcomes:
        claim = batch.claims[outcome.index] if outcome.index < len(batch.claims) else None
        if claim is None or outcome.id not in plan.writes:
            continue
        topics = tuple(dict.fromkeys((*batch.topics, *claim.topics)))
        entities = tuple(dict.fromkeys((*batch.entities, *claim.entities)))
        if topics or entities:
            before, after = plan.writes[outcome.id]
            plan.writes[outcome.id] = (before, replace(after, topics=topics, entities=entities))


@dataclass(frozen=True, slots=True)
class Imported:
    vocabulary: Vocabulary
    stale: list[LabelProblem]  # stored labels the new vocabulary no longer holds


class Labelling(Part):
    def vocabulary(self) -> Vocabulary:
        return load_vocabulary(self.scope)

    def import_(self, text: str) -> Imported:
        """Replace the space's vocabulary with the one in ``text`` (JSON), atomically."""
        try:
            vocabulary = parse_vocabulary(json.loads(text))
        except ValueError as err:
            raise InvalidInput("vocabulary", str(err)) from None
        folder = _space_dir(self.scope)
        if folder is None:
            raise Refused("label vocabularies live beside a database file; this store has no file path")
        if self.store.read_only:
            raise Refused("the store is open read-only")
        raw = RawStore(folder)
        with raw.locked():
            temp = folder / f".{VOCABULARY_FILE}.tmp"
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, CATALOG_MODE)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(vocabulary.to_dict(), handle, ensure_ascii=False, indent=1)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, folder / VOCABULARY_FILE)
        return Imported(vocabulary, self.check())

    def check(self) -> list[LabelProblem]:
        """Every stored label (records of any status) that the vocabulary lacks."""
        vocabulary = self.vocabulary()
        problems: list[LabelProblem] = []
        for memory in self.store.iter_memories(self.space):
            if memory.topics or memory.entities:
                problems += vocabulary.check(f"record {memory.id}", memory_labels(memory))
        return problems

    def present(self, name: str = "topics") -> set[str]:
        """Labels already on stored records (recognised at query time, never validated)."""
        found: set[str] = set()
        for memory in self.store.iter_memories(self.space):
            found.update(getattr(memory, name))
        return found

    def hint(self, text: str, name: str = "topics") -> Hint:
        vocabulary = self.vocabulary()
        first = vocabulary.resolve_hint(text, name)
        return first if first.label is not None else vocabulary.resolve_hint(text, name, self.present(name))

    def recognise(self, text: str) -> Recognised:
        return self.vocabulary().recognise(text)
