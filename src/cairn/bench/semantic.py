"""The semantic extra's numbers, in one run: quality per lane, latency, back-fill, size,
and the comparison of embedder candidates.

    python -m cairn.bench.semantic [--out docs/benchmarks.md] [--sizes 100000] [--queries 300]
                                   [--split heldout] [--skip-locomo] [--skip-candidates]

* **LoCoMo** — ``cairn bench locomo`` (its protocol, :mod:`cairn.bench.locomo`) through
  each of Cairn's episode lanes, lexical, semantic and hybrid, on the same split (with
  ``--split all``, a row per split and lane), and the fusion ceiling (:class:`CeilingRanker`).
* **Paraphrase set** — ``tests/semantic/paraphrase.json``: claims whose questions share
  no content word with them, and unanswerable questions (negative controls); top-1 rate
  and the share of negatives that got an empty digest, per lane and split.
* **Latency** — in process, one ``Cairn.recall`` (default lane: hybrid) per query on the
  synthetic claims of :mod:`cairn.bench.recall_latency`, query embedding included (the
  query-vector cache is cleared before each query). The stored vectors of that store are
  random unit vectors under the claims' real content hashes: embedding 100k made-up
  sentences would take most of an hour and changes nothing in the cost of the search.
  The first recall of a process also reads the vectors into memory: measured apart.
* **Back-fill** — ``Cairn.embed`` on real text (LoCoMo turns, ingested first): texts/s.
* **Install size** — the files of the extra's distributions as installed.
* **Candidates** — the packaged all-MiniLM-L6-v2 int8 ONNX model against a static
  embedding distilled from it here (each vocabulary token through the model, the mean
  of a text's token vectors: no transformer at query time), on the paraphrase set and
  on LoCoMo dev by plain cosine ranking of the turns ("Speaker: text", as the store
  embeds an episode), with their speed and size.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any, cast

from ..embed import vectors
from ..embed.minilm import MODEL_PACKAGE, MiniLM
from ..engine import Cairn
from ..store.protocol import VectorTx
from . import locomo, recall_latency
from .report import stamp, write_section
from .stats import percentile

PARAPHRASE = locomo.REPO / "tests" / "semantic" / "paraphrase.json"
EXTRA = ("onnxruntime", "tokenizers", "numpy", MODEL_PACKAGE.replace("_", "-"))
TARGET_P50, TARGET_P95 = 25.0, 60.0


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- quality -------------------------------------------------------------------------------


def paraphrase_rates(lanes=("claims", "semantic", "hybrid")) -> dict[str, dict[str, tuple[float, float]]]:
    """{lane: {split: (top-1 rate, negatives left empty)}} on the paraphrase set."""
    data = json.loads(PARAPHRASE.read_text(encoding="utf-8"))
    out: dict[str, dict[str, tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as folder, Cairn(Path(folder) / "p.db", now=recall_latency.NOW) as cairn:
        ids = [cairn.remember(t, kind="fact").memory.id for t in data["memories"]]
        for lane in lanes:
            out[lane] = {}
            for split in ("dev", "heldout"):
                hit = asked = empty = negatives = 0
                for q in (q for q in data["questions"] if q["split"] == split):
                    got = cairn.recall(q["q"], lane=lane, trace=False).ids
                    if q["expect"] is None:
                        negatives += 1
                        empty += not got
                    else:
                        asked += 1
                        hit += got[:1] == [ids[q["expect"]]]
                out[lane][split] = (hit / asked, empty / negatives)
    return out


CEILING_KEYS = ("asked", "lexical", "semantic", "either", "context", "either_context")


class CeilingRanker(locomo.CairnRanker):
    """The hybrid ranker of ``cairn bench locomo``, which also measures, after its timed
    questions, what any fusion of the two lanes it fuses could reach at most: a question
    counts when an evidence turn is in the lexical lane's top 5 *or* the semantic lane's
    top 5 (ten places: a bound on any fused top 5, not a ranking). Counted twice: with
    the ``semantic-episodes`` lane's own order (``semantic``, ``either``), and with the
    order the fusion reads, meaning in context (``context``, ``either_context``: the
    ``semantic_rank`` that explain shows for each hybrid candidate)."""

    def __init__(self, conversation: dict, folder: Path, counts: dict[str, int], index: int) -> None:
        super().__init__(conversation, folder, lane="hybrid")
        self.conversation, self.counts, self.index = conversation, counts, index

    def close(self) -> None:
        try:
            for q in locomo.questions(self.conversation, self.index, locomo.EvidenceNotes()):
                tops = {}
                for lane in ("episodes", "semantic-episodes"):
                    found = self.cairn.search(q.text, lane=lane, limit=5, trace=False)
                    tops[lane] = {r.memory.evidence.source_id for r in found.results}
                tops["context"] = self._context_top(q.text, 5)
                for key in CEILING_KEYS:
                    self.counts.setdefault(key, 0)
                self.counts["asked"] += 1
                self.counts["lexical"] += bool(tops["episodes"] & q.evidence)
                self.counts["semantic"] += bool(tops["semantic-episodes"] & q.evidence)
                self.counts["either"] += bool((tops["episodes"] | tops["semantic-episodes"]) & q.evidence)
                self.counts["context"] += bool(tops["context"] & q.evidence)
                self.counts["either_context"] += bool((tops["episodes"] | tops["context"]) & q.evidence)
        finally:
            super().close()

    def _context_top(self, question: str, k: int) -> set[str | None]:
        """The turn ids of the first ``k`` of the semantic order the hybrid fusion read."""
        doc = self.cairn.explain(question, lane="hybrid-episodes", limit=k)
        ranked = {c["id"]: c["factors"]["fusion"]["semantic_rank"] for c in doc["candidates"]
                  if c.get("factors", {}).get("fusion", {}).get("semantic_rank", k + 1) <= k}
        memories = self.cairn.store.get_memories("default", list(ranked))
        return {m.evidence.source_id for m in memories.values()}


def locomo_lanes(split: str, lanes=("lexical", "semantic", "hybrid")
                 ) -> tuple[dict[str, locomo.Result], dict[str, dict[str, int]]]:
    """Each lane's ``cairn bench locomo`` result, and the fusion ceiling counts of the
    hybrid run per split (:class:`CeilingRanker`)."""
    data = locomo.load()
    out = {}
    counts: dict[str, dict[str, int]] = {}
    for lane in lanes:
        started = time.perf_counter()
        factory = None
        if lane == "hybrid":
            def factory(conversation: dict, folder: Path) -> CeilingRanker:
                index = data.index(conversation)
                part = "dev" if index in locomo.SPLITS["dev"] else "heldout"
                return CeilingRanker(conversation, folder, counts.setdefault(part, {}), index)
        out[lane] = locomo.run(data, split=split, lane=lane, cairn_factory=factory)
        _log(f"locomo {split} {lane}: {out[lane].doc()['cairn']} ({time.perf_counter() - started:.0f} s)")
    return out, counts


# -- latency and back-fill -----------------------------------------------------------------


def _random_vectors(cairn: Cairn, rng: random.Random, dimension: int) -> int:
    import numpy as np

    store: Any = cairn.store
    gen = np.random.default_rng(rng.randrange(2**32))
    model = vectors.require()
    rows = store.missing_vectors("default", model.name, 10**9)
    for start in range(0, len(rows), 5000):
        chunk = rows[start : start + 5000]
        array = gen.standard_normal((len(chunk), dimension)).astype(np.float32)
        array /= np.linalg.norm(array, axis=1, keepdims=True)
        with cairn.store.write() as tx:
            blobs = vectors.encode(array)
            cast(VectorTx, tx).put_vectors("default", model.name, [(d, e, b) for (d, e, _), b in zip(chunk, blobs, strict=True)])
    return len(rows)


def latency(size: int, count: int, seed: int = 7) -> dict:
    from ..recall.lanes import semantic as lane_module

    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.db"
        texts, _ = recall_latency.build(path, size, rng)
        qs = recall_latency.queries(texts, rng, count)
        with Cairn(path, now=recall_latency.NOW) as cairn:
            stored = _random_vectors(cairn, rng, MiniLM.dimension)
        vectors.VectorIndex._cache.clear()
        with Cairn(path, now=recall_latency.NOW) as cairn:
            started = time.perf_counter()
            cairn.recall(qs[1], trace=False)  # the first recall of a process reads the vectors
            first = (time.perf_counter() - started) * 1000
            for q in qs[:20]:
                cairn.recall(q, trace=False)
            times, cpu, lexical, embed, search = [], [], [], [], []
            for q in qs:
                lane_module._QUERY_CACHE.clear()  # every query embedded, as in a fresh process
                started, used = time.perf_counter(), time.process_time()
                recalled = cairn.recall(q, trace=False)
                times.append((time.perf_counter() - started) * 1000)
                cpu.append((time.process_time() - used) * 1000)
                stage = recalled.outcome.scan.get("semantic", {})  # the semantic lane's own clock (wall)
                embed.append(stage.get("load_embed_ms", 0.0))
                search.append(stage.get("search_ms", 0.0))
                started = time.perf_counter()
                cairn.recall(q, lane="claims", trace=False)
                lexical.append((time.perf_counter() - started) * 1000)
            lane_doc = cairn.explain(qs[2])
    return {"size": size, "vectors": stored, "queries": len(qs), "first_ms": first,
            "p50": statistics.median(times), "p95": percentile(times, 0.95),
            "cpu_p50": statistics.median(cpu), "cpu_p95": percentile(cpu, 0.95),
            "claims_p50": statistics.median(lexical), "claims_p95": percentile(lexical, 0.95),
            "embed_p50": statistics.median(embed), "search_p50": statistics.median(search),
            "lane": lane_doc["query"].get("lane", "hybrid")}


def backfill_rate(conversations=(0, 1)) -> dict:
    data = locomo.load()
    with tempfile.TemporaryDirectory() as folder, Cairn(Path(folder) / "b.db", now=recall_latency.NOW) as cairn:
        for i in conversations:
            cairn.ingest(data[i], format="locomo", progress=False)
        done = cairn.embed(progress=False)
    return {"texts": done.embedded, "seconds": done.seconds, "per_second": done.embedded / done.seconds}


def install_size() -> dict[str, float]:
    """MB on disk of each distribution of the extra, as installed."""
    sizes = {}
    for name in EXTRA:
        dist = metadata.distribution(name)
        total = 0
        for f in dist.files or ():
            try:
                total += os.path.getsize(str(dist.locate_file(f)))
            except OSError:
                pass
        sizes[name] = total / 1e6
    return sizes


# -- embedder candidates ---------------------------------------------------------------------


class StaticMiniLM:
    """Candidate B: static token vectors distilled from the packaged MiniLM (each vocabulary
    token alone through the model, mean-pooled; the mean over all tokens removed). A text
    is the normalised mean of its word pieces' vectors: a table lookup, no transformer."""

    def __init__(self, teacher: MiniLM) -> None:
        import numpy as np

        teacher._load()
        tokenizer, session = teacher._tokenizer, teacher._session
        size = tokenizer.get_vocab_size()
        table = np.zeros((size, MiniLM.dimension), dtype=np.float32)
        for start in range(0, size, 2048):
            ids = np.arange(start, min(size, start + 2048), dtype=np.int64)
            batch = np.stack([np.full_like(ids, 101), ids, np.full_like(ids, 102)], axis=1)
            mask = np.ones_like(batch)
            hidden = session.run(None, {"input_ids": batch, "attention_mask": mask, "token_type_ids": np.zeros_like(batch)})[0]
            table[start : start + len(ids)] = hidden.mean(axis=1)
        table -= table.mean(axis=0)
        self.table = table / np.linalg.norm(table, axis=1, keepdims=True)
        self.tokenizer = tokenizer

    def embed_array(self, texts):
        import numpy as np

        out = np.zeros((len(texts), self.table.shape[1]), dtype=np.float32)
        for i, encoding in enumerate(self.tokenizer.encode_batch(list(texts))):
            ids = [t for t, m in zip(encoding.ids, encoding.attention_mask, strict=True) if m and t not in (101, 102)]
            if ids:
                v = self.table[ids].mean(axis=0)
                out[i] = v / max(float(np.linalg.norm(v)), 1e-12)
        return out


def _paraphrase_cosine(model) -> dict:
    import numpy as np

    data = json.loads(PARAPHRASE.read_text(encoding="utf-8"))
    memories = model.embed_array(data["memories"])
    top1 = asked = 0
    negatives: list[float] = []
    for q in data["questions"]:
        scores = memories @ model.embed_array([q["q"]])[0]
        if q["expect"] is None:
            negatives.append(float(scores.max()))
        else:
            asked += 1
            top1 += int(np.argmax(scores)) == q["expect"]
    return {"top1": top1 / asked, "negative_max": max(negatives)}


def _locomo_cosine(model, split: str = "dev") -> dict:
    data = locomo.load()
    notes = locomo.EvidenceNotes()
    any5 = all10 = asked = 0
    for index in locomo.SPLITS[split]:
        conversation = data[index]
        turns = [(t["dia_id"], f"{t['speaker']}: {t['text']}") for k, v in conversation["conversation"].items()
                 if k.startswith("session_") and isinstance(v, list) for t in v]
        matrix = model.embed_array([text for _, text in turns])
        for q in locomo.questions(conversation, index, notes):
            order = (matrix @ model.embed_array([q.text])[0]).argsort()[::-1]
            ranked = [turns[i][0] for i in order[:10]]
            asked += 1
            any5 += bool(set(ranked[:5]) & q.evidence)
            all10 += q.evidence <= set(ranked[:10])
    return {"any@5": any5 / asked, "all@10": all10 / asked, "questions": asked}


def _speed(model, texts: list[str]) -> dict:
    one = []
    for text in texts[:100]:
        started = time.perf_counter()
        model.embed_array([text])
        one.append((time.perf_counter() - started) * 1000)
    started = time.perf_counter()
    for start in range(0, len(texts), 64):
        model.embed_array(texts[start : start + 64])
    return {"query_ms": statistics.median(one), "per_second": len(texts) / (time.perf_counter() - started)}


def candidates() -> list[dict]:
    data = locomo.load()
    texts = [t["text"] for k, v in data[0]["conversation"].items() if k.startswith("session_") and isinstance(v, list) for t in v]
    teacher = MiniLM()
    started = time.perf_counter()
    static = StaticMiniLM(teacher)
    distil_s = time.perf_counter() - started
    sizes = install_size()
    rows = []
    for name, model, size in (
        ("all-MiniLM-L6-v2 int8 ONNX (onnxruntime)", teacher, sum(sizes.values())),
        ("static tokens distilled from it (numpy only)", static,
         sizes["tokenizers"] + sizes["numpy"] + static.table.size * 2 / 1e6),  # shipped as float16
    ):
        row = {"name": name, "size_mb": size, **_paraphrase_cosine(model), **_locomo_cosine(model), **_speed(model, texts)}
        rows.append(row)
        _log(f"candidate {name}: {row}")
    rows[1]["distil_s"] = distil_s
    return rows


# -- report --------------------------------------------------------------------------------


def report(command: str, *, loco: dict[str, locomo.Result], split: str, para: dict, lat: list[dict], fill: dict,
           sizes: dict, cands: list[dict], ceiling: dict[str, dict[str, int]] | None = None) -> list[str]:
    ceiling = ceiling or {}
    lines = [*stamp(command), ""]
    if loco:
        lines += [f"LoCoMo evidence retrieval, split {split} (conversations {', '.join(map(str, locomo.SPLITS[split]))}),"
                  " categories 1-4, one run, each lane through `Cairn.search`/`recall` as `cairn bench locomo --lane`:", "",
                  "| lane | split | questions | any@5 | all@5 | any@10 | all@10 | latency ms p50 / p95 |",
                  "|---|---|---:|---:|---:|---:|---:|---:|"]
        first = next(iter(loco.values()))
        for part in first.by_split:
            for lane, result in loco.items():
                lines.append(_locomo_row(lane, part, result.by_split[part].cairn))
            lines.append(_locomo_row("FTS5 baseline (same run)", part, first.by_split[part].baseline, latency=False))
        lines.append("")
        for part, counts in sorted(ceiling.items()):
            n = counts.get("asked", 0)
            if not n:
                continue
            lines += [f"Fusion ceiling, {part} (same run, {n} questions): an evidence turn in the lexical lane's top 5"
                      f" {counts['lexical'] / n:.3f}, in the semantic lane's top 5 {counts['semantic'] / n:.3f}"
                      f" (in the order the fusion reads, meaning in context: {counts['context'] / n:.3f}), in either"
                      f" (ten places, a bound on any fusion's any@5) {counts['either'] / n:.3f}, with meaning in context"
                      f" **{counts['either_context'] / n:.3f}**.", ""]
    if para:
        lines += ["Paraphrase set (`tests/semantic/paraphrase.json`: 30 claims; questions that share no content word with",
                  "their answer, and unanswerable questions). Top-1 = the expected claim comes first; empty = an",
                  "unanswerable question got nothing in the digest.", "",
                  "| lane | dev top-1 | dev empty | held-out top-1 | held-out empty |", "|---|---:|---:|---:|---:|"]
        for lane, splits in para.items():
            lines.append(f"| {lane} | {splits['dev'][0]:.2f} | {splits['dev'][1]:.2f} | {splits['heldout'][0]:.2f} |"
                         f" {splits['heldout'][1]:.2f} |")
        lines.append("")
    for row in lat:
        met = row["p50"] <= TARGET_P50 and row["p95"] <= TARGET_P95
        lines += [f"Recall latency at {row['size']:,} claims with {row['vectors']:,} vectors, default lane (hybrid), query",
                  f"embedding included, {row['queries']} queries: p50 **{row['p50']:.1f} ms**, p95 **{row['p95']:.1f} ms**"
                  f" (target ≤ {TARGET_P50:g} / ≤ {TARGET_P95:g}: {'met' if met else 'missed'}); claims lane alone in the"
                  f" same run {row['claims_p50']:.1f} / {row['claims_p95']:.1f} ms. The first recall of a process, which"
                  f" reads the vectors into memory: {row['first_ms']:.0f} ms. CPU time of one hybrid recall (this process,"
                  f" one thread: what it costs on an idle core): p50 {row['cpu_p50']:.1f} ms, p95 {row['cpu_p95']:.1f} ms."
                  f" Inside the semantic lane (wall, median): the query's embedding {row['embed_p50']:.1f} ms, the search"
                  f" and the read of its records {row['search_p50']:.1f} ms.", ""]
    if fill:
        lines += [f"Back-fill (`Cairn.embed`, one thread) of {fill['texts']:,} LoCoMo turns: {fill['per_second']:.0f} texts/s"
                  f" ({fill['seconds']:.1f} s).", ""]
    if sizes:
        parts = ", ".join(f"{name} {mb:.0f} MB" for name, mb in sizes.items())
        lines += [f"Install size of the extra: {sum(sizes.values()):.0f} MB ({parts}).", ""]
    if cands:
        lines += ["Embedder candidates (plain cosine ranking, no Cairn lanes: the embedders alone). LoCoMo dev: turns of",
                  "each conversation ranked by cosine to the question. Query ms: one text; texts/s: batches of 64.", "",
                  "| candidate | install MB | paraphrase top-1 | max cosine of a negative | LoCoMo dev any@5 | all@10 |"
                  " query ms | texts/s |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for r in cands:
            lines.append(f"| {r['name']} | {r['size_mb']:.0f} | {r['top1']:.2f} | {r['negative_max']:.2f} | {r['any@5']:.3f} |"
                         f" {r['all@10']:.3f} | {r['query_ms']:.1f} | {r['per_second']:.0f} |")
        lines.append("")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    lines.append(f"Load average at the end of the run: {load} (2 cores shared with other work: times are upper bounds).")
    return lines


def _locomo_row(lane: str, part: str, side: locomo.Side, latency: bool = True) -> str:
    c = side.doc()
    ms = f"{c['latency_ms'].get('median', 0):.1f} / {c['latency_ms'].get('p95', 0):.1f}" if latency else ""
    return (f"| {lane} | {part} | {side.asked} | {c['any@5']:.3f} | {c['all@5']:.3f} | {c['any@10']:.3f} |"
            f" {c['all@10']:.3f} | {ms} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cairn.bench.semantic", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="docs/benchmarks.md",
                        help="Markdown file whose semantic section is rewritten ('-': stdout)")
    parser.add_argument("--sizes", default="100000", help="comma-separated claim counts for the latency run")
    parser.add_argument("--queries", type=int, default=300, help="queries per latency size")
    parser.add_argument("--split", choices=("dev", "heldout", "all"), default="heldout", help="LoCoMo split (default heldout)")
    parser.add_argument("--skip-locomo", action="store_true", help="leave out the LoCoMo lanes (the slowest part)")
    parser.add_argument("--skip-candidates", action="store_true", help="leave out the embedder comparison")
    args = parser.parse_args(argv)
    vectors.require()
    para = paraphrase_rates()
    _log(f"paraphrase: {para}")
    loco, ceiling = ({}, {}) if args.skip_locomo else locomo_lanes(args.split)
    lat = []
    for size in (int(s) for s in args.sizes.split(",") if s.strip()):
        lat.append(latency(size, args.queries))
        _log(f"latency: {lat[-1]}")
    fill = backfill_rate()
    _log(f"backfill: {fill}")
    sizes = install_size()
    cands = [] if args.skip_candidates else candidates()
    command = "python -m cairn.bench.semantic " + " ".join(argv if argv is not None else sys.argv[1:])
    lines = report(command.strip(), loco=loco, split=args.split, para=para, lat=lat, fill=fill, sizes=sizes, cands=cands,
                   ceiling=ceiling)
    if args.out == "-":
        print("\n".join(lines))
    else:
        write_section(args.out, "semantic", lines)
        _log(f"wrote the semantic section of {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
