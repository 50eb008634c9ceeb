"""Any valid query text recalls without error and within its bounds (no FTS5 syntax can
leak through from the query)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn.recall.pack import utf8_len

TEXTS = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), min_size=1, max_size=80
).filter(lambda s: s.strip())
SPECIAL = st.sampled_from(['"', "'", "*", "^", "NEAR(", "AND", "OR", "NOT", "-", ":", "(", ")", "{", "}", "数据库", "é"])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.lists(st.one_of(TEXTS, SPECIAL), min_size=1, max_size=6).map(" ".join),
       budget=st.integers(min_value=256, max_value=4096))
def test_any_query_recalls_within_bounds(cairn, query, budget):
    if not cairn.store.count_memories(cairn.space):
        for text in ('The "quoted" NEAR(api) deploy AND staging', "数据库备份每天运行", "Café déjà vu -flag *star*"):
            cairn.remember(text, kind="fact")
    recalled = cairn.recall(query.strip()[:512], budget=budget, trace=False)
    assert utf8_len(recalled.digest) <= budget
    assert len(recalled.results) <= 3
    doc = cairn.explain(query.strip()[:512])
    assert all(c["reason"] for c in doc["candidates"])
