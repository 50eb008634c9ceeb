"""A dormant record joined beside a recall's results without asking the lane again
(:func:`cairn.recall.pipeline.join_dormant`) ranks as the recall run again with it
admitted ranks it: same results, same order, on every question of a natural part whose
store holds year-old notes."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from cairn import Cairn
from cairn.model import parse_time
from cairn.recall.pipeline import Request, join_dormant, run
from testkit import Clock

PART = Path(__file__).parents[1] / "recall" / "natural" / "fresh12.json"


def test_joining_ranks_as_running_again(tmp_path):
    data = json.loads(PART.read_text(encoding="utf-8"))
    now = parse_time(data["now"])
    clock = Clock(now)
    joined = 0
    with Cairn(tmp_path / "cairn.db", now=clock) as cairn:
        for spec in data["stores"]["studio"]:
            clock.at = now - timedelta(days=spec["days_ago"])
            cairn.remember(spec["text"], kind=spec["kind"])
        clock.at = now
        for case in data["questions"] + data["nothing"]:
            request = Request(query=case["q"], space=cairn.space, now=now, lane="claims")
            with cairn.store.snapshot() as view:
                first = run(view, request)
                if not first.results or not first.dormant_beside:
                    assert join_dormant(view, first) is None  # nothing to join
                    continue
                again = run(view, replace(request, admitted=frozenset(first.dormant_beside)))
                fast = join_dormant(view, first)
            assert fast is not None
            assert [r.id for r in fast.results] == [r.id for r in again.results], case["q"]
            assert [r.dormant for r in fast.results] == [r.dormant for r in again.results]
            joined += 1
    assert joined >= 3  # the part holds such questions: the comparison is not vacuous


def test_only_the_claims_lane_joins_without_asking_again(tmp_path):
    with Cairn(tmp_path / "cairn.db") as cairn:
        cairn.remember("The VPN gateway is vpn.example.org", kind="fact")
        request = Request(query="which VPN gateway", space=cairn.space, now=cairn.now(), lane="all")
        with cairn.store.snapshot() as view:
            outcome = run(view, request)
            assert join_dormant(view, replace(outcome, dormant_beside=("x",))) is None
