"""Recall latency benchmark: median and p95 of one in-process recall at 1k, 10k, 100k claims.

    python -m cairn.bench.recall_latency [--sizes 1000,10000,100000] [--queries 300]
                                         [--out docs/benchmarks.md] [--seed 7]

Builds a synthetic store per size in a temporary folder (claims of 6-24 words drawn from a
Zipf-like vocabulary of 20 000 made-up words, 1 alias in 4), then times ``Cairn.recall``
for a fixed query mix: words sampled from stored claims (hits, some with a two-word
phrase), queries about absent topics (misses), and a few context-free ones. Each query is
timed without a trace (the read path) and with one (the default: one small write
transaction that does not sync the WAL). Nothing is downloaded; the numbers and the
command that produced them are written as one Markdown section.

Target: median ≤ 10 ms and p95 ≤ 25 ms per recall at 100k claims on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ..engine import Cairn
from ..engine.mutation import new_id
from ..model import Basis, Evidence, Kind, Memory, Method
from .report import stamp, write_section
from .stats import percentile

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
KINDS = (Kind.FACT, Kind.FACT, Kind.DECISION, Kind.PREFERENCE, Kind.PROJECT_STATE)
BASES = (Basis.USER_STATEMENT, Basis.SUMMARY, Basis.TOOL_OBSERVATION, Basis.UNKNOWN)
SYLLABLES = "ka lo mi ne ru sa ti vo ze ba de fi gu ha jo ke lu ma no pi qu re si to va we xi yo zu".split()
FILLER = "the a of to in for is on with and we use our by at from this that it be".split()


class Corpus:
    """A deterministic made-up language with a Zipf-like word frequency."""

    def __init__(self, rng: random.Random, vocabulary: int = 20_000) -> None:
        words: set[str] = set()
        while len(words) < vocabulary:
            words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
        self.words = sorted(words)
        rng.shuffle(self.words)
        # Zipf over ranks 101..: the top ranks of a real language are its stopwords, which
        # the tokenizer drops, so the most frequent content word here is in a few % of claims.
        self.weights = [1.0 / (rank + 101) for rank in range(len(self.words))]
        self.rng = rng

    def sentence(self) -> str:
        n = self.rng.randint(6, 24)
        content = self.rng.choices(self.words, weights=self.weights, k=n)
        out: list[str] = []
        for word in content:
            out.append(word)
            if self.rng.random() < 0.35:
                out.append(self.rng.choice(FILLER))
        return " ".join(out).capitalize()


def build(path: Path, size: int, rng: random.Random) -> tuple[list[str], list[str]]:
    """Write ``size`` claims straight through the store (one transaction per 5000 rows:
    the benchmark measures recall, not ingest); return their texts and the vocabulary,
    most frequent first."""
    corpus = Corpus(rng)
    texts: list[str] = []
    with Cairn(path, now=NOW) as cairn:
        batch = 5000
        for start in range(0, size, batch):
            with cairn.store.write() as tx:
                for i in range(start, min(size, start + batch)):
                    text = corpus.sentence()
                    texts.append(text)
                    at = NOW - timedelta(days=rng.uniform(0, 400))
                    kind = rng.choice(KINDS)
                    aliases = (rng.choice(corpus.words[:2000]),) if rng.random() < 0.25 else ()
                    tx.put_memory(
                        Memory(
                            id=new_id(), space="default", origin=f"project-{i % 20}", kind=kind, content=text,
                            created_at=at, updated_at=at, aliases=aliases,
                            evidence=Evidence(rng.choice(BASES), Method.AGENT, None, at),
                        )
                    )
    return texts, corpus.words


def common_queries(corpus_words: list[str], rng: random.Random, count: int) -> list[str]:
    """A stress mix: 2-3 of the 30 most frequent words (each in several % of claims)."""
    return [" ".join(rng.sample(corpus_words[:30], rng.randint(2, 3))) for _ in range(count)]


def queries(texts: list[str], rng: random.Random, count: int) -> list[str]:
    """A fixed mix: 70 % hits (2-4 words of a stored claim, some as a contiguous phrase),
    25 % misses (made-up words), 5 % context-free."""
    out: list[str] = []
    for i in range(count):
        roll = i % 20
        if roll == 0:
            out.append(rng.choice(["ok", "thanks", "continue"]))
        elif roll <= 5:
            out.append(" ".join(rng.choice(["zorblat", "quindle", "frumious", "vexation", "plinth"]) for _ in range(3)))
        else:
            words = [w for w in rng.choice(texts).lower().split() if w not in FILLER]
            if roll % 3 == 0 and len(words) >= 2:
                start = rng.randrange(len(words) - 1)
                out.append(" ".join(words[start : start + 2]))
            else:
                out.append(" ".join(rng.sample(words, min(len(words), rng.randint(2, 4)))))
    return out


def measure(path: Path, qs: list[str], *, trace: bool) -> list[float]:
    with Cairn(path, now=NOW) as cairn:
        for q in qs[:20]:  # warm the page cache and the statement cache
            cairn.recall(q, trace=False, lane="claims")
        times = []
        for q in qs:
            start = time.perf_counter()
            cairn.recall(q, trace=trace, lane="claims")
            times.append((time.perf_counter() - start) * 1000)
    return times


def run(sizes: list[int], count: int, seed: int) -> list[dict]:
    rows = []
    for size in sizes:
        rng = random.Random(seed)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "bench.db"
            t0 = time.perf_counter()
            texts, words = build(path, size, rng)
            build_s = time.perf_counter() - t0
            qs = queries(texts, rng, count)
            common = common_queries(words, rng, max(20, count // 3))
            read = measure(path, qs, trace=False)
            traced = measure(path, qs, trace=True)
            stress = measure(path, common, trace=False)
            with Cairn(path, now=NOW) as cairn:
                hits = sum(1 for q in qs if cairn.recall(q, trace=False, lane="claims").results)
            row = {
                "size": size,
                "build_s": build_s,
                "db_mb": os.path.getsize(path) / 1e6,
                "queries": len(qs),
                "answered": hits,
                "median": statistics.median(read),
                "p95": percentile(read, 0.95),
                "median_traced": statistics.median(traced),
                "p95_traced": percentile(traced, 0.95),
                "common": len(common),
                "median_common": statistics.median(stress),
                "p95_common": percentile(stress, 0.95),
            }
            rows.append(row)
            print(f"{size:>7} claims: read {row['median']:.2f} / {row['p95']:.2f} ms, traced {row['median_traced']:.2f} /"
                  f" {row['p95_traced']:.2f} ms, common-word {row['median_common']:.2f} / {row['p95_common']:.2f} ms",
                  file=sys.stderr)
    return rows


def report(rows: list[dict], command: str) -> str:
    lines = [
        *stamp(command),
        "",
        "In process, one `Cairn.recall` per query (limit 3, budget 2048) on synthetic claims of 6-24 made-up words",
        "with a Zipf-like word frequency (see `cairn/bench/recall_latency.py`). Query mix: 70 % words or a",
        "two-word phrase of a stored claim, 25 % absent topics, 5 % context-free. \"read\" is `trace=False`;",
        "\"traced\" is the default, which also writes and prunes one trace row (one transaction, WAL not synced).",
        "\"common\" is a stress mix of 2-3 of the 30 most frequent words (each in several % of claims).",
        "Times in milliseconds (median / p95).",
        "",
        "| claims | db MB | queries | answered | read | traced | common words |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['size']:,} | {r['db_mb']:.1f} | {r['queries']} | {r['answered']} | {r['median']:.2f} / {r['p95']:.2f} |"
            f" {r['median_traced']:.2f} / {r['p95_traced']:.2f} | {r['median_common']:.2f} / {r['p95_common']:.2f} |"
        )
    big = rows[-1]
    met = big["median"] <= 10 and big["p95"] <= 25
    met_traced = big["median_traced"] <= 10 and big["p95_traced"] <= 25
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    lines += [
        "",
        f"Target at 100k claims: median ≤ 10 ms, p95 ≤ 25 ms. Largest size measured ({big['size']:,}): read path "
        + ("**met**" if met else "**missed**") + ", traced path " + ("**met**." if met_traced else "**missed**."),
        f"Load average at the end of the run: {load} (the machine may be shared; numbers are upper bounds).",
        "",
        "What limits it (from profiles of the 100k store): (1) reading the postings of the query's terms",
        "from FTS5, about 0.5-1.5 µs each — a term held by thousands of claims costs milliseconds, which is",
        "why each term contributes at most its 3000 newest postings and why the common-word mix is the",
        "slowest; (2) Cairn's own BM25F re-tokenises the ~20 live candidates in Python; (3) decoding and",
        "validating the JSON of the 48 candidate rows. The trace write commits without syncing the WAL",
        "(a trace is a diagnostic; records and events stay `synchronous=FULL`), so it costs well under 1 ms.",
        "",
        "The candidate pool (48, `recall.candidates.POOL`) is the main dial: 32 cut the read path by about a",
        "third in a side run on the 100k store and changed the results of 6 of 300 queries (48 vs 64: 2).",
        "It stays at 48 — relevance first.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cairn.bench.recall_latency", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated claim counts")
    parser.add_argument("--queries", type=int, default=300, help="queries per size")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--out", default="docs/benchmarks.md", help="Markdown file whose recall-latency section is rewritten ('-' for stdout)"
    )
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    rows = run(sizes, args.queries, args.seed)
    command = "python -m cairn.bench.recall_latency " + " ".join(argv if argv is not None else sys.argv[1:])
    text = report(rows, command.strip())
    if args.out == "-":
        print(text)
    else:
        write_section(args.out, "recall-latency", text.rstrip("\n").splitlines())
        print(f"wrote the recall-latency section of {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
