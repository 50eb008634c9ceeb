"""docs/recall.md quotes the profile objects; this keeps the quote honest."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "recall.md"
ROW = re.compile(r"^\| [^|]+ \| ([^|]+) \| `recall\.([\w.]+)` \|$")


def _rows():
    return [m.groups() for line in DOC.read_text(encoding="utf-8").splitlines() if (m := ROW.match(line.strip()))]


def test_constants_table_is_present():
    assert len(_rows()) >= 15


@pytest.mark.parametrize(("value", "path"), _rows())
def test_documented_constant_matches_the_code(value, path):
    module, *attrs = path.split(".")
    obj = importlib.import_module(f"cairn.recall.{module}")
    for attr in attrs:
        obj = getattr(obj, attr)
    assert float(value) == pytest.approx(float(obj))
