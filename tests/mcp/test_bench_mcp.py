"""The MCP round-trip benchmark: a quick run on a small store, and its section of
docs/benchmarks.md in the harness's format with the command, machine and date."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cairn.bench import mcp_latency
from cairn.bench.report import section

pytestmark = pytest.mark.slow

DOC = Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md"
MS = re.compile(r"^\d+\.\d{2} / \d+\.\d{2}$")


def test_a_quick_run_measures_both_sides_on_the_same_queries():
    [row] = mcp_latency.run([300], 12, seed=3)
    assert row["size"] == 300 and row["queries"] == 12
    assert 0 < row["median"] <= row["p95"] and 0 < row["median_mcp"] <= row["p95_mcp"]
    assert row["added"] == pytest.approx(row["median_mcp"] - row["median"])
    assert row["cpu"] > 0 and row["cpu_client"] > 0
    assert row["cpu_server"] is not None and row["cpu_server"] > 0  # Linux: /proc is readable
    text = mcp_latency.report([row], "python -m cairn.bench.mcp_latency --sizes 300")
    assert "| 300 | 12 |" in text and ("**met**" in text) != ("**missed**" in text)


def test_the_documented_numbers_keep_the_harness_format():
    lines = section(DOC.read_text(encoding="utf-8"), "mcp-latency")
    assert lines, "docs/benchmarks.md has no mcp-latency section"
    assert re.fullmatch(r"Command: `python -m cairn\.bench\.mcp_latency [^`]*--sizes 10000,100000[^`]*` {2}", lines[0])
    assert lines[1].startswith("Machine: ") and re.fullmatch(r"Date: \d{4}-\d{2}-\d{2}", lines[2])
    start = next(i for i, line in enumerate(lines) if line.startswith("| claims | queries | in process | over MCP stdio"))
    rows = [line.strip("|").split("|") for line in lines[start + 2:] if line.startswith("|")]
    assert [r[0].strip() for r in rows] == ["10,000", "100,000"]
    for cells in rows:
        assert MS.match(cells[2].strip()) and MS.match(cells[3].strip()), cells
    assert any(line.startswith("Target: the protocol adds ≤ 3 ms") for line in lines)
