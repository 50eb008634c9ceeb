"""Pure parsing of transcripts (cairn.learn.ingest): no store involved."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from cairn.learn.ingest import TurnError, parse_jsonl, parse_locomo, parse_locomo_time
from testkit.transcripts import TURNS, jsonl, locomo_conversation


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("12:30 am on 1 January, 2024", datetime(2024, 1, 1, 0, 30, tzinfo=UTC)),
        ("12:05 pm on 31 December, 2022", datetime(2022, 12, 31, 12, 5, tzinfo=UTC)),
        ("10:37 AM on 27 June 2023", datetime(2023, 6, 27, 10, 37, tzinfo=UTC)),
    ],
)
def test_locomo_session_times(text, expected):
    assert parse_locomo_time(text) == expected


@pytest.mark.parametrize("text", ["", "8 May 2023", "1:56 pm on 8 Mayo, 2023", "1:56 pm on 31 February, 2023"])
def test_bad_locomo_session_times(text):
    with pytest.raises(ValueError):
        parse_locomo_time(text)


def test_jsonl_keeps_text_verbatim_and_numeric_ids_as_text():
    raw = {"id": 7, "speaker": "Ana", "text": "  two  spaces, kept  ", "time": "2026-10-01T09:00:00+02:00"}
    (turn,) = parse_jsonl([json.dumps(raw)]).turns
    assert turn.id == "7" and turn.text == raw["text"]
    assert turn.time == datetime(2026, 10, 1, 7, 0, tzinfo=UTC)


def test_the_digest_identifies_the_content():
    first = parse_jsonl(jsonl(*TURNS).splitlines())
    assert first.sha256 == parse_jsonl(jsonl(*TURNS).splitlines()).sha256
    changed = parse_jsonl(jsonl(dict(TURNS[0], text="other"), *TURNS[1:]).splitlines())
    assert changed.sha256 != first.sha256


def test_locomo_sessions_are_read_in_numeric_order():
    conv = locomo_conversation()
    body = conv["conversation"]
    body["session_10_date_time"] = "9:00 am on 1 July, 2023"
    body["session_10"] = [{"speaker": "Ana", "dia_id": "D10:1", "text": "tenth"}]
    (parsed,) = parse_locomo(conv)
    assert [t.id for t in parsed.turns] == ["D1:1", "D1:2", "D2:1", "D10:1"]


def test_a_locomo_turn_without_text_names_the_turn():
    conv = locomo_conversation()
    conv["conversation"]["session_2"][0]["text"] = ""
    with pytest.raises(TurnError, match="turn D2:1"):
        parse_locomo(conv)


def test_not_a_locomo_shape():
    with pytest.raises(TurnError, match="LoCoMo"):
        parse_locomo("text")
    with pytest.raises(TurnError, match="conversation 0"):
        parse_locomo([{"no": "conversation"}])
