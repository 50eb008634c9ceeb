"""docs/evidence.md quotes the policy constants: a change to either must change both."""

from __future__ import annotations

from pathlib import Path

from cairn.learn import batch as batch_module
from cairn.learn import consolidate
from cairn.policy import authority

DOC = (Path(__file__).resolve().parents[2] / "docs" / "evidence.md").read_text(encoding="utf-8")


def test_doc_quotes_the_candidate_rules():
    assert f"**{consolidate.MENTIONED_CAP} most recent**" in DOC
    assert f"at least {consolidate.MIN_CONTAINMENT:.0%}".replace("%", " %") in DOC
    assert f"at least {consolidate.MIN_SHARED_TERMS} of them" in DOC


def test_doc_quotes_the_batch_limits_and_fresh_progress_window():
    assert f"At most {batch_module.MAX_CLAIMS} claims" in DOC
    assert f"{batch_module.MAX_SOURCE_TEXT:,}".replace(",", " ") + " characters" in DOC
    assert f"than {authority.FRESH_PROGRESS.days} days before now" in DOC


def test_doc_lists_every_allowed_basis():
    for kind, bases in batch_module.ALLOWED_BASES.items():
        row = next(line for line in DOC.splitlines() if line.startswith(f"| `{kind.value}` |"))
        assert all(f"`{b.value}`" in row for b in bases), row



def _aging_rows() -> list[str]:
    """The rows of the doc's aging table as cairn.policy.aging.AGING says they must read."""
    from cairn.policy.aging import AGING

    rows = []
    for kind, profile in AGING.items():
        dormant = "never" if profile.dormant_after_days is None else f"{profile.dormant_after_days:g}"
        rows.append(f"| `{kind.value}` | {profile.half_life_days:g} | {profile.floor:.2f} | {dormant} |")
    return rows


def test_doc_quotes_the_aging_table():
    assert [row for row in _aging_rows() if row not in DOC] == []
    # Negative control: one changed half-life in the doc is caught.
    altered = DOC.replace("| `fact` | 60 |", "| `fact` | 61 |")
    assert [row for row in _aging_rows() if row not in altered] == [r for r in _aging_rows() if r.startswith("| `fact`")]
