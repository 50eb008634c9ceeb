"""LoCoMo evidence retrieval: Cairn's episode lane against plain FTS5 BM25, same run.

Protocol (as published with the LoCoMo data): each question searches only its own
conversation; a turn is found when its ``dia_id`` is among the top k; **any@k** = at
least one evidence turn in the top k, **all@k** = every evidence turn in the top k.
Categories 1-4 only (5 is adversarial). Conversations 0-4 (file order) are the dev split
used for tuning, 5-9 the held-out split.

Cairn's side goes through the public path a user takes: a fresh store per conversation,
``Cairn.ingest(..., format="locomo")``, then ``Cairn.search(..., lane="episodes")``. The
baseline indexes ``Speaker: text [shares caption]`` in an FTS5 table with the porter
tokenizer and ORs the question's words (less the NLTK English stopwords), ranked by bm25.

The evidence lists have known defects: ids are normalised when they can be parsed
(``'D8:6; D9:17'``, ``'D:11:26'``, ``'D30:05'``), dropped when they cannot or point at no
turn, and the counts are reported; a question left without evidence is not asked.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from ..errors import BenchDataMissing
from ..store.sqlite.fts import BaselineIndex
from .stats import median_p95

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
SPLITS = {"dev": range(0, 5), "heldout": range(5, 10), "all": range(0, 10)}
SEARCH_LIMIT = 10  # Cairn.search returns up to ten
MAX_K = 20  # beyond search's ten, Cairn.recall returns up to twenty
# --lane: which of Cairn's episode lanes answers (the semantic two need the semantic extra).
LANES = {"lexical": "episodes", "semantic": "semantic-episodes", "hybrid": "hybrid-episodes"}
QUICK = (0, 5)  # one dev and one held-out conversation: the CI variant
REPO = Path(__file__).resolve().parents[3]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "locomo10.json"

# The classic NLTK English stopword list: the data's published reference numbers
# (any@5 0.584, any@10 0.673) are reproduced with it, and not without it.
BASELINE_STOPWORDS = frozenset("""
i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers
herself it its itself they them their theirs themselves what which who whom this that these those am is
are was were be been being have has had having do does did doing a an the and but if or because as until
while of at by for with about against between into through during before after above below to from up
down in out on off over under again further then once here there when where why how all any both each
few more most other some such no nor not only own same so than too very s t can will just don should now
""".split())
_EVIDENCE_RE = re.compile(r"D:?(\d+):(\d+)")
_WORD_RE = re.compile(r"[^\W_]+", re.UNICODE)


def load(path: str | Path | None = None) -> list[dict]:
    """The list of LoCoMo conversations; a clear one-line error when it is absent."""
    target = Path(path) if path else DEFAULT_DATA
    if not target.is_file():
        raise BenchDataMissing(target, "put locomo10.json in ../shared/data/ beside the repository, or give --data PATH")
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise BenchDataMissing(target, f"unreadable ({type(err).__name__})") from None
    if not isinstance(data, list) or not all(isinstance(c, dict) and "qa" in c for c in data):
        raise BenchDataMissing(target, "not a LoCoMo list of conversations")
    return data


# -- questions and their evidence --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Question:
    conversation: int
    category: int
    text: str
    evidence: frozenset[str]


@dataclass
class EvidenceNotes:
    """What normalising the evidence lists changed (reported with every run)."""

    rewritten: int = 0  # ids parsed out of a malformed string
    dropped: int = 0  # ids that could not be parsed or name no turn
    unanswerable: int = 0  # questions of categories 1-4 left without evidence

    def lines(self) -> list[str]:
        return [f"evidence lists: {self.rewritten} ids normalised, {self.dropped} ids dropped "
                f"(unparseable or no such turn), {self.unanswerable} questions without evidence skipped"]


def turn_ids(conversation: dict) -> set[str]:
    conv = conversation["conversation"]
    return {t["dia_id"] for k, v in conv.items() if k.startswith("session_") and isinstance(v, list) for t in v}


def questions(conversation: dict, index: int, notes: EvidenceNotes) -> list[Question]:
    """Questions of categories 1-4 with their normalised evidence."""
    known = turn_ids(conversation)
    out = []
    for qa in conversation["qa"]:
        if qa.get("category") not in CATEGORIES:
            continue
        evidence: set[str] = set()
        for raw in qa.get("evidence") or []:
            found = [f"D{int(a)}:{int(b)}" for a, b in _EVIDENCE_RE.findall(str(raw))]
            if found != [raw]:
                notes.rewritten += len([f for f in found if f in known])
            notes.dropped += len([f for f in found if f not in known]) + (0 if found else 1)
            evidence.update(f for f in found if f in known)
        if not evidence:
            notes.unanswerable += 1
            continue
        out.append(Question(index, qa["category"], qa["question"], frozenset(evidence)))
    return out


# -- the two retrievers ------------------------------------------------------------------


class CairnRanker:
    """Cairn on a fresh store holding one conversation, ingested through the public API
    and searched through it: ``Cairn.search(..., lane="episodes")`` (``recall`` beyond
    search's ten results). No trace is written, so the store holds only the episodes."""

    def __init__(self, conversation: dict, folder: Path, lane: str = "lexical") -> None:
        from ..engine import Cairn

        self.lane = LANES[lane]
        self.cairn = Cairn(folder / f"{conversation.get('sample_id', 'conversation')}.db")
        self.cairn.ingest(conversation, format="locomo", progress=False)
        if lane != "lexical":
            self.cairn.embed(progress=False)  # a bulk ingest is embedded by the back-fill

    def __call__(self, question: str, k: int) -> list[str]:
        if k <= SEARCH_LIMIT:
            found = self.cairn.search(question, lane=self.lane, limit=k, trace=False)
        else:
            found = self.cairn.recall(question, lane=self.lane, limit=k, budget=k * 1024, trace=False)
        return [r.memory.evidence.source_id or "" for r in found.results]

    def close(self) -> None:
        self.cairn.close()


class BaselineRanker:
    """The reference ranker published with the data: FTS5 porter over
    ``Speaker: text [shares caption]``, OR of the question's words minus the NLTK English
    stopwords, ranked by bm25."""

    def __init__(self, conversation: dict) -> None:
        rows = []
        for key, turns in conversation["conversation"].items():
            if not (key.startswith("session_") and isinstance(turns, list)):
                continue
            for t in turns:
                body = f"{t['speaker']}: {t['text']}"
                if t.get("blip_caption"):
                    body += f" [shares {t['blip_caption']}]"
                rows.append((t["dia_id"], body))
        self.index = BaselineIndex(rows)

    def __call__(self, question: str, k: int) -> list[str]:
        words = [w for w in dict.fromkeys(w.lower() for w in _WORD_RE.findall(question)) if w not in BASELINE_STOPWORDS]
        return self.index.rank(words, k)

    def close(self) -> None:
        self.index.close()


# -- scoring -----------------------------------------------------------------------------


@dataclass
class Side:
    """Hits and latencies of one retriever over a set of questions."""

    ks: tuple[int, ...]
    any_hits: dict[int, int] = field(default_factory=dict)
    all_hits: dict[int, int] = field(default_factory=dict)
    latencies_ms: list[float] = field(default_factory=list)
    asked: int = 0

    def add(self, ranked: list[str], evidence: frozenset[str], ms: float) -> None:
        self.asked += 1
        self.latencies_ms.append(ms)
        for k in self.ks:
            top = set(ranked[:k])
            self.any_hits[k] = self.any_hits.get(k, 0) + bool(top & evidence)
            self.all_hits[k] = self.all_hits.get(k, 0) + (evidence <= top)

    def doc(self, latency: bool = True) -> dict:
        out: dict = {}
        for k in self.ks:
            out[f"any@{k}"] = round(self.any_hits.get(k, 0) / self.asked, 3) if self.asked else 0.0
            out[f"all@{k}"] = round(self.all_hits.get(k, 0) / self.asked, 3) if self.asked else 0.0
        if latency:
            out["latency_ms"] = median_p95(self.latencies_ms, 3)
        return out


@dataclass
class Cell:
    """Cairn and baseline over one group of questions (a split, a category)."""

    cairn: Side
    baseline: Side

    @classmethod
    def empty(cls, ks) -> Cell:
        return cls(Side(ks), Side(ks))


@dataclass
class Result:
    split: str
    ks: tuple[int, ...]
    conversations: tuple[int, ...]
    total: Cell
    by_split: dict[str, Cell]
    by_category: dict[int, Cell]
    notes: EvidenceNotes
    ingest_s: float = 0.0

    @property
    def questions(self) -> int:
        return self.total.cairn.asked

    def doc(self) -> dict:
        """The ``--json`` document (its keys are pinned by the benchmark tests)."""
        return {
            "split": self.split,
            "questions": self.questions,
            "cairn": self.total.cairn.doc(),
            "baseline": self.total.baseline.doc(),
            "categories": {
                str(c): {"name": CATEGORIES[c], "questions": cell.cairn.asked,
                         "cairn": cell.cairn.doc(latency=False), "baseline": cell.baseline.doc(latency=False)}
                for c, cell in sorted(self.by_category.items())
            },
        }


def run(data: list[dict], *, split: str = "all", ks=(5, 10), quick: bool = False,
        cairn_factory=None, progress: Callable[[str], None] | None = None, lane: str = "lexical") -> Result:
    """Ask every question of the chosen conversations of both retrievers (Cairn's
    through ``lane``, one of :data:`LANES`)."""
    if cairn_factory is None:
        cairn_factory = partial(CairnRanker, lane=lane)
    ks = tuple(sorted(set(ks)))
    chosen = tuple(i for i in (QUICK if quick else SPLITS[split]) if i < len(data) and (quick or i in SPLITS[split]))
    notes = EvidenceNotes()
    total, by_split = Cell.empty(ks), {name: Cell.empty(ks) for name in ("dev", "heldout")}
    by_category = {c: Cell.empty(ks) for c in CATEGORIES}
    ingest_s = 0.0
    with tempfile.TemporaryDirectory(prefix="cairn-locomo-") as folder:
        for index in chosen:
            conversation = data[index]
            started = time.perf_counter()
            cairn = cairn_factory(conversation, Path(folder))
            ingest_s += time.perf_counter() - started
            baseline = BaselineRanker(conversation)
            cells = (total, by_split["dev" if index in SPLITS["dev"] else "heldout"])
            try:
                for q in questions(conversation, index, notes):
                    for side, ranker in (("cairn", cairn), ("baseline", baseline)):
                        started = time.perf_counter()
                        ranked = ranker(q.text, max(ks))
                        ms = (time.perf_counter() - started) * 1000
                        for cell in (*cells, by_category[q.category]):
                            getattr(cell, side).add(ranked, q.evidence, ms)
            finally:
                cairn.close()
                baseline.close()
            if progress:
                progress(f"conversation {index} done")
    return Result(split if not quick else "quick", ks, chosen, total,
                  {k: v for k, v in by_split.items() if v.cairn.asked}, by_category, notes, ingest_s)
