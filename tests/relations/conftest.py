"""Helpers of the relations tests: short record creation on the shared `cairn` fixture."""

from __future__ import annotations

import pytest


@pytest.fixture
def mem(cairn):
    """``mem(text, kind="fact", **remember_options) -> id``."""

    def make(text: str, kind: str = "fact", **options) -> str:
        return cairn.remember(text, kind=kind, **options).memory.id

    return make


@pytest.fixture
def judge_incorrect(cairn):
    """Record an ``incorrect`` accuracy verdict on a memory. Uses ``cairn.feedback`` when the
    facade has it (issue 3), else writes the same verdict slot through one mutation."""
    from dataclasses import replace

    from cairn.model import Actor, Feedback, Verdict, VerdictSlot

    def judge(memory_id: str, source: str = "review") -> None:
        if hasattr(cairn, "feedback"):
            cairn.feedback(memory_id, "incorrect", source=source)
            return
        with cairn._mutation(Actor.MANUAL, "feedback incorrect") as m:
            current = m.tx.get_memory(cairn.space, memory_id)
            slot = VerdictSlot(Verdict.INCORRECT, source, cairn.now())
            m.put(current, replace(current, feedback=Feedback(current.feedback.utility, slot), revision=current.revision + 1))

    return judge


@pytest.fixture
def time_aware_recall(monkeypatch):
    """Make the recall pipeline hand ``as_of``/``known_at`` to :func:`resolve`.

    The pipeline of issue 4 calls ``resolve(view, space, ids, include_history=, now=)``;
    resolution must also know the reference time and the record time (a ``supersedes``
    whose successor has not begun yet, relations declared after ``known_at``). Until the
    pipeline passes ``as_of=request.as_of, known_at=request.known_at`` itself, this shim
    does exactly that; once it does, the shim is inert.
    """
    import functools
    import inspect

    import cairn.recall.pipeline as pipeline
    from cairn.recall.resolve import resolve

    if "known_at=request.known_at" in inspect.getsource(pipeline._resolve_and_pack):
        return
    original = pipeline._resolve_and_pack

    def patched(view, request, ranked, candidates):
        with monkeypatch.context() as local:
            local.setattr(pipeline, "resolve", functools.partial(resolve, as_of=request.as_of, known_at=request.known_at))
            return original(view, request, ranked, candidates)

    monkeypatch.setattr(pipeline, "_resolve_and_pack", patched)
