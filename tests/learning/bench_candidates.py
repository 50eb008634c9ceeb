"""Cost of candidate selection (not a test): N synthetic records of 10 words from a 5000-word
vocabulary in one origin, sources of 30/300/3000 words. Worst case by design: a tiny
vocabulary makes every source word occur in many records.

    .venv/bin/python tests/learning/bench_candidates.py 20000
"""
import time, tempfile, os, random, sys
from cairn import Cairn
from cairn.model import Memory, Kind, Evidence, Basis, Method
from datetime import datetime, UTC
random.seed(1)
d=tempfile.mkdtemp(dir="/dev/shm")
c=Cairn(os.path.join(d,'x.db'), now="2026-11-10T12:00:00Z")
words=[f"w{i}" for i in range(5000)]
N=int(sys.argv[1])
with c.store.write() as tx:
    for i in range(N):
        now=datetime(2026,11,1,tzinfo=UTC)
        tx.put_memory(Memory(id=f"{i:024x}", space="default", origin="acme", kind=Kind.FACT, content=" ".join(random.choices(words,k=10)), created_at=now, updated_at=now, evidence=Evidence(Basis.SUMMARY, Method.LOCAL, "s", now)))
for k in (30, 300, 3000):
    text=" ".join(random.choices(words,k=k))
    t=time.time(); r=c.candidates_for({"id":"x","text":text,"kind":"summary","origin":"acme"}); print(f"{N} records, source of {k} words: {time.time()-t:.3f}s, {len(r)} candidates")
