"""Patterns compiled when first used (:class:`cairn.text.LazyPattern`): a recall process
compiles the patterns of the kinds of question it is asked, not every pattern of the
recall modules (compiling them all cost a fresh process several milliseconds; docs/
benchmarks.md, "Process start-up").

Checked two ways: a lazy pattern answers exactly as the compiled one, method by method;
and a fresh interpreter that recalls a which-question has not compiled the time pattern,
while one asked "when" has (the control that the check can see a compiled one)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from cairn.text import LazyPattern

TEXTS = ["Deploys go out at 14:30 every Tuesday", "", "no digits here", "call 07700 900733 or mail ana@example.org",
         "Ünïcode 12.4.1 and 3pm\nsecond line. Third?"]


@pytest.mark.parametrize(("pattern", "flags"), [(r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(?:am|pm)\b", re.IGNORECASE),
                                                (r"(\w+)@(\w+)\.\w+", 0), (r"(?<=[.!?])\s+|\n+", 0)])
def test_a_lazy_pattern_answers_as_the_compiled_one(pattern, flags):
    lazy, compiled = LazyPattern(pattern, flags), re.compile(pattern, flags)
    assert "search" not in vars(lazy)  # nothing compiled yet
    for text in TEXTS:
        assert bool(lazy.search(text)) == bool(compiled.search(text))
        assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in compiled.finditer(text)]
        assert lazy.findall(text) == compiled.findall(text)
        assert lazy.sub("#", text) == compiled.sub("#", text) and lazy.split(text) == compiled.split(text)
        assert (lazy.match(text) is None) == (compiled.match(text) is None)
        assert (lazy.fullmatch(text) is None) == (compiled.fullmatch(text) is None)
    assert lazy.pattern == compiled.pattern and lazy.flags == compiled.flags
    assert "search" in vars(lazy)  # compiled once, kept


CHILD = """
import json, sys
from cairn import Cairn
from cairn.recall import query
with Cairn(sys.argv[1]) as cairn:
    cairn.remember("Use PostgreSQL 16 for billing, deploys at 14:30 on Tuesdays", kind="decision")
    cairn.recall(sys.argv[2], trace=False)
print(json.dumps("finditer" in vars(query._TIME_RE)))
"""


def _time_pattern_compiled(tmp_path, question: str) -> bool:
    done = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / f"{len(question)}.db"), question],
                          capture_output=True, text=True, timeout=120, env={"CAIRN_SEMANTIC": "off", "PATH": ""},
                          check=True)
    return json.loads(done.stdout)


def test_a_recall_compiles_the_time_pattern_only_when_asked_when(tmp_path):
    assert _time_pattern_compiled(tmp_path, "which database for billing") is False
    assert _time_pattern_compiled(tmp_path, "when do we deploy") is True
