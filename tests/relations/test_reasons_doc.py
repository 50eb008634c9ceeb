"""docs/recall.md lists every reason a recall candidate can end with, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

from cairn.recall.gates import Reason

DOC = (Path(__file__).resolve().parents[2] / "docs" / "recall.md").read_text(encoding="utf-8")


def documented(text: str) -> set[str]:
    """The reasons in the first column of the doc's table under ``## Reasons``."""
    section = text.split("## Reasons", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([a-z-]+)` \|", section, flags=re.MULTILINE))


def test_the_reasons_table_lists_the_closed_set_exactly():
    assert documented(DOC) == {r.value for r in Reason} - {Reason.SELECTED.value}


def test_control_a_reason_missing_from_the_table_is_caught():
    without = DOC.replace("| `duplicate` |", "| duplicate |")
    assert {r.value for r in Reason} - {Reason.SELECTED.value} - documented(without) == {"duplicate"}
