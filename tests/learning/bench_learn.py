"""Numbers for docs/benchmarks.md "Learning from transcripts" (a script, not a test).

1. The rules extractor on the labelled capture set (tests/learning/capture/), tuning
   split and held-out split, beside a naive baseline measured in the same run: a claim
   for every user sentence containing a cue word (prefer, like, decided, remember, 喜欢,
   决定, 记住 ...), kind from the cue, no negative controls.
2. `cairn learn` on a generated 2,000-turn Claude Code transcript (a fresh database per
   run): first run, second run, and the file grown by 40 turns; beside `cairn ingest` of
   the same 2,000 turns as Cairn JSONL (episodes only), in the same run.

    .venv/bin/python tests/learning/bench_learn.py
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


def main() -> None:
    print("capture set: split turns tp fp fn precision recall")
    for split in ("dev", "held", None):
        for name, reader in (("rules", None), ("naive", naive)):
            s = score(load(split)) if reader is None else score(load(split), reader)
            print(f"  {name:5} {split or 'all':4} {s.turns:4} {s.tp:3} {s.fp:3} {s.fn:3} {s.precision:.3f} {s.recall:.3f}")
    for name, reader in (("rules", None), ("naive", naive)):
        s = score(load_second()) if reader is None else score(load_second(), reader)
        print(f"  {name:5} set2 {s.turns:4} {s.tp:3} {s.fp:3} {s.fn:3} {s.precision:.3f} {s.recall:.3f}")
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
            transcript.write_text("\n".join(lines) + "\n", encoding="utf-8")
            ingest, doc4 = run("--db", str(base / f"ingest{attempt}.db"), "--now", NOW, "--json", "ingest", str(plain))
            print(f"run {attempt + 1}: learn 2000 turns {first:.2f}s (episodes {doc1['counts']['episodes']}, "
                  f"claims added {doc1['counts']['added']}); again {second:.2f}s (episodes {doc2['counts']['episodes']}, "
                  f"added {doc2['counts']['added']}); grown +40 {grown:.2f}s (episodes {doc3['counts']['episodes']}, "
                  f"added {doc3['counts']['added']}); baseline ingest 2000 turns {ingest:.2f}s "
                  f"(episodes {doc4['episodes']})")
    print(f"start: {START.isoformat()}")


def _text(obj: dict) -> str:
    content = obj["message"]["content"]
    return content if isinstance(content, str) else "\n\n".join(p["text"] for p in content if p.get("type") == "text")


if __name__ == "__main__":
    main()
