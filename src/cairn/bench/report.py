"""Rendering of benchmark results: terminal text and the sections of ``docs/benchmarks.md``.

A section of the document lies between ``<!-- bench:NAME:begin -->`` and
``<!-- bench:NAME:end -->``; writing a section replaces only what lies between its two
markers (the prose around it is left as it stands) and stamps it with the exact
command, the machine (cores, Python, SQLite) and the date. The table formats here are
the harness's output format: a test checks the document against them.
"""

from __future__ import annotations

import os
import platform
import re
from datetime import UTC, datetime
from pathlib import Path

from ..store import sqlite_version
from .locomo import CATEGORIES, Cell, Result

CELL_RE = re.compile(r"^\d\.\d{3} / \d\.\d{3}$")  # "Cairn / baseline"
MS_CELL_RE = re.compile(r"^\d+\.\d{2} / \d+\.\d{2}$")


def machine() -> str:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{os.cpu_count()} cores{' (' + model + ')' if model else ''}, {platform.system()} {platform.machine()}, "
            f"Python {platform.python_version()}, SQLite {sqlite_version()}")


def stamp(command: str, today: datetime | None = None) -> list[str]:
    when = (today or datetime.now(UTC)).strftime("%Y-%m-%d")
    return [f"Command: `{command}`  ", f"Machine: {machine()}  ", f"Date: {when}"]


# -- LoCoMo ------------------------------------------------------------------------------


def _cells(cell: Cell, ks) -> list[str]:
    c, b = cell.cairn.doc(latency=False), cell.baseline.doc(latency=False)
    return [f"{c[f'{m}@{k}']:.3f} / {b[f'{m}@{k}']:.3f}" for k in ks for m in ("any", "all")]


def locomo_header(ks) -> list[str]:
    return ["group", "questions", *[f"{m}@{k}" for k in ks for m in ("any", "all")]]


def locomo_table(result: Result) -> list[str]:
    """Markdown table: one row per split, per category and the total; cells Cairn / baseline."""
    head = locomo_header(result.ks)
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    groups = [(f"split {name}", cell) for name, cell in result.by_split.items()]
    groups += [(f"cat {c} {CATEGORIES[c]}", cell) for c, cell in sorted(result.by_category.items()) if cell.cairn.asked]
    groups.append(("total", result.total))
    for label, cell in groups:
        lines.append("| " + " | ".join([label, str(cell.cairn.asked), *_cells(cell, result.ks)]) + " |")
    c, b = result.total.cairn.doc(), result.total.baseline.doc()
    lines += ["", "| latency per question (ms) | median | p95 |", "|---|---:|---:|",
              f"| Cairn / baseline | {c['latency_ms']['median']:.2f} / {b['latency_ms']['median']:.2f}"
              f" | {c['latency_ms']['p95']:.2f} / {b['latency_ms']['p95']:.2f} |"]
    return lines


def locomo_text(result: Result) -> str:
    lines = [f"LoCoMo evidence retrieval, split {result.split}, conversations {list(result.conversations)}, "
             f"{result.questions} questions (categories 1-4); cells are Cairn / FTS5 baseline", ""]
    return "\n".join(lines + locomo_table(result))  # the evidence notes go to stderr


def write_locomo(path, result: Result, *, command: str) -> None:
    body = stamp(command) + ["", *locomo_table(result), "", *result.notes.lines()]
    write_section(path, "locomo", body)


# -- scale -------------------------------------------------------------------------------

SCALE_HEADER = ["records", "ingest/s", "recall median ms", "recall p95 ms", "needle hit@3", "FTS lane median ms",
                "FTS lane p95 ms", "db MB", "peak RSS MB", "process median ms", "process p95 ms", "status"]


def scale_table(rows: list[dict]) -> list[str]:
    lines = ["| " + " | ".join(SCALE_HEADER) + " |", "|" + "---:|" * (len(SCALE_HEADER) - 1) + "---|"]
    for row in rows:
        if "recall_ms" not in row:
            lines.append(f"| {row['size']} |" + " – |" * (len(SCALE_HEADER) - 2) + f" {row['status']} |")
            continue
        lines.append(
            f"| {row['records']} | {row['ingest_per_s']} | {row['recall_ms']['median']:.2f} | {row['recall_ms']['p95']:.2f}"
            f" | {row['needle_hit@3']:.3f} | {row['fts_lane_ms']['median']:.2f} | {row['fts_lane_ms']['p95']:.2f}"
            f" | {row['db_mb']:.1f} | {row['peak_rss_mb']:.1f} | {_ms(row, 'median')} | {_ms(row, 'p95')} | {row['status']} |"
        )
    lanes = sorted({row["lane"] for row in rows if "lane" in row})
    lines += [""] + [f"Recall measured through: {lane}; FTS lane: FTS5 bm25 + exclusions alone;"
                     " process: one `python -m cairn recall` per query, wall time, trace on." for lane in lanes]
    return lines + episode_table(rows)


EPISODE_HEADER = ["turns", "ingest/s", "episode recall median ms", "p95 ms", "needle hit@5", "status"]


def episode_table(rows: list[dict]) -> list[str]:
    """The episode lane's ladder (rows measured with episodes only)."""
    done = [row for row in rows if "episode_recall_ms" in row]
    if not done:
        return []
    lines = ["", "| " + " | ".join(EPISODE_HEADER) + " |", "|" + "---:|" * (len(EPISODE_HEADER) - 1) + "---|"]
    for row in done:
        ms = row["episode_recall_ms"]
        lines.append(f"| {row['turns']} | {row['episode_ingest_per_s']} | {ms['median']:.2f} | {ms['p95']:.2f}"
                     f" | {row['episode_needle_hit@5']:.3f} | {row.get('episode_status', 'ok')} |")
    return lines + ["", "Episodes: conversations of 600 turns through `Cairn.ingest`, questions through"
                        " `Cairn.recall(lane=\"episodes\", limit=5)` without traces."]


def _ms(row: dict, key: str) -> str:
    return f"{row['process_ms'][key]:.1f}" if "process_ms" in row else "–"


def scale_text(rows: list[dict]) -> str:
    return "\n".join(["Scale ladder", ""] + scale_table(rows))


def write_scale(path, rows: list[dict], *, command: str) -> None:
    write_section(path, "scale", stamp(command) + ["", *scale_table(rows)])


# -- the document ------------------------------------------------------------------------


def markers(name: str) -> tuple[str, str]:
    return f"<!-- bench:{name}:begin -->", f"<!-- bench:{name}:end -->"


def write_section(path, name: str, body: list[str]) -> None:
    """Replace the section ``name`` of the document (appended when it has none yet)."""
    target = Path(path)
    text = target.read_text(encoding="utf-8") if target.exists() else ""
    begin, end = markers(name)
    block = "\n".join([begin, *body, end])
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        text = head + block + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + block + "\n"
    target.write_text(text, encoding="utf-8")


def section(text: str, name: str) -> list[str] | None:
    """The lines of a section of a document, or None when it has none."""
    begin, end = markers(name)
    if begin not in text or end not in text:
        return None
    return text.split(begin, 1)[1].split(end, 1)[0].strip("\n").splitlines()
