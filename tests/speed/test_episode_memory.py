"""What the episode lane keeps read stays small at any store size (recall/episodes.py,
recall/score.py, the SQLite store's turn rows).

A table of lists is bounded by the rows it holds, not by its entries (a speaker's turns);
and what many kept entries repeat is held once: the words of the texts whose counts are
kept, the origin and the speaker of the turns read. Each test has a control showing that
without the rule the memory would not be shared or the table would not be dropped."""

from __future__ import annotations

from cairn.recall import episodes, score
from cairn.recall.score import field_terms

from .test_episode_kept import TALK, lines


class CountingSpeaker:
    """A read view that counts its reads of a speaker's turns."""

    def __init__(self, view):
        self.view = view
        self.reads = 0

    def __getattr__(self, name):
        return getattr(self.view, name)

    def speaker_turns(self, space, word, cap, skip_retired=False):
        self.reads += 1
        return self.view.speaker_turns(space, word, cap, skip_retired=skip_retired)


def test_a_speakers_turns_are_kept_until_their_rows_reach_the_budget(cairn, monkeypatch):
    cairn.ingest(lines(TALK), origin="chat")  # 48 turns, 24 by each speaker
    monkeypatch.setattr(episodes, "KEPT_SPEAKER_ROWS", 30)
    with cairn.store.snapshot() as view:
        counting = CountingSpeaker(view)
        ana = episodes._speaker_turns(counting, cairn.space, "ana", 10, False)  # weighs 11
        assert len(ana) == 10
        episodes._speaker_turns(counting, cairn.space, "ben", 10, False)  # 22 in all
        assert episodes._speaker_turns(counting, cairn.space, "ana", 10, False) == ana
        assert counting.reads == 2  # control: below the budget the list is kept (three entries of many allowed)
        episodes._speaker_turns(counting, cairn.space, "ana", 20, False)  # 43 in all: over the budget
        assert counting.reads == 3
        assert episodes._speaker_turns(counting, cairn.space, "ana", 10, False) == ana
        assert counting.reads == 4  # the table was dropped: read again, the same turns


def _held(counts, word: str) -> str:
    return next(k for k in counts if k == word)


def test_the_counts_kept_per_text_hold_one_copy_of_each_word():
    first, second = "the quince tree by the south wall", "a quince tree in the garden"
    a, _ = score._field_counts(first)
    b, _ = score._field_counts(second)
    shared = (set(a) & set(b)) - {w for w in a if len(w) < 2}
    assert len(shared) >= 2
    for word in shared:
        assert _held(a, word) is _held(b, word)
    # Control: split from each text, the same words are separate objects.
    x, y = field_terms(first), field_terms(second)
    assert all(_held(x, w) is not _held(y, w) for w in shared)


def test_turns_read_apart_share_their_origin_and_speaker(cairn):
    cairn.ingest(lines(TALK), origin="garden-chat")
    with cairn.store.snapshot() as view:
        first = view.speaker_turns(cairn.space, "ana", 5)
        again = view.speaker_turns(cairn.space, "ana", 5)
    assert first == again and first
    for a, b in zip(first, again, strict=True):
        assert a.origin is b.origin and a.speaker is b.speaker
        assert a.id == b.id and a.id is not b.id  # control: a read makes its texts anew
    assert len({id(t.origin) for t in first}) == 1
