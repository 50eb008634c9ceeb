"""Numbers for docs/benchmarks.md "Learning from transcripts" (a script, not a test).

1. The rules extractor on the labelled capture set (tests/learning/capture/), tuning
   split and held-out split, beside a naive baseline measured in the same run: a claim
   for every user sentence containing a cue word (prefer, like, decided, remember, 喜欢,
   决定, 记住 ...), kind from the cue, no negative controls.
2. `cairn learn` on a generated 2,000-turn Claude Code transcript (a fresh database per
   run): first run, second run, the file grown by 40 turns, and a learn after its claim
   batches were undone (`cairn undo`: the claims are applied again, no episode twice);
   beside `cairn ingest` of the same 2,000 turns as Cairn JSONL (episodes only), in the
   same run.

    .venv/bin/python tests/learning/bench_learn.py [--out docs/benchmarks.md]

With ``--out`` the tables replace the ``learn`` section of the document.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent))

from cairn.learn.extractors.rules import Found, sentences  # noqa: E402
from cairn.model import Kind  # noqa: E402
from testkit.capture import load, load_second, score  # noqa: E402
from testkit.claude_code import START, session  # noqa: E402

CAIRN = str(Path(sys.executable).parent / "cairn")
NOW = "2026-10-05T00:00:00Z"
CUES = ((re.compile(r"decid|agreed|chose|go with|决定|选择"), Kind.DECISION),
        (re.compile(r"prefer|like|love|hate|always|never|喜欢|偏好|以后|总是"), Kind.PREFERENCE),
        (re.compile(r"remember|note|记住|记一下"), Kind.FACT))


def naive(text: str) -> list[Found]:
    found = []
    for sentence in sentences(text):
        for cue, kind in CUES:
            if cue.search(sentence.lower()):
                found.append(Found(kind, sentence.rstrip(".!?。！？")))
                break
    return found


def run(*args: str) -> tuple[float, dict]:
    started = time.perf_counter()
    out = subprocess.run([CAIRN, *args], capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - started, json.loads(out)


SPLITS = {"dev": "tuning", "held": "held out", None: "all", "set2": "second set"}


def main() -> None:
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    table = ["| split | turns | extractor | true pos. | false pos. | missed | precision | recall |",
             "|---|---:|---|---:|---:|---:|---:|---:|"]
    print("capture set: split turns tp fp fn precision recall")
    for split in ("dev", "held", None, "set2"):
        for name, reader in (("rules", None), ("naive", naive)):
            cases = load_second() if split == "set2" else load(split)
            s = score(cases) if reader is None else score(cases, reader)
            print(f"  {name:5} {split or 'all':4} {s.turns:4} {s.tp:3} {s.fp:3} {s.fn:3} {s.precision:.3f} {s.recall:.3f}")
            label = "rules" if reader is None else "cue-word baseline"
            table.append(f"| {SPLITS[split]} | {s.turns} | {label} | {s.tp} | {s.fp} | {s.fn} | {s.precision:.3f} | "
                         f"{s.recall:.3f} |")
    learn_rows = ["| run | learn 2,000 turns | same file again | file grown by 40 turns | after undo of its claims "
                  "| baseline: ingest 2,000 turns |", "|---|---:|---:|---:|---:|---:|"]
    lines = session(2000)
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        transcript = base / "session.jsonl"
        transcript.write_text("\n".join(lines) + "\n", encoding="utf-8")
        plain = base / "turns.jsonl"
        plain.write_text("".join(json.dumps({"id": json.loads(x)["uuid"], "role": json.loads(x)["type"],
                                             "text": _text(json.loads(x)), "time": json.loads(x)["timestamp"]}) + "\n"
                                 for x in lines), encoding="utf-8")
        for attempt in range(3):
            db = str(base / f"learn{attempt}.db")
            first, doc1 = run("--db", db, "--now", NOW, "--json", "learn", str(transcript))
            second, doc2 = run("--db", db, "--now", NOW, "--json", "learn", str(transcript))
            transcript.write_text("\n".join(lines + session(40, first=2000)) + "\n", encoding="utf-8")
            grown, doc3 = run("--db", db, "--now", NOW, "--json", "learn", str(transcript))
            for event in doc1["events"][1:]:  # the claim batches (the first event stored the episodes)
                run("--db", db, "--now", NOW, "--json", "undo", event)
            reapplied, doc5 = run("--db", db, "--now", NOW, "--json", "learn", str(transcript))
            transcript.write_text("\n".join(lines) + "\n", encoding="utf-8")
            ingest, doc4 = run("--db", str(base / f"ingest{attempt}.db"), "--now", NOW, "--json", "ingest", str(plain))
            c1, c2, c3, c5 = (d["counts"] for d in (doc1, doc2, doc3, doc5))
            learn_rows.append(
                f"| {attempt + 1} | {first:.2f} s ({c1['episodes']:,} episodes, {c1['added']} claims) | {second:.2f} s "
                f"({c2['episodes']} episodes, {c2['added']} claims) | {grown:.2f} s ({c3['episodes']} episodes, "
                f"{c3['added']} claims) | {reapplied:.2f} s ({c5['episodes']} episodes, {c5['added']} claims) | "
                f"{ingest:.2f} s |")
            print(f"run {attempt + 1}: learn 2000 turns {first:.2f}s (episodes {doc1['counts']['episodes']}, "
                  f"claims added {doc1['counts']['added']}); again {second:.2f}s (episodes {doc2['counts']['episodes']}, "
                  f"added {doc2['counts']['added']}); grown +40 {grown:.2f}s (episodes {doc3['counts']['episodes']}, "
                  f"added {doc3['counts']['added']}); baseline ingest 2000 turns {ingest:.2f}s "
                  f"(episodes {doc4['episodes']})")
    print(f"start: {START.isoformat()}")
    if out:
        from cairn.bench.report import stamp, write_section

        body = [*stamp(".venv/bin/python tests/learning/bench_learn.py --out docs/benchmarks.md"), "",
                "Capture set (cells: claims matched / proposed but not expected / expected but missed):", "",
                *table, "", "`cairn learn` (wall time of each `cairn` process, start-up included; a fresh database "
                "per run):", "", *learn_rows]
        write_section(out, "learn", body)


def _text(obj: dict) -> str:
    content = obj["message"]["content"]
    return content if isinstance(content, str) else "\n\n".join(p["text"] for p in content if p.get("type") == "text")


if __name__ == "__main__":
    main()
