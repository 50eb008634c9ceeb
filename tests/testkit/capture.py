"""Scoring of the rules extractor on the labelled capture set (tests and benchmark share it).

A proposed claim matches an expected one when the kinds are equal and their content terms
overlap (Jaccard ≥ 0.5): the wording of a claim may differ by a lead-in ("remember that")
without being a different claim. Assistant turns are read as the engine reads them: never.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from cairn.learn.extractors.rules import read_turn
from cairn.text import content_terms

SET = Path(__file__).parent.parent / "learning" / "capture" / "capture_set.jsonl"
# Written after the rules were tuned on SET, and scored once before any change for it.
SECOND = SET.with_name("capture_held2.jsonl")
MATCH = 0.5


def load(split: str | None = None) -> list[dict]:
    rows = [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if split is None or r["split"] == split]


def load_second() -> list[dict]:
    return [json.loads(line) for line in SECOND.read_text(encoding="utf-8").splitlines() if line.strip()]


def same(kind_a: str, text_a: str, kind_b: str, text_b: str) -> bool:
    a, b = set(content_terms(text_a)), set(content_terms(text_b))
    return kind_a == kind_b and bool(a | b) and len(a & b) / len(a | b) >= MATCH


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    turns: int = 0
    misses: list = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


def score(rows: list[dict], read=read_turn) -> Score:
    result = Score()
    for row in rows:
        result.turns += 1
        got = [(f.kind.value, f.content) for f in read(row["text"])] if row["role"] == "user" else []
        expected = [(c["kind"], c["content"]) for c in row["claims"]]
        left = list(expected)
        for kind, content in got:
            hit = next((e for e in left if same(kind, content, *e)), None)
            if hit is None:
                result.fp += 1
                result.misses.append(("fp", row["id"], row["text"], kind, content))
            else:
                left.remove(hit)
                result.tp += 1
        result.fn += len(left)
        result.misses += [("fn", row["id"], row["text"], k, c) for k, c in left]
    return result
