"""The digest (docs/recall.md, stage 8): ≤3 claims, ≤2048 UTF-8 bytes, excerpts ≤400 bytes cut on a
character boundary, labels; a historical rationale only right after its successor."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.recall.gates import Reason
from cairn.recall.pack import HEADER, HISTORICAL, PACK, PackItem, excerpt, pack, utf8_len


def item(i: str, content: str = "some claim text", markers=(), superseded_by=None) -> PackItem:
    return PackItem(i, content, ("decision", "provisional", "user_statement/manual", *markers), tuple(markers), superseded_by)


def test_defaults():
    assert (PACK.limit, PACK.budget, PACK.excerpt_max) == (3, 2048, 400)


def test_at_most_limit_claims_and_the_rest_rank_cut():
    packed = pack([item(str(i)) for i in range(5)])
    assert packed.ids == ["0", "1", "2"]
    assert packed.rejected == [("3", Reason.RANK_CUT), ("4", Reason.RANK_CUT)]


def test_digest_within_budget_and_excerpts_within_400_bytes():
    items = [item(str(i), "é" * 700) for i in range(3)]  # 1400 bytes each
    packed = pack(items)
    assert utf8_len(packed.digest) <= 2048
    for _, text, truncated in packed.emitted:
        assert utf8_len(text) <= 400 and truncated
        assert text.endswith("…")


def test_excerpt_cut_on_a_character_boundary():
    for text in ("é" * 300, "数据" * 200, "🙂" * 150, "a" + "é" * 300):
        cut, truncated = excerpt(text, 400)
        assert truncated and utf8_len(cut) <= 400
        cut.encode("utf-8").decode("utf-8")  # always valid UTF-8
        assert text.startswith(cut[:-1])


def test_short_excerpt_is_kept_whole():
    assert excerpt("  a\n short   text ", 400) == ("a short text", False)


def test_each_line_carries_its_labels_and_the_header_comes_first():
    packed = pack([item("abcdefghijkl", "use sqlite", markers=("aging", "corrected"))])
    lines = packed.digest.split("\n")
    assert lines[0] == HEADER
    assert lines[1] == '- [decision | provisional | user_statement/manual | aging | corrected] "use sqlite" (id abcdefghij)'


def test_line_that_does_not_fit_is_shortened_or_left_out_over_budget():
    big = item("a", "x" * 400)
    packed = pack([big, item("b", "short one")], budget=PACK.min_budget)
    assert utf8_len(packed.digest) <= PACK.min_budget
    assert "a" in packed.ids and packed.emitted[0][2]  # shortened to fit
    assert ("b", Reason.OVER_BUDGET) in packed.rejected


def test_empty_input_packs_nothing():
    assert pack([]).digest == ""


def test_historical_rationale_follows_its_successor():
    packed = pack([item("new"), item("old", markers=(HISTORICAL,), superseded_by="new")])
    assert packed.ids == ["new", "old"]


def test_historical_rationale_without_its_successor_is_rejected():
    packed = pack([item("other"), item("old", markers=(HISTORICAL,), superseded_by="new")])
    assert packed.ids == ["other"]
    assert packed.rejected == [("old", Reason.SUCCESSOR_NOT_SELECTED)]


def test_historical_rationale_rejected_when_successor_was_over_budget():
    successor = item("new", "n" * 400)
    rationale = item("old", "o", markers=(HISTORICAL,), superseded_by="new")
    packed = pack([item("first", "f" * 60), successor, rationale], budget=PACK.min_budget + 60)
    assert "new" not in packed.ids and "old" not in packed.ids
    assert ("old", Reason.SUCCESSOR_NOT_SELECTED) in packed.rejected


def test_historical_rationale_rejected_when_not_immediately_after():
    packed = pack([item("new"), item("mid"), item("old", markers=(HISTORICAL,), superseded_by="new")])
    assert packed.ids == ["new", "mid"]


entry = st.tuples(st.booleans(), st.integers(min_value=1, max_value=600), st.integers(min_value=0, max_value=5))


@settings(max_examples=400, deadline=None)
@given(
    budget=st.integers(min_value=PACK.min_budget, max_value=2400),
    limit=st.integers(min_value=1, max_value=5),
    entries=st.lists(entry, min_size=1, max_size=8),
)
def test_invariants_hold_at_every_budget(budget, limit, entries):
    """Hand-made resolved lists mixing decisions (multi-byte text) and historical rationales
    naming an earlier decision. Whatever the budget and limit, the packet stays bounded and
    no rationale appears without its successor immediately before it."""
    items: list[PackItem] = []
    decisions: list[str] = []
    for n, (is_rationale, size, ref) in enumerate(entries):
        if is_rationale and decisions:
            items.append(item(f"h{n}", "r" * size, markers=(HISTORICAL,), superseded_by=decisions[ref % len(decisions)]))
        else:
            decisions.append(f"d{n}")
            items.append(item(f"d{n}", "é" * size))
    packed = pack(items, limit=limit, budget=budget)
    assert utf8_len(packed.digest) <= budget
    assert len(packed.emitted) <= limit
    for k, (emitted, text, _) in enumerate(packed.emitted):
        assert utf8_len(text) <= PACK.excerpt_max
        if HISTORICAL in emitted.markers:
            assert k > 0 and packed.emitted[k - 1][0].id == emitted.superseded_by
    assert {i for i, _ in packed.rejected} | set(packed.ids) == {i.id for i in items}
