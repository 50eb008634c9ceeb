"""docs/benchmarks.md holds the harness's numbers of record: its tables must keep the
harness's output format (not its values), with the command, machine and date above them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cairn.bench import locomo, report

DOC = Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md"
NUMBER = re.compile(r"^\d+(\.\d+)?$")
GROUPS = re.compile(r"^(split (dev|heldout)|cat [1-4] [a-z-]+|total)$")


def check_stamp(lines: list[str], bench: str) -> str:
    assert re.fullmatch(rf"Command: `cairn bench {bench}( [^`]+)?` {{2}}", lines[0]), lines[0]
    assert re.fullmatch(r"Machine: \d+ cores.*Python 3\.\d+\.\d+, SQLite 3\.\d+\.\d+ {2}", lines[1]), lines[1]
    assert re.fullmatch(r"Date: \d{4}-\d{2}-\d{2}", lines[2]), lines[2]
    return lines[0]


def rows(lines: list[str], header_start: str) -> tuple[list[str], list[list[str]]]:
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    header = [c.strip() for c in lines[start].strip("|").split("|")]
    body = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        body.append([c.strip() for c in line.strip("|").split("|")])
    return header, body


def check_locomo(lines: list[str]) -> None:
    command = check_stamp(lines, "locomo")
    given = re.search(r"--k ([\d,]+)", command)
    assert given, f"the stamped command names no --k: {command}"
    ks = tuple(int(k) for k in given.group(1).split(","))
    header, body = rows(lines, "| group |")
    assert header == report.locomo_header(ks)
    assert body and body[-1][0] == "total"
    for cells in body:
        assert GROUPS.match(cells[0]) and cells[1].isdigit(), cells
        assert all(report.CELL_RE.match(c) for c in cells[2:]), cells
    _, latency = rows(lines, "| latency per question (ms) |")
    assert latency[0][0] == "Cairn / baseline" and all(report.MS_CELL_RE.match(c) for c in latency[0][1:])
    assert any(line.startswith("evidence lists: ") for line in lines)


def check_scale(lines: list[str]) -> None:
    check_stamp(lines, "scale")
    header, body = rows(lines, "| records |")
    assert header == report.SCALE_HEADER and body
    for cells in body:
        assert len(cells) == len(report.SCALE_HEADER)
        assert all(NUMBER.match(c) or c == "–" for c in cells[:-1]), cells
        assert re.match(r"^(ok|incomplete: .+|failed: .+)$", cells[-1]), cells
    assert any(line.startswith("Recall measured through: ") for line in lines)


def _section(text: str, name: str) -> list[str]:
    lines = report.section(text, name)
    assert lines is not None, f"no {name} section"
    return lines


@pytest.fixture(scope="module")
def document() -> str:
    return DOC.read_text(encoding="utf-8")


def test_the_locomo_numbers_of_record_keep_the_harness_format(document):
    lines = report.section(document, "locomo")
    assert lines, "docs/benchmarks.md has no LoCoMo section"
    check_locomo(lines)


def test_the_scale_numbers_of_record_keep_the_harness_format(document):
    lines = report.section(document, "scale")
    assert lines, "docs/benchmarks.md has no scale section"
    check_scale(lines)


def test_the_checks_accept_what_the_harness_writes_and_refuse_a_hand_edit(tmp_path):
    """The checks above are about the harness's format: fresh output passes them, and a
    table edited by hand (a cell without its baseline) does not."""
    result = _fake_result()
    path = tmp_path / "b.md"
    report.write_locomo(path, result, command="cairn bench locomo --split all --k 5,10")
    report.write_scale(path, [_fake_scale_row()], command="cairn bench scale --sizes 1000")
    text = path.read_text()
    check_locomo(_section(text, "locomo"))
    check_scale(_section(text, "scale"))
    edited = text.replace(" / 0.500 |", " |", 1)
    with pytest.raises(AssertionError):
        check_locomo(_section(edited, "locomo"))


def test_writing_a_section_keeps_the_prose_around_it(tmp_path):
    path = tmp_path / "b.md"
    path.write_text("intro\n\n<!-- bench:scale:begin -->\nold\n<!-- bench:scale:end -->\n\noutro\n")
    report.write_section(path, "scale", ["new"])
    assert path.read_text() == "intro\n\n<!-- bench:scale:begin -->\nnew\n<!-- bench:scale:end -->\n\noutro\n"


def _fake_result() -> locomo.Result:
    ks = (5, 10)
    cells = {name: locomo.Cell.empty(ks) for name in ("total", "dev", "c1")}
    for cell in cells.values():
        cell.cairn.add(["D1:1"], frozenset({"D1:1"}), 2.0)
        cell.baseline.add(["D1:2"], frozenset({"D1:1"}), 1.0)
        cell.baseline.add(["D1:1"], frozenset({"D1:1"}), 1.0)
        cell.cairn.add(["D1:1"], frozenset({"D1:1"}), 2.0)
    return locomo.Result("all", ks, (0,), cells["total"], {"dev": cells["dev"]}, {1: cells["c1"]}, locomo.EvidenceNotes())


def _fake_scale_row() -> dict:
    return {"size": 1000, "status": "ok", "records": 1020, "ingest_per_s": 2000, "lane": "Cairn.recall (limit 3)",
            "recall_ms": {"median": 1.5, "p95": 3.25}, "needle_hit@3": 1.0, "db_mb": 1.3, "peak_rss_mb": 26.0,
            "fts_lane_ms": {"median": 0.5, "p95": 1.25}, "fts_lane_hit@3": 1.0}


def test_the_reading_quotes_the_episode_profile_as_it_is(document):
    """The weights the reading names are the ones the lane uses (a change must update both)."""
    from cairn.recall.episodes import PROFILE

    assert f"lends it {PROFILE.neighbour_weight} of its relevance" in document
    assert f"the session's best\n  turn {PROFILE.session_weight}" in document
    assert f"second names get {PROFILE.other_speaker_share} of the boost" in document
