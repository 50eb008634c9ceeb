"""The Python API checks its arguments at the facade: a wrong type or an out-of-range
value raises InvalidInput naming it, never AttributeError/TypeError/OverflowError, and
nothing is written."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest

from cairn import Cairn, InvalidInput
from testkit.db import db_fingerprint

WRONG_CALLS = {
    "show-float": lambda c: c.show(1.5),
    "show-bytes": lambda c: c.show(b"abcdef"),
    "show-none": lambda c: c.show(None),
    "get-list": lambda c: c.get(["abcdef"]),
    "resolve-table": lambda c: c.resolve_id("abcdef", table="nope"),
    "remember-source-bool": lambda c: c.remember("The api runs on port 8080", kind="fact", source=True),
    "remember-text-int": lambda c: c.remember(12345, kind="fact"),
    "remember-kind-int": lambda c: c.remember("The api runs on port 8080", kind=3),
    "remember-origin-int": lambda c: c.remember("The api runs on port 8080", kind="fact", origin=7),
    "remember-aliases-str": lambda c: c.remember("The api runs on port 8080", kind="fact", aliases="api"),
    "remember-aliases-int": lambda c: c.remember("The api runs on port 8080", kind="fact", aliases=[1]),
    "remember-pin-str": lambda c: c.remember("The api runs on port 8080", kind="fact", pin="yes"),
    "remember-at-int": lambda c: c.remember("The api runs on port 8080", kind="fact", at=5),
    "remember-at-year-1": lambda c: c.remember("The api runs on port 8080", kind="fact", at=datetime(1, 1, 1, tzinfo=UTC)),
    "remember-relates-str": lambda c: c.remember("The api runs on port 8080", kind="fact", relates="corrects"),
    "remember-surrogate": lambda c: c.remember("caf\udce9 opens at nine", kind="fact"),
    "history-huge-limit": lambda c: c.history(limit=2**70),
    "history-float-limit": lambda c: c.history(limit=2.5),
    "list-page-zero": lambda c: c.list(page=0),
    "list-page-str": lambda c: c.list(page="2"),
    "import-float": lambda c: c.import_(1.5),
    "import-bytes": lambda c: c.import_(b"{}"),
    "import-ints": lambda c: c.import_([1, 2]),
    "export-str": lambda c: c.export("out.jsonl"),
    "recall-int": lambda c: c.recall(42),
    "recall-limit-huge": lambda c: c.recall("api", limit=2**70),
    "recall-budget-str": lambda c: c.recall("api", budget="big"),
    "recall-as-of-float": lambda c: c.recall("api", as_of=1.5),
    "search-trace-str": lambda c: c.search("api", trace="no"),
    "explain-lane-int": lambda c: c.explain("api", lane=3),
    "apply-float": lambda c: c.apply(1.5),
    "correct-int": lambda c: c.correct("abcdef", 5),
    "feedback-source-int": lambda c: c.feedback("abcdef", "useful", source=5),
    "forget-purge-str": lambda c: c.forget("abcdef", purge="yes"),
    "timeline-int": lambda c: c.timeline(5),
    "timeline-limit-neg": lambda c: c.timeline("api", limit=-1),
    "ingest-bytes": lambda c: c.ingest(b"x"),
    "ingest-origin-int": lambda c: c.ingest(["{}"], origin=5),
    "quality-str": lambda c: c.quality("abcdef"),
    "parse-feedback-int": lambda c: c.parse_feedback_message(3),
    "relate-reason-int": lambda c: c.relate("abcdef", "corrects", "bcdefa", reason=3),
}


@pytest.mark.parametrize("call", list(WRONG_CALLS.values()), ids=list(WRONG_CALLS))
def test_wrong_arguments_raise_invalid_input_and_write_nothing(cairn, db_path, call):
    cairn.remember("The worker runs nightly at two", kind="fact")
    before = db_fingerprint(db_path)
    with pytest.raises(InvalidInput):
        call(cairn)
    assert db_fingerprint(db_path) == before


@pytest.mark.parametrize("options", [
    {"busy_timeout": "x"}, {"busy_timeout": float("inf")}, {"busy_timeout": -1}, {"busy_timeout": True},
    {"read_only": "no"}, {"create": 1}, {"space": 5}, {"now": 12}, {"now": "9999-12-31T23:59:59-01:00"},
], ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_wrong_constructor_options_raise_invalid_input(tmp_path, options):
    with pytest.raises(InvalidInput):
        Cairn(tmp_path / "c.db", **options)
    assert not (tmp_path / "c.db").exists()


def test_a_path_that_is_not_a_path(tmp_path):
    with pytest.raises(InvalidInput):
        Cairn(3.5)  # type: ignore[arg-type]


def test_right_arguments_still_work(cairn):
    # The negative control: the same calls with well-typed arguments succeed.
    m = cairn.remember("The api runs on port 8080", kind="fact", source="chat-1", aliases=["api port"], pin=True).memory
    assert cairn.show(m.id[:8]).memory.id == m.id
    assert len(cairn.history(limit=5)) == 1
    out = io.StringIO()
    assert cairn.export(out).records == 1
    assert cairn.import_(out.getvalue()).skipped == 2
    assert cairn.recall("api port", limit=2, budget=512).ids == [m.id]
    assert cairn.timeline("api", limit=3).states
