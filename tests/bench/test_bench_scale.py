"""The scale ladder's CI variant and its generator; the full ladder stays out of CI."""

from __future__ import annotations

import time

from cairn.bench import scale


def test_scale_1000_reports_every_measure(cli, db_path):
    result = cli("--json", "bench", "scale", "--sizes", "1000")
    assert result.code == 0, result.err
    (row,) = result.json()["sizes"]
    assert row["status"] == "ok" and row["size"] == 1000
    assert row["records"] >= 1000  # plus the correcting records
    assert row["ingest_per_s"] > 0 and row["db_mb"] > 0 and row["peak_rss_mb"] > 0
    assert 0 < row["recall_ms"]["median"] <= row["recall_ms"]["p95"]
    assert row["queries"] == scale.NEEDLES + scale.BACKGROUND_QUERIES
    assert row["needle_hit@3"] >= 0.9 and row["fts_lane_hit@3"] >= 0.9
    assert 0 < row["fts_lane_ms"]["median"] <= row["fts_lane_ms"]["p95"]
    assert not db_path.exists()


def test_the_generator_is_deterministic_and_varied():
    first, second = scale.Generator(2000), scale.Generator(2000)
    lines = list(first.lines())
    assert lines == list(second.lines())
    assert first.needles == second.needles and len(first.needles) == scale.NEEDLES
    text = "\n".join(lines)
    for kind in ("fact", "preference", "decision", "project_state"):
        assert f'"kind":"{kind}"' in text
    for status in ("forgotten", "conflicted", "confirmed"):
        assert f'"status":"{status}"' in text
    assert '"role":"corrects"' in text


def test_a_size_over_its_budget_says_where_it_stopped(tmp_path):
    row = scale.measure(3000, tmp_path, budget_s=0.001, batch_size=1000)
    assert row["status"].startswith("incomplete: ingest stopped at 1000 records")
    assert row["records"] == 1000 and "recall_ms" in row  # what was reached is still measured


def test_a_recall_step_over_its_budget_says_how_far_it_got():
    gen = scale.Generator(200)
    list(gen.lines())  # plants the needles

    def slow(query):
        time.sleep(0.05)
        return []

    stats = scale._recall_stats(slow, gen, 0.12, ["a b", "c d"])
    assert 2 <= stats["queries"] <= 4 < len(gen.needles) + 2
    assert stats["needle_hit@3"] == 0.0 and stats["ms"]["median"] >= 50


def test_bad_sizes_are_a_usage_error(cli):
    assert cli("bench", "scale", "--sizes", "ten").code == 2
    assert cli("bench", "scale", "--sizes", "0").code == 2
