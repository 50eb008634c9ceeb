"""Hybrid recall at 100k claims in process, with the semantic extra: latency, and the answers to diff.

    python scripts/semantic_recall_rounds.py build FOLDER
    python scripts/semantic_recall_rounds.py run FOLDER OUT

build: the store of ``cairn.bench.semantic``'s latency run, once (``random.Random(7)``:
       100k synthetic claims by ``cairn.bench.recall_latency.build``, a random unit
       vector under each claim's content hash, and the 300-query mix) as FOLDER/bench.db
       and FOLDER/queries.json. Build with any version: the store is then only read.
run:   one process: the first recall (it reads the vectors and loads the model), 20
       warm-up recalls, then ``Cairn.recall(query, trace=False)`` once per query of the mix
       (default lane: hybrid) with the query-vector cache cleared before each, as the
       benchmark does; wall and CPU (``time.process_time``) per recall. OUT gets the
       timings and, per query, the ids, the digest and the note: two runs of different
       code agree when their ``answers`` do. The medians and p95s go to stdout as JSON.

Run it with ``PYTHONPATH`` at the ``src`` of the code to measure.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import time
from pathlib import Path


def build(folder: Path) -> None:
    from cairn.bench import recall_latency, semantic
    from cairn.embed.minilm import MiniLM
    from cairn.engine import Cairn

    rng = random.Random(7)
    folder.mkdir(parents=True, exist_ok=True)
    texts, _ = recall_latency.build(folder / "bench.db", 100_000, rng)
    queries = recall_latency.queries(texts, rng, 300)
    with Cairn(folder / "bench.db", now=recall_latency.NOW) as cairn:
        semantic._random_vectors(cairn, rng, MiniLM.dimension)
    (folder / "queries.json").write_text(json.dumps(queries))


def _p95(values: list[float]) -> float:
    return sorted(values)[int(round(0.95 * (len(values) - 1)))]


def run(folder: Path, out: Path) -> None:
    from cairn.bench import recall_latency
    from cairn.engine import Cairn
    from cairn.recall.lanes import semantic as lane

    queries = json.loads((folder / "queries.json").read_text())
    with Cairn(folder / "bench.db", now=recall_latency.NOW) as cairn:
        wall, cpu = time.perf_counter(), time.process_time()
        cairn.recall(queries[1], trace=False)
        first = ((time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000)
        for q in queries[:20]:
            cairn.recall(q, trace=False)
        times, cpus, answers = [], [], []
        for q in queries:
            lane._QUERY_CACHE.clear()
            wall, cpu = time.perf_counter(), time.process_time()
            recalled = cairn.recall(q, trace=False)
            times.append((time.perf_counter() - wall) * 1000)
            cpus.append((time.process_time() - cpu) * 1000)
            answers.append([recalled.ids, recalled.digest, recalled.note])
    summary = {"first_ms": first, "p50": statistics.median(times), "p95": _p95(times),
               "cpu_p50": statistics.median(cpus), "cpu_p95": _p95(cpus), "load": os.getloadavg()}
    out.write_text(json.dumps({**summary, "times": times, "cpu": cpus, "answers": answers}))
    print(json.dumps(summary))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "build":
        build(Path(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[1] == "run":
        run(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        sys.exit(__doc__)
