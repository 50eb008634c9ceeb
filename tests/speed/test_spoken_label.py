"""The label of a conversation turn (who spoke, and when) is kept per speaker and time;
it must read exactly as it is made: the speaker shortened as a label, the time in UTC to
the minute, and the words for a turn with no speaker or no time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from types import SimpleNamespace

from cairn.recall import pipeline
from cairn.recall.pack import label_text


def _turn(aliases: tuple[str, ...], at: datetime | None) -> SimpleNamespace:
    return SimpleNamespace(aliases=aliases, evidence=SimpleNamespace(at=at))


def _made(aliases: tuple[str, ...], at: datetime | None) -> str:
    who = label_text(aliases[0]) if aliases else "unknown speaker"
    when = at.astimezone(UTC).strftime("%Y-%m-%d %H:%M") if at else "time unknown"
    return f"{who}, {when}"


def test_a_kept_label_reads_as_it_is_made():
    cases = [
        (("Ana",), datetime(2026, 5, 2, 10, 0, 59, tzinfo=UTC)),
        (("Ben Okafor the younger, who speaks at length",), datetime(2026, 1, 1, 0, 0, tzinfo=UTC)),
        (("Chloé",), datetime(2026, 7, 1, 1, 30, tzinfo=timezone(timedelta(hours=2)))),  # 23:30 UTC the day before
        ((), datetime(2026, 3, 3, 3, 3, tzinfo=UTC)),
        (("Ana",), None),
        (("",), None),
    ]
    for aliases, at in cases:
        turn = _turn(aliases, at)
        assert pipeline.spoken(turn) == _made(aliases, at)  # type: ignore[arg-type]
        assert pipeline.spoken(turn) == _made(aliases, at)  # type: ignore[arg-type]  # the kept one
    assert pipeline.spoken(_turn(("Chloé",), cases[2][1])).endswith("2026-06-30 23:30")  # type: ignore[arg-type]
