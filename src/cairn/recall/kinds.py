"""Kinds and their instances: "which database for billing" is answered by "Use PostgreSQL
16 for billing", which names an instance of the kind asked for and not the kind.

The table (``kinds.txt``, shipped beside this module: general knowledge, never a store's
words) lists common kinds a question asks for with which/what — databases, languages,
frameworks, fonts, colours, weekdays, pets, cars, instruments, tools of software work — and
their common instances. :func:`instances` gives the instances of the kind a query's
which/what phrase names; :mod:`cairn.recall.variants` keeps those the store holds as the
kind word's variants, so a record naming an instance holds the kind for scoring and for the
gates, exactly as a record holding the word itself.

The kind keeps the weak weight of an answer type in coverage, but it is the attribute the
question asks for: a record naming neither the kind nor a listed instance is no answer
(``missing-attribute``: "what database does the backend use" is not answered by the
backend's API URL). The table is never complete, so its instances are chosen to be read
one way (a word that is also a common verb, like "go", stands only in phrases that name
the language: "in Go", "the Go backend"). Pure; the table is read once per process, and
a kind's instances are put in index form when that kind is first asked for.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from ..text import index_text


@cache
def _members() -> dict[str, tuple[str, ...]]:
    """Kind (index form: one term, or two joined by a space) -> its instances as the table
    writes them, every line naming the kind in turn. Only the kinds' names are put in
    index form here: a recall asks for the instances of one kind at most, so each kind's
    are put in index form when first asked (:func:`instances`), not the whole table's
    thousand at every process start."""
    out: dict[str, tuple[str, ...]] = {}
    text = Path(__file__).with_name("kinds.txt").read_text(encoding="utf-8")
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        names, _, members = line.partition(":")
        written = tuple(members.split(","))
        for name in names.split(","):
            key = index_text(name)
            if key:
                out[key] = out.get(key, ()) + written
    return out


def table() -> dict[str, tuple[str, ...]]:
    """Kind (index form: one term, or two joined by a space) -> its instances (index form;
    a phrase is its terms joined by a space)."""
    return {kind: instances(kind) for kind in _members()}


def kind_of(head: str, modifier: str | None = None) -> str:
    """The kind the which/what phrase ending in ``head`` names (``modifier``: the word
    before it): the pair when the table knows it as a kind of its own ("cloud *provider*"),
    else the head, else "" (a kind the table does not know)."""
    kinds = _members()
    if modifier is not None and f"{modifier} {head}" in kinds:
        return f"{modifier} {head}"
    return head if head in kinds else ""


@cache
def instances(kind: str) -> tuple[str, ...]:
    """The instances of ``kind`` (a key :func:`kind_of` returned), in index form, each once."""
    return tuple(dict.fromkeys(t for t in map(index_text, _members().get(kind, ())) if t))
