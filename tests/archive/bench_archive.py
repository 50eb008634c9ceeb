"""Benchmark: archive add and verify of a large transcript (not collected by pytest).

    .venv/bin/python tests/archive/bench_archive.py [--mb 100] [--repeat 3]

Writes a Cairn JSONL transcript of about ``--mb`` megabytes (turns of ~1 KB), then times,
on a fresh database each round: ``archive add`` (read, parse, copy, sync, re-hash),
``archive verify`` (hash and parse the preserved copy), and, as the baseline measured in
the same run, a plain ``shutil.copyfile`` plus one SHA-256 pass over the same file. Prints
one JSON line per round (wall seconds, and the CPU seconds of add + verify, which a loaded
machine inflates less) and the medians; exits 1 when the median add + verify exceeds 5 s.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from cairn import Cairn


def write_transcript(path: Path, megabytes: int) -> int:
    filler = ("The survey team logged the glacier readings and compared them with last season's notes. " * 11)[:1000]
    target = megabytes * 1_000_000
    size = turns = 0
    with open(path, "w", encoding="utf-8") as out:
        while size < target:
            turns += 1
            line = json.dumps({"id": f"t{turns}", "speaker": "Ana" if turns % 2 else "Ben", "text": filler,
                               "time": f"2030-01-{1 + turns % 28:02d}T{turns % 24:02d}:00:00Z"}) + "\n"
            out.write(line)
            size += len(line)
    return turns


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "big.jsonl"
        turns = write_transcript(source, args.mb)
        size = source.stat().st_size
        for round_ in range(args.repeat):
            start = time.perf_counter()
            shutil.copyfile(source, Path(tmp) / f"copy{round_}")
            hashlib.sha256((Path(tmp) / f"copy{round_}").read_bytes()).hexdigest()
            baseline = time.perf_counter() - start
            with Cairn(Path(tmp) / f"db{round_}" / "cairn.db") as cairn:
                start, cpu = time.perf_counter(), time.process_time()
                entry = cairn.archive_add(source).entry
                added = time.perf_counter() - start
                start = time.perf_counter()
                verified = cairn.archive_verify()
                checked = time.perf_counter() - start
                cpu = time.process_time() - cpu
            assert verified.ok and entry.record_count == turns
            row = {"bytes": size, "records": turns, "add_s": round(added, 2), "verify_s": round(checked, 2),
                   "add_plus_verify_s": round(added + checked, 2), "add_plus_verify_cpu_s": round(cpu, 2),
                   "baseline_copy_hash_s": round(baseline, 2)}
            rows.append(row)
            print(json.dumps(row), flush=True)
    medians = {k: statistics.median(r[k] for r in rows) for k in ("add_s", "verify_s", "add_plus_verify_s",
                                                                    "add_plus_verify_cpu_s", "baseline_copy_hash_s")}
    print(json.dumps({"median": medians}))
    return 0 if medians["add_plus_verify_s"] <= 5.0 else 1


if __name__ == "__main__":
    sys.exit(main())
