"""Every form of a word that says nothing is a stopword, not only its base form.

"who gets paged first?" asks who is paged: "gets", like "get", carries no topic. When
only the base form was listed, "gets" (stemmed to ``get``) stayed a feature that no note
holds, and took enough of the coverage to drop the note that answers.
"""

from __future__ import annotations

from cairn.recall.query import parse_query
from cairn.text import STOPWORDS, tokenize

from .test_recall_counts_and_synonyms import _claims

ON_CALL = [
    "Pages go to PagerDuty service infra-primary; the secondary is paged after 10 minutes",
    "Postmortems are written within two working days of an incident",
    "The staging cluster is rebuilt every Sunday night",
]


def _recall(tmp_path, question: str) -> list[str]:
    return _claims(tmp_path, ON_CALL, question)


def test_inflected_forms_of_stopword_verbs_are_stopwords():
    for word in ("gets", "getting", "gotten", "goes", "gone", "went"):
        assert word in STOPWORDS, word
        assert all(t.stop for t in tokenize(word)), word
    assert [f.term for f in parse_query("who gets paged first?").features] == ["pag", "first"]


def test_a_question_with_gets_finds_the_note(tmp_path):
    assert _recall(tmp_path, "who gets paged first?") == [ON_CALL[0]]


def test_content_words_are_not_made_stopwords(tmp_path):
    # Negative controls: the verbs' topic-bearing neighbours still count, and a question
    # about something no note holds still gets nothing.
    assert "paged" not in STOPWORDS and "pages" not in STOPWORDS
    assert _recall(tmp_path, "who gets the parking space on fridays") == []
