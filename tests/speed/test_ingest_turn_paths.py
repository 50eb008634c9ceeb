"""The per-turn shortcuts of a conversation ingest change its cost, never its output.

* Redaction picks the rules to run from the keywords a text holds. Past the first few
  short texts of a process, the words of a text are looked up among the words already
  known to hold no keyword (or known to hold some) rather than scanned position by
  position. The rules picked must be exactly those whose keywords a plain search finds.
* ``index_text`` finds the words of an ASCII text by turning every byte other than a
  letter or digit into a space and splitting, not with the token expression: the same
  words for every ASCII text.
* A JSONL turn whose fields are all texts within their limits is read inline
  (``_plain_turn``); every other turn takes the general reader and its reasons.

Each comparison has a control showing that the shortcut is really taken."""

from __future__ import annotations

import json
import random
import re
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn import text as text_module
from cairn.bench.drills.corpus import BENIGN, SECRETS
from cairn.bench.scale import Conversations
from cairn.learn import ingest as reader
from cairn.policy import redaction
from cairn.text import index_text, normalize, stem

# -- redaction: the rules picked ----------------------------------------------------------


def _plain_search(lowered: str) -> list[int]:
    """The definition: the rules without keywords, and those with a keyword in the text."""
    return [i for i, p in enumerate(redaction.PATTERNS) if not p.keywords or any(k in lowered for k in p.keywords)]


_SEPARATORS = [" ", "  ", "\t", "\n", "\u00a0", "\u2028", "\x1c", "\r\n", "\u3000"]
_WORDS = ["deploy", "server", "monkey", "passed", "spinning", "opinion", "secrets", "token", "Tokens", "ghp", "the",
          "private", "key", "config,", "it's", "sk-live", "a", "I", "Straße", "ſecret", "KEY", "café", "東京"]


def _texts(seed: int, count: int) -> list[str]:
    """Texts longer than the whole-text limit: words, keywords (alone, inside words, across
    separators), punctuation and Unicode separators, in random mixes."""
    rng = random.Random(seed)
    pieces = [*redaction._KEYWORDS, *_WORDS]
    out = []
    for _ in range(count):
        parts = [rng.choice(pieces) + (rng.choice(["", "", "x", "9", ".", ":"])) for _ in range(rng.randint(3, 14))]
        out.append("".join(part + rng.choice(_SEPARATORS) for part in parts))
    out += ["a private key sits here and nothing else", "a private\tkey is not the spaced keyword at all",
            "private keys and more words after them", "privatekey written as one word here, twice privatekey"]
    return out


@pytest.fixture
def fresh_words(monkeypatch):
    """Empty word memories and the word-by-word way in force (past the cheap first texts)."""
    monkeypatch.setattr(redaction, "_cheap_left", [0])
    monkeypatch.setattr(redaction, "_clean_words", set())
    monkeypatch.setattr(redaction, "_keyword_words", {})


@pytest.mark.parametrize("seed", range(3))
def test_word_by_word_picks_exactly_the_rules_a_plain_search_picks(fresh_words, seed):
    texts = _texts(seed, 1500)
    texts += [s.lower() for s, *_ in SECRETS] + [b.lower() for b in BENIGN]
    for _ in range(2):  # the second round reads the words kept by the first
        for text in texts:
            lowered = text.lower()
            assert redaction._todo(lowered, -1) == _plain_search(lowered), text
            assert redaction._todo(lowered, 40) == [i for i in _plain_search(lowered) if i > 40], text


def test_bounded_memories_still_pick_the_same_rules(fresh_words, monkeypatch):
    """Emptied whenever full (here every few words): the answers do not depend on what is kept."""
    monkeypatch.setattr(redaction, "_WORDS_KEPT", 5)
    for text in _texts(7, 800):
        lowered = text.lower()
        assert redaction._todo(lowered, -1) == _plain_search(lowered), text
    assert len(redaction._clean_words) <= 5 and len(redaction._keyword_words) <= 5


def test_the_spaced_keyword_is_looked_for_in_the_whole_text(fresh_words):
    """"private key" lies across two words: only the whole-text search can find it."""
    with_space = "we keep the private key in a vault far away"
    assert 0 in redaction._todo(with_space, -1) and 0 in _plain_search(with_space)
    with_tab = "we keep the private\tkey in a vault far away"
    assert 0 not in redaction._todo(with_tab, -1) and 0 not in _plain_search(with_tab)
    assert redaction._spaced_keywords() == (("private key", frozenset({0})),)


def test_the_words_are_kept_and_read_back(fresh_words, monkeypatch):
    """Control: the word-by-word way is taken. A second text of known words is answered
    from the kept words without scanning any of them; a word with a digit is not kept."""
    first = "the deploy server token spinning release pipeline"
    redaction._todo(first, -1)
    assert {"deploy", "server", "release", "pipeline"} <= redaction._clean_words
    assert "token" in redaction._keyword_words and "spinning" in redaction._keyword_words  # "pin"
    scanned: list[str] = []
    real = redaction._scanned
    def scan(text: str):
        scanned.append(text)
        return real(text)

    monkeypatch.setattr(redaction, "_scanned", scan)
    assert redaction._todo("pipeline token deploy server release", -1) == _plain_search("pipeline token deploy server release")
    assert scanned == []
    redaction._todo("deploy the build v2 on server number 42 today", -1)
    # New words are scanned one by one (and kept); words with digits are scanned together.
    assert sorted(s for s in scanned if "\n" not in s) == ["build", "number", "on", "today"]
    assert sorted(s.split("\n") for s in scanned if "\n" in s) == [["42", "v2"]] or \
        sorted(sorted(s.split("\n")) for s in scanned if "\n" in s) == [["42", "v2"]]
    assert "v2" not in redaction._clean_words and "42" not in redaction._clean_words


def test_redact_on_the_bench_turns_is_unchanged_whichever_way_keywords_are_found(monkeypatch):
    """Whole texts through :func:`redact`, against the rules picked by a plain search."""
    turns = []
    for _, lines in Conversations(1200).conversations():
        turns += [json.loads(line)["text"] for line in lines]
    turns += [s for s, *_ in SECRETS] + list(BENIGN)
    monkeypatch.setattr(redaction, "_cheap_left", [0])
    fast = [redaction.redact(t) for t in turns]
    monkeypatch.setattr(redaction, "_todo", lambda lowered, after: [i for i in _plain_search(lowered) if i > after])
    assert fast == [redaction.redact(t) for t in turns]
    assert any(found for _, found in fast)  # control: some of them hold secrets


# -- index_text on ASCII ----------------------------------------------------------------


_WORD_RE = re.compile(r"[^\W_]+", re.ASCII)


def _by_expression(text: str) -> str:
    """index_text of an ASCII text as the token expression finds its words."""
    return " ".join(map(stem, _WORD_RE.findall(normalize(text))))


_ASCII_AWKWARD = ["", " ", "snake_case_name", "a-b.c/d", "v2.1.0 and 10:30", "tabs\tand\nlines\r\x0b\x0c",
                  "\x00\x01\x1f\x7f controls", "Tests, TESTING; tested!", "don't won't", "___", "9to5 r2d2",
                  "emoji-free ascii ~!@#$%^&*()+=[]{}|\\;:'\",<.>/?`"]


@pytest.mark.parametrize("text", _ASCII_AWKWARD)
def test_ascii_words_as_the_expression_finds_them(text):
    assert index_text(text) == _by_expression(text)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=80))
def test_ascii_words_on_generated_texts(text):
    assert index_text(text) == _by_expression(text)


def test_the_bench_turns_index_as_before():
    for _, lines in Conversations(1200).conversations():
        for line in lines:
            turn = json.loads(line)["text"]
            assert index_text(turn) == _by_expression(turn)


def test_ascii_texts_do_not_use_the_expression(monkeypatch):
    """Control: the ASCII branch no longer runs the expression (made to fail here); a
    text that is not ASCII still takes the token path."""

    class Broken:
        def findall(self, _text):
            raise AssertionError("the expression was used")

    monkeypatch.setattr(text_module, "_ASCII_WORD_RE", Broken())
    assert index_text("Deploying the servers, twice") == "deploy the server twic"
    with pytest.raises(AssertionError, match="the expression was used"):
        text_module.tokenize("Deploying the servers")  # the control's own control: the break is in force
    assert index_text("Größere Häuser") == "grosser hauser"


# -- JSONL turns read inline ------------------------------------------------------------

_AT = "2025-01-02T03:04:05Z"


def _objects() -> list[dict]:
    good = {"id": "t1", "speaker": "Ana", "text": "hello there", "time": _AT}
    variants: list[dict] = [good, {**good, "id": " t1 ", "speaker": " Ana\t"}, {**good, "text": "  padded  "}]
    variants += [{k: v for k, v in good.items() if k != "speaker"} | {"role": "user"}]
    variants += [{**good, "speaker": "Ana", "role": "bot"}, {**good, "time": "2025-01-02T05:04:05+02:00"},
                 {**good, "time": "2025-01-02"}, {**good, "time": " 2025-01-02T03:04:05z "}]
    for key in ("id", "speaker", "text", "time"):
        wrong: tuple[object, ...] = (None, 7, 7.5, True, [], {}, "", "   ", "a\x00b")
        variants += [{**good, key: bad} for bad in wrong]
        variants += [{k: v for k, v in good.items() if k != key}]
    variants += [{**good, "id": 42}, {**good, "id": "x" * reader.ID_MAX}, {**good, "id": "x" * (reader.ID_MAX + 1)},
                 {**good, "speaker": "s" * reader.SPEAKER_MAX}, {**good, "speaker": "s" * (reader.SPEAKER_MAX + 1)},
                 {**good, "id": " " * (reader.ID_MAX - 1) + "x "}, {**good, "time": "yesterday"},
                 {**good, "time": "2025-02-30T00:00:00Z"}, {**good, "text": "lone \ud800 surrogate"},
                 {**good, "speaker": None, "role": "user"}]
    return variants


def _general(obj: dict):
    try:
        return reader._jsonl_turn(obj, "line 1")
    except reader.TurnError as err:
        return ("refused", err.where, err.reason)


@pytest.mark.parametrize("obj", _objects(), ids=lambda o: json.dumps(o, ensure_ascii=True)[:60])
def test_an_inline_turn_is_the_general_readers_turn(obj):
    plain = reader._plain_turn(obj)
    if plain is not None:
        assert plain == _general(obj) and type(plain) is reader.Turn
    else:
        assert obj.get("id") == 42 or obj.get("role") == "user" or isinstance(_general(obj), tuple) \
            or "speaker" in obj and obj["speaker"] is None


def test_the_common_turn_is_read_inline(monkeypatch):
    """Control: a transcript of well-formed turns never reaches the general reader, and
    the result is the same conversation (turns and digest) as through it."""
    lines = [line for _, lines in Conversations(1200).conversations() for line in lines][:600]
    through_general = reader.parse_jsonl(lines)
    monkeypatch.setattr(reader, "_plain_turn", lambda obj: None)
    assert reader.parse_jsonl(lines) == through_general
    monkeypatch.undo()
    monkeypatch.setattr(reader, "_jsonl_turn", lambda obj, where: pytest.fail("took the general path"))
    assert reader.parse_jsonl(lines) == through_general


def test_refusals_name_the_same_line_and_reason():
    good = json.dumps({"id": "t1", "speaker": "Ana", "text": "hi", "time": _AT})
    cases = {
        '{"id": "t2", "speaker": "Bo", "text": "", "time": "2025-01-02"}': ("line 2", '"text" must be a non-empty string'),
        '{"id": "t2", "speaker": "Bo", "text": "x", "time": 5}': ("line 2", '"time" must be an ISO-8601 string'),
        '{"id": "t2", "speaker": "Bo", "text": "x", "time": "soon"}': ("line 2", "\"time\" is not an ISO-8601 time: 'soon'"),
        '{"id": "t1", "speaker": "Bo", "text": "x", "time": "2025-01-02T03:04:05Z"}': ("line 2", "turn id 't1' appears twice"),
        '[1, 2]': ("line 2", 'expected an object {"id", "speaker" or "role", "text", "time"}'),
        '{"id": ': ("line 2", "not JSON (Expecting value)"),
    }
    for line, (where, reason) in cases.items():
        with pytest.raises(reader.TurnError) as caught:
            reader.parse_jsonl([good, line])
        assert (caught.value.where, caught.value.reason) == (where, reason)


def test_a_turn_is_immutable_and_keeps_its_fields():
    turn = reader.Turn("t1", "Ana", "hi", datetime(2025, 1, 2, tzinfo=UTC))
    assert (turn.id, turn.speaker, turn.text, turn.caption) == ("t1", "Ana", "hi", None)
    with pytest.raises(AttributeError):
        turn.text = "changed"  # type: ignore[misc]
