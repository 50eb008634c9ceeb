"""The scale ladder: bulk ingest, recall latency, needle recall, size and memory per size.

For each size a fresh store is filled with synthetic but realistic claims — a Zipfian
vocabulary of a few thousand words over templates per kind, many origins, ages up to
four years (so project states and old facts go dormant), a few forgotten and
quarantined records, and a share of records corrected by a newer one (a ``corrects``
relation) — plus planted **needles**: claims with rare words that a later query names
with different surrounding words. Then:

* **ingest rate**: records per second through the public bulk path
  (``Cairn.import_``, one transaction per batch of :data:`BATCH` lines);
* **recall latency**: median and p95 over needle and background queries, in process,
  through ``Cairn.recall`` and, to tell the index's cost from the pipeline's, through
  the store's index alone (its relevance order and the status/dormancy exclusions);
* **needle hit@3**: share of needle queries whose needle is among the first 3 results;
* **process recall**: wall time of one whole ``python -m cairn recall QUERY`` process
  (interpreter start, imports, opening the store, recall, the trace write) for
  :data:`PROCESS_QUERIES` of the queries, as a host hook pays it once per prompt, from
  cached bytecode as an installed package runs (:func:`process_latency`);
* **database size** (file + WAL after a checkpoint) and **peak memory** (peak RSS of
  the child process that measured that size, so sizes do not inherit each other's peak).
  On Linux the row also splits it: ``ingest_rss_mb``, the peak while the claims were
  imported (the import holds a batch of :data:`BATCH` records parsed, whole), and
  ``recall_rss_mb``, the peak from then on through the claims recalls and the FTS lane
  (the peak is reset in between through ``/proc/self/clear_refs``; what the import
  freed but the allocator kept is still resident then, so this is an upper bound of
  what recalls on that store need); the episode part that follows in the same child
  counts only in ``peak_rss_mb``.

Each size runs in its own child process with an optional time budget per step (ingest,
recall); a size that cannot finish a step reports how far it got and why, instead of
failing the ladder.
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from itertools import chain, islice
from pathlib import Path
from typing import TYPE_CHECKING

from ..model import format_time
from .stats import median_p95

if TYPE_CHECKING:
    from ..engine import Cairn

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
BATCH = 20_000
NEEDLES = 25
BACKGROUND_QUERIES = 200
PROCESS_QUERIES = 30
SIZES = (1_000, 10_000, 100_000, 1_000_000)

_COMMON = """
server database cache deploy release branch test build pipeline config token secret key
user account login password email invoice payment order customer report dashboard metric
alert incident outage backup restore migration schema index query latency timeout retry
queue worker job schedule cron docker image container cluster node pod service endpoint
api client library version upgrade dependency package python rust go java typescript
frontend backend mobile android ios browser chrome firefox laptop monitor keyboard editor
vim emacs vscode terminal shell bash zsh git github gitlab review merge commit tag issue
ticket sprint roadmap meeting standup retro demo design spec draft document wiki notes
budget quarter deadline launch customer partner vendor contract legal privacy security
audit compliance region europe america asia tokyo berlin paris london york toronto sydney
coffee tea lunch dinner breakfast vegetarian vegan running cycling hiking climbing yoga
music guitar piano jazz rock reading novel podcast movie series travel flight hotel train
morning evening weekend holiday birthday family partner daughter son dog cat garden
""".split()

_SYLLABLES = "ka lo mer tis van dor qui sel bra nox fen ril tho mav zen pra lum dex gor sha vin tal ore".split()

_TEMPLATES = {
    "fact": (
        "The {a} {b} runs on {c} in {d} since version {n}.{m}",
        "{P} owns the {a} {b} and the {c} runbook for {d}",
        "Our {a} uses {b} with a {c} of {n} seconds for the {d} team",
    ),
    "preference": (
        "{P} prefers {a} over {b} for {c} work",
        "{P} likes {a} in the {b} and avoids {c} on {d}",
        "For {a} reviews {P} wants short {b} notes and a {c} link",
    ),
    "decision": (
        "We decided to move the {a} {b} to {c} before the {d} launch",
        "The team chose {a} for the {b} {c} after the {d} review",
        "Decision: keep {a} and {b} separate in {c} until {d}",
    ),
    "project_state": (
        "The {a} migration to {b} is {n}0 percent done; {c} is next",
        "{a} {b} is blocked on the {c} {d} ticket",
        "Release {n}.{m} of {a} is in {b} testing with {c} pending",
    ),
}
_PEOPLE = "Ana Ben Chen Dara Eli Femi Gus Hana Ivo Jun Kai Lena Milo Nia Omar Pia Raj Sol Tara Uma".split()
_KINDS = ("fact", "preference", "decision", "project_state")


def vocabulary(rng: random.Random, size: int = 4000) -> list[str]:
    """Common domain words first (frequent), then pseudo-words (the long tail)."""
    words = list(_COMMON)
    seen = set(words)
    while len(words) < size:
        w = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3)))
        if w not in seen:
            seen.add(w)
            words.append(w)
    return words


class Generator:
    """Deterministic synthetic claims, relations and needles for one size."""

    def __init__(self, size: int, seed: int = 7) -> None:
        self.size = size
        self.rng = random.Random(seed * 1_000_003 + size)
        self.words = vocabulary(self.rng)
        # Zipf-like weights: a few words are everywhere, most are rare.
        self.weights = [1.0 / (rank + 1) ** 1.05 for rank in range(len(self.words))]
        self.cum = list(_accumulate(self.weights))
        self.origins = [f"{kind}-{n}" for kind in ("project", "channel", "repo") for n in range(20)]
        stride = max(1, size // NEEDLES)
        self.needle_at = {min(size - 1, i * stride + self.rng.randrange(stride)): i for i in range(min(NEEDLES, size))}
        self.needles: list[tuple[str, str]] = []  # (id, query)

    def word(self) -> str:
        return self.rng.choices(self.words, cum_weights=self.cum)[0]

    def _id(self) -> str:
        return f"{self.rng.getrandbits(96):024x}"

    def _memory(self, content: str, kind: str, age_days: float, **extra) -> dict:
        at = NOW - timedelta(days=age_days)
        return {
            "id": self._id(), "space": "default", "origin": self.rng.choice(self.origins), "kind": kind,
            "content": content, "aliases": [], "status": extra.get("status", "provisional"), "layer": "durable",
            "evidence": {"basis": self.rng.choice(("user_statement", "summary", "tool_observation")),
                         "method": "agent", "source_id": None, "at": format_time(at)},
            "certainty": None, "valid_from": None, "valid_to": None,
            "created_at": format_time(at), "updated_at": format_time(at), "reinforced_at": None,
            "feedback": {"utility": None, "accuracy": None}, "revision": 1,
            "expected_resolution_at": None, "last_confirmed_at": None, "purged_at": None,
        }

    def _claim(self) -> tuple[str, str]:
        kind = self.rng.choice(_KINDS)
        template = self.rng.choice(_TEMPLATES[kind])
        text = template.format(a=self.word(), b=self.word(), c=self.word(), d=self.word(),
                               P=self.rng.choice(_PEOPLE), n=self.rng.randint(1, 9), m=self.rng.randint(0, 20))
        return kind, text

    def _needle(self, number: int) -> tuple[str, str, str]:
        rare = [f"{w}{self.rng.choice(_SYLLABLES)}x{number}" for w in ("zor", "quel")]
        text = (f"The {rare[0]} relay rotates its signing key every {number + 3} days "
                f"and reports to the {rare[1]} audit channel")
        query = f"how often does the {rare[0]} relay rotate the signing key"
        return "fact", text, query

    def lines(self) -> Iterator[str]:
        """JSONL lines for ``Cairn.import_``: memories, then the relations among them.

        The relations wait for the end as one short text each (their ids and time), not
        as dicts: at 1M records the 20,000 waiting dicts were 11 MB of the ladder's peak
        memory, which is the benchmark's, not the import's."""
        relations: list[str] = []  # "id from to created_at", in the order drawn
        for index in range(self.size):
            age = min(1500.0, self.rng.expovariate(1 / 200))
            if index in self.needle_at:
                kind, text, query = self._needle(self.needle_at[index])
                memory = self._memory(text, kind, age_days=min(age, 30))
                self.needles.append((memory["id"], query))
                yield _line("memory", memory)
                continue
            kind, text = self._claim()
            roll = self.rng.random()
            status = _status_for(roll)
            memory = self._memory(text, kind, age, status=status)
            yield _line("memory", memory)
            if roll > 0.98 and status == "provisional":  # 2 %: corrected later by a newer record
                newer = self._memory(text.rsplit(" ", 1)[0] + " " + self.word(), kind, age / 2)
                relations.append(f"{self._id()} {newer['id']} {memory['id']} {newer['created_at']}")
                yield _line("memory", newer)
        for relation in relations:
            relation_id, newer_id, older_id, created_at = relation.split()
            yield _line("relation", {"id": relation_id, "space": "default", "from": newer_id, "role": "corrects",
                                     "to": older_id, "created_at": created_at, "status": "active"})

    def background_queries(self, count: int) -> list[str]:
        return [" ".join(self.word() for _ in range(self.rng.randint(2, 4))) for _ in range(count)]


class Conversations:
    """Deterministic synthetic conversations for the episode lane: ``size`` turns in
    conversations of :data:`TURNS_PER_CONVERSATION` between two speakers, one turn a
    minute, words from the same Zipfian vocabulary as the claims, plus
    :data:`NEEDLES` planted turns with two rare words that a later question names."""

    def __init__(self, size: int, seed: int = 11) -> None:
        self.claims = Generator(size, seed)  # its vocabulary, weights and needle places
        self.rng = self.claims.rng
        self.size = size
        self.needles: list[tuple[str, str, str]] = []  # (origin, turn id, question)

    def conversations(self) -> Iterator[tuple[str, list[str]]]:
        """(origin, JSONL turn lines) per conversation, in order."""
        g = self.claims
        start = NOW - timedelta(days=400)
        index = 0
        number = 0
        while index < self.size:
            origin = f"conversation-{number}"
            people = self.rng.sample(_PEOPLE, 2)
            lines = []
            for n in range(min(TURNS_PER_CONVERSATION, self.size - index)):
                turn_id = f"{origin}-t{n}"
                if index in g.needle_at:
                    k = g.needle_at[index]
                    rare = [f"{w}{self.rng.choice(_SYLLABLES)}y{k}" for w in ("vel", "mor")]
                    text = f"I finally fixed the {rare[0]} valve with the {rare[1]} wrench last week"
                    self.needles.append((origin, turn_id, f"what did {people[n % 2]} fix with the {rare[1]} wrench"))
                else:
                    words = " ".join(g.word() for _ in range(self.rng.randint(4, 12)))
                    text = f"{self.rng.choice(_OPENERS)} {words}"
                at = start + timedelta(days=number % 400, minutes=n)
                lines.append(json.dumps({"id": turn_id, "speaker": people[n % 2], "text": text, "time": format_time(at)}))
                index += 1
            yield origin, lines
            number += 1

    def questions(self, count: int) -> list[str]:
        g = self.claims
        return [f"{self.rng.choice(_ASKS)} {' '.join(g.word() for _ in range(self.rng.randint(2, 4)))}"
                for _ in range(count)]


TURNS_PER_CONVERSATION = 600
EPISODE_QUERIES = 100
_OPENERS = ("I think", "Yesterday we talked about", "Did you see the", "My plan is", "Remember the", "Honestly,")
_ASKS = ("what did they say about", "when did we talk about", "who mentioned", "why did you like")


def _accumulate(values):
    total = 0.0
    for v in values:
        total += v
        yield total


def _status_for(roll: float) -> str:
    """A record's status from a uniform draw: 1 % forgotten, 0.5 % conflicted, 8.5 % confirmed."""
    if roll < 0.01:
        return "forgotten"
    if roll < 0.015:
        return "conflicted"
    return "confirmed" if roll < 0.1 else "provisional"


def _line(kind: str, data: dict) -> str:
    return json.dumps({"type": kind, "data": data}, separators=(",", ":"))


# -- recall adapters ---------------------------------------------------------------------


def recaller(cairn: Cairn) -> tuple[str, Callable[[str], list[str]]]:
    """(lane label, query -> ids) through ``Cairn.recall``."""

    def through_recall(query: str) -> list[str]:
        return [item.id for item in cairn.recall(query, limit=3, trace=False).results]

    return "Cairn.recall (limit 3)", through_recall


def _lexical_lane(cairn: Cairn) -> Callable[[str], list[str]]:
    """The store's index alone: records whose content holds any content term of the
    query, in the store's relevance order, less the inactive and dormant ones."""
    from ..policy.aging import freshness
    from ..recall.episodes import parse_episode_query

    def run(query: str) -> list[str]:
        words = parse_episode_query(query).terms
        if not words:
            return []
        hits = cairn.store.search_any(cairn.space, words, 30)
        found = cairn.store.get_memories(cairn.space, [i for i, _ in hits])
        now = cairn.now()
        keep = [i for i, _ in hits if i in found and found[i].active and not freshness(found[i], now).dormant]
        return keep[:3]

    return run


# -- one size ----------------------------------------------------------------------------


def measure(size: int, folder: Path, *, budget_s: float | None = None, recall_budget_s: float | None = None,
            seed: int = 7, batch_size: int = BATCH, progress: Callable[[str], None] | None = None,
            episodes: bool = True) -> dict:
    """Fill a fresh store with ``size`` claims and measure it (see the module docstring)."""
    from ..engine import Cairn

    gen = Generator(size, seed)
    path = folder / f"scale-{size}.db"
    row: dict = {"size": size, "status": "ok"}
    started = time.perf_counter()
    with Cairn(path, now=NOW) as cairn:
        written, lines = 0, gen.lines()
        # Each batch goes in as an iterator over the generator, as `cairn import FILE`
        # hands over its file: the import, not the benchmark, decides what it holds.
        while (first := next(lines, None)) is not None:
            written += cairn.import_(chain((first,), islice(lines, batch_size - 1))).records
            if progress:
                progress(f"size {size}: {written} records in {time.perf_counter() - started:.0f} s")
            if budget_s and time.perf_counter() - started > budget_s and next(lines, None) is not None:
                row["status"] = f"incomplete: ingest stopped at {written} records by the {budget_s:.0f} s budget"
                break
        elapsed = time.perf_counter() - started
        row.update(records=written, ingest_s=round(elapsed, 2), ingest_per_s=round(written / elapsed) if elapsed else 0)
        row["ingest_rss_mb"] = _peak_rss_mb(reset=True)
        queries = gen.background_queries(BACKGROUND_QUERIES)
        total = len(gen.needles) + len(queries)
        lane, ask = recaller(cairn)
        stats = _recall_stats(ask, gen, recall_budget_s, queries)
        row.update(lane=lane, queries=stats["queries"], recall_ms=stats["ms"], **{"needle_hit@3": stats["needle_hit@3"]})
        if stats["queries"] < total:
            note = f"recall stopped after {stats['queries']} of {total} queries by the {recall_budget_s:.0f} s budget"
            row["status"] = f"{row['status']}; {note}" if row["status"] != "ok" else f"incomplete: {note}"
        # The storage layer alone (index relevance + exclusions), to tell index cost from pipeline cost.
        lexical = _recall_stats(_lexical_lane(cairn), gen, recall_budget_s, queries)
        row["fts_lane_ms"] = lexical["ms"]
        row["fts_lane_hit@3"] = lexical["needle_hit@3"]
        row["recall_rss_mb"] = _peak_rss_mb()
        cairn.store.checkpoint()
    row["process_ms"] = process_latency(path, ([q for _, q in gen.needles] + queries)[:PROCESS_QUERIES])
    if episodes:
        row.update(measure_episodes(size, folder, budget_s=budget_s, recall_budget_s=recall_budget_s, progress=progress))
    row["db_mb"] = round(sum(p.stat().st_size for p in folder.glob(f"scale-{size}.db*")) / 1e6, 1)
    # ru_maxrss follows the reset peak too: the import's peak is read before the reset.
    row["peak_rss_mb"] = max(round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                             row.get("ingest_rss_mb") or 0.0)
    return row


def _peak_rss_mb(reset: bool = False) -> float | None:
    """This process's peak resident memory so far (``VmHWM``, MB), then, when ``reset``,
    the peak set back to the current RSS so that the next reading covers only what runs
    after. None where ``/proc`` does not say (not Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            peak = next((int(line.split()[1]) for line in status if line.startswith("VmHWM:")), None)
        if reset:
            with open("/proc/self/clear_refs", "w", encoding="ascii") as clear:
                clear.write("5")  # resets the peak RSS (Linux 4.0+), nothing else
    except (OSError, ValueError, IndexError):
        return None
    return None if peak is None else round(peak / 1024, 1)


def measure_episodes(size: int, folder: Path, *, budget_s: float | None = None, recall_budget_s: float | None = None,
                     progress: Callable[[str], None] | None = None) -> dict:
    """The episode lane at ``size`` turns: ingest rate through ``Cairn.ingest`` (one call
    per conversation), then recall latency through ``Cairn.recall(lane="episodes")`` for
    the needle questions and :data:`EPISODE_QUERIES` background questions, and needle
    hit@5 (the needle turn among the first five)."""
    from ..engine import Cairn

    conv = Conversations(size)
    path = folder / f"scale-{size}-episodes.db"
    out: dict = {}
    started = time.perf_counter()
    written = 0
    with Cairn(path, now=NOW) as cairn:
        for origin, lines in conv.conversations():
            written += cairn.ingest(lines, origin=origin, progress=False).episodes
            if progress and written % 100_000 < TURNS_PER_CONVERSATION:
                progress(f"size {size}: {written} turns in {time.perf_counter() - started:.0f} s")
            if budget_s and time.perf_counter() - started > budget_s:
                out["episode_status"] = f"incomplete: ingest stopped at {written} turns by the {budget_s:.0f} s budget"
                break
        elapsed = time.perf_counter() - started
        out.update(turns=written, episode_ingest_per_s=round(written / elapsed) if elapsed else 0)
        questions = [q for *_, q in conv.needles] + conv.questions(EPISODE_QUERIES)
        latencies, hits, asked = [], 0, 0
        t0 = time.perf_counter()
        for number, question in enumerate(questions):
            if recall_budget_s and time.perf_counter() - t0 > recall_budget_s:
                break
            t = time.perf_counter()
            found = cairn.recall(question, lane="episodes", limit=5, trace=False).results
            latencies.append((time.perf_counter() - t) * 1000)
            if number < len(conv.needles):
                origin, turn_id, _ = conv.needles[number]
                hits += any(r.memory.evidence.source_id == turn_id and r.memory.origin == origin for r in found)
                asked += 1
        out.update(episode_queries=len(latencies), episode_recall_ms=median_p95(latencies, 2),
                   **{"episode_needle_hit@5": round(hits / asked, 3) if asked else 0.0})
    for leftover in folder.glob(f"scale-{size}-episodes.db*"):
        leftover.unlink()
    return out


def _recall_stats(ask, gen: Generator, budget_s: float | None, queries: list[str]) -> dict:
    """Needle queries first, then background queries, until done or over the budget."""
    latencies, hits, asked = [], 0, 0
    started = time.perf_counter()
    for number, query in enumerate([q for _, q in gen.needles] + queries):
        if budget_s and time.perf_counter() - started > budget_s:
            break
        t0 = time.perf_counter()
        ids = ask(query)
        latencies.append((time.perf_counter() - t0) * 1000)
        if number < len(gen.needles):
            hits += gen.needles[number][0] in ids[:3]
            asked += 1
    return {"queries": len(latencies), "ms": median_p95(latencies, 2), "needle_hit@3": round(hits / asked, 3) if asked else 0.0}


def process_latency(path: Path, queries: list[str]) -> dict:
    """Median and p95 wall time (ms) of one ``python -m cairn recall`` process per query,
    with the code this module was imported from.

    The processes run as an installed package does, from cached bytecode: a cache in a
    temporary folder (``PYTHONPYCACHEPREFIX``), written by one untimed run first, as
    :mod:`cairn.bench.startup` does. Left to the checkout's ``__pycache__``, a process
    under ``PYTHONDONTWRITEBYTECODE`` (as this project's agents run) compiles on every
    start each module edited since its bytecode was last written."""
    src = str(Path(__file__).resolve().parents[2])
    latencies = []
    with tempfile.TemporaryDirectory(prefix="cairn-pycache-") as cache:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")])),
               "PYTHONPYCACHEPREFIX": cache}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        for number, query in enumerate(queries[:1] + queries):
            argv = [sys.executable, "-m", "cairn", "--db", str(path), "--now", format_time(NOW), "recall", query,
                    "--limit", "3"]
            t0 = time.perf_counter()
            subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            if number:  # the first run writes the bytecode cache (and warms the page cache)
                latencies.append((time.perf_counter() - t0) * 1000)
    return median_p95(latencies, 1)


# -- the ladder ----------------------------------------------------------------------------


def run(sizes=SIZES, *, budget_s: float | None = None, recall_budget_s: float | None = None,
        folder: str | None = None, progress: Callable[[str], None] | None = None) -> list[dict]:
    """Measure each size in its own child process (clean peak-memory figures)."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="cairn-scale-", dir=folder) as tmp:
        for size in sizes:
            rows.append(_child(size, Path(tmp), budget_s, recall_budget_s, progress))
            for leftover in Path(tmp).glob(f"scale-{size}.db*"):
                leftover.unlink()
    return rows


def _child(size: int, folder: Path, budget_s: float | None, recall_budget_s: float | None, progress) -> dict:
    code = ("import json,sys; from pathlib import Path; from cairn.bench.scale import measure;"
            f"print(json.dumps(measure({size}, Path({str(folder)!r}), budget_s={budget_s!r}, recall_budget_s={recall_budget_s!r},"
            " progress=lambda m: print(m, file=sys.stderr, flush=True))))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[2]),
                                                                      os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None and proc.stderr is not None  # both are pipes
    last_err = ""
    for line in proc.stderr:
        last_err = line.strip() or last_err
        if progress:
            progress(line.rstrip())
    out = proc.stdout.read()
    proc.wait()
    if proc.returncode != 0 or not out.strip():
        return {"size": size, "status": f"failed: child exited {proc.returncode}: {last_err[:200]}"}
    return json.loads(out.strip().splitlines()[-1])
