"""A bulk write encodes each record's stored dict with ``memory_json``, which spells the
JSON out field by field instead of walking the dict. It must write exactly what
``dumps`` writes, for every dict: the records ``memory_to_dict`` makes (labels, verdicts,
every optional time, awkward texts) byte for byte, and any other dict by handing it to
``dumps``. The control: canonical records really take the field-by-field path (with
``dumps`` made unusable they still encode), so the comparisons test it and not only the
fallback."""

from __future__ import annotations

import json
from collections import OrderedDict
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.bench.scale import Generator
from cairn.model import (
    Basis,
    Certainty,
    Evidence,
    Feedback,
    Kind,
    Layer,
    Memory,
    Method,
    Status,
    Verdict,
    VerdictSlot,
    memory_to_dict,
)
from cairn.store.sqlite import backend
from cairn.store.sqlite.backend import dumps, memory_json

AT = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
AWKWARD = ['plain', 'quote " and \\ backslash', "tab\tnew\nline\x01\x1f", "é ☕ 日本語", "line\u2028sep",
           "lone \ud800 surrogate", "</script>", ""]


def _memory(content: str = "Ana prefers tea", **changes: Any) -> Memory:
    base: dict[str, Any] = dict(id="0123456789abcdef01234567", space="default", origin="chat", kind=Kind.FACT,
                                content=content, evidence=Evidence(Basis.USER_STATEMENT, Method.MANUAL, None, AT),
                                created_at=AT, updated_at=AT)
    base.update(changes)
    return Memory(**base)


def _records() -> list[Memory]:
    slot = VerdictSlot(Verdict.USEFUL, "fb-1", AT)
    out = [_memory(text) for text in AWKWARD if text]
    out += [
        _memory(aliases=("Ana", 'A "B"')),
        _memory(topics=("tea",)),
        _memory(entities=("Ana", "Bo")),
        _memory(topics=("tea", "drinks"), entities=("Ana",)),
        _memory(kind=Kind.EPISODE, evidence=Evidence(Basis.TRANSCRIPT, Method.LOCAL, "turn-7", AT)),
        _memory(status=Status.CONFIRMED, layer=Layer.PINNED, certainty=Certainty.LOW, revision=12,
                valid_from=AT, valid_to=datetime(2026, 4, 1, tzinfo=UTC), reinforced_at=AT,
                expected_resolution_at=datetime(2026, 5, 1, 0, 0, 0, 123456, tzinfo=UTC), last_confirmed_at=AT),
        _memory(feedback=Feedback(utility=slot)),
        _memory(status=Status.FORGOTTEN, purged_at=AT, content=""),
    ]
    return out


def test_records_of_the_model_encode_as_dumps() -> None:
    for memory in _records():
        doc = memory_to_dict(memory)
        assert memory_json(doc) == dumps(doc), doc


def test_the_scale_ladders_records_encode_as_dumps() -> None:
    lines = [line for line in Generator(3000).lines() if line.startswith('{"type":"memory"')]
    for line in lines:
        doc = json.loads(line)["data"]
        assert memory_json(doc) == dumps(doc)


def _variants(doc: dict[str, Any]) -> list[Any]:
    """Dicts outside the shape memory_json spells out, each of which dumps writes as it is."""
    reordered = dict(reversed(list(doc.items())))
    swapped_feedback = {**doc, "feedback": {"accuracy": None, "utility": None}}
    swapped_evidence = {**doc, "evidence": dict(reversed(list(doc["evidence"].items())))}
    out: list[Any] = [
        reordered, swapped_feedback, swapped_evidence,
        {**doc, "revision": True}, {**doc, "revision": 2.0}, {**doc, "revision": "2"},
        {**doc, "aliases": ("a", "b")}, {**doc, "aliases": ["a", 1]}, {**doc, "aliases": "ab"},
        {**doc, "certainty": 0.5}, {**doc, "content": None}, {**doc, "id": 7},
        {**doc, "evidence": None}, {**doc, "evidence": {**doc["evidence"], "at": 3}},
        {**doc, "feedback": None}, {**doc, "feedback": {"utility": {"verdict": "useful"}, "accuracy": None}},
        {**doc, "extra": 1}, {**doc, "topics": []} | {"entities": ["x"]}, {**doc, "topics": "x"},
        {k: v for k, v in doc.items() if k != "purged_at"}, OrderedDict(doc),
        {**doc, "space": type("Name", (str,), {})("default")},
    ]
    return out


def test_any_other_dict_encodes_as_dumps() -> None:
    doc = memory_to_dict(_memory(aliases=("Ana",), topics=("tea",)))
    for variant in _variants(doc):
        assert memory_json(variant) == dumps(variant), variant


texts = st.text(alphabet=st.characters(exclude_categories=["Cs"]) | st.sampled_from(["\ud800", '"', "\\", "\n"]),
                max_size=40)


@settings(max_examples=300, deadline=None)
@given(content=texts.filter(str.strip), origin=texts, aliases=st.lists(texts, max_size=3),
       topics=st.lists(texts.filter(str.strip), max_size=2), source=st.none() | texts,
       revision=st.integers(min_value=1, max_value=10**12))
def test_random_records_encode_as_dumps(content, origin, aliases, topics, source, revision) -> None:
    doc = memory_to_dict(_memory(content, origin=origin, aliases=tuple(aliases), topics=tuple(topics),
                                 evidence=Evidence(Basis.USER_STATEMENT, Method.MANUAL, source, AT), revision=revision))
    assert memory_json(doc) == dumps(doc)


def test_canonical_records_take_the_field_by_field_path(monkeypatch: pytest.MonkeyPatch) -> None:
    records = _records()
    expected = [dumps(memory_to_dict(m)) for m in records]

    def refuse(value: object) -> str:
        raise AssertionError("dumps was called")

    monkeypatch.setattr(backend, "dumps", refuse)
    for memory, text in zip(records, expected, strict=True):
        doc = memory_to_dict(memory)
        if memory.feedback.utility is None and memory.feedback.accuracy is None:
            assert memory_json(doc) == text
        else:  # a given verdict: written by dumps (the control that refuse is reached)
            with pytest.raises(AssertionError, match="dumps was called"):
                memory_json(doc)
