"""The coverage gate means the same from one record to many: the right answer passes in
stores of 1, 2, 5, 20 and 100 records, and an unrelated question gets nothing at every
size. The records around the target are realistic memories of three small stores
(tests/recall/natural/stores.json) plus generated service facts for the largest size."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn import Cairn
from testkit import Clock

TARGET = ("Omar likes his eggs scrambled", "preference")
SECOND = ("Omar switched to poached eggs", "preference")
TEAMS = "payments search billing ledger identity reports mobile gateway notifications analytics".split()
PEOPLE = "Aiko Bruno Chloe Dmitri Esra Farid Greta Hugo Ines Jonah".split()


def pool() -> list[tuple[str, str]]:
    stores = json.loads((Path(__file__).parent / "natural" / "stores.json").read_text(encoding="utf-8"))["stores"]
    records = [(m["text"], m["kind"]) for ms in stores.values() for m in ms if "egg" not in m["text"]]
    for i, team in enumerate(TEAMS):
        for j in range(4):
            person = PEOPLE[(i + j) % len(PEOPLE)]
            records.append((f"{person} reviews pull requests of the {team} service on week {j + 1} of the rota", "fact"))
    return records


def store(tmp_path: Path, size: int, target_record: tuple[str, str] = TARGET) -> tuple[Cairn, str]:
    clock = Clock()
    cairn = Cairn(tmp_path / f"s{size}" / "cairn.db", now=clock)
    target = cairn.remember(target_record[0], kind=target_record[1]).memory.id
    extra = ([SECOND] if size >= 2 and target_record == TARGET else []) + pool()
    for text, kind in extra[: size - 1]:
        cairn.remember(text, kind=kind)
    return cairn, target


POSITIVE = ["how does Omar want his eggs cooked", "Omar eggs", "what kind of eggs does Omar like"]
NEGATIVE = [
    "what is Omar's shoe size",
    "when is the plumber coming",
    "which football team does Omar support",
    "what is the router admin login",
    "where did we go skiing last winter",
]


@pytest.mark.parametrize("size", [1, 2, 5, 20, 100])
def test_the_right_answer_passes_at_every_size(tmp_path, size):
    cairn, target = store(tmp_path, size)
    with cairn:
        assert cairn.store.count_memories(cairn.space) == size
        for question in POSITIVE:
            assert target in cairn.recall(question, trace=False).ids, (size, question)


@pytest.mark.parametrize("size", [1, 2, 5, 20, 100])
def test_an_unrelated_question_gets_nothing_at_every_size(tmp_path, size):
    cairn, _ = store(tmp_path, size)
    with cairn:
        for question in NEGATIVE:
            assert cairn.recall(question, trace=False).ids == [], (size, question)


@pytest.mark.parametrize("size", [1, 2, 5, 20, 100])
def test_chinese_questions_at_every_size(tmp_path, size):
    cairn, target = store(tmp_path, size, ("小明下周去北京出差", "fact"))
    with cairn:
        assert cairn.recall("小明什么时候去北京", trace=False).ids == [target]
        assert cairn.recall("北京出差是哪一天", trace=False).ids == [target]
        assert cairn.recall("请问小明到底什么时候会去北京呢", trace=False).ids == [target]
        assert cairn.recall("公司的年会在哪里举行", trace=False).ids == []  # negative control
        assert cairn.recall("小红喜欢什么颜色", trace=False).ids == []
