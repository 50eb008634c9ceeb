"""Labels: strict at ingestion (remember, apply, import), permissive at query time.

The contrast table (labels_contrast.json) is run through the CLI case by case; every
refusal must name where, the field and the label, exit 1, and leave the database exactly
as it was. The other tests pin the rest of the contract: repetition and presence in stored
records are not authority, labels check is read-only, aliases match on word boundaries
and CJK aliases have a length guard."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn import Cairn, UnknownLabel
from cairn.archive.labels import CJK_MIN, Vocabulary, alias_matches, parse_vocabulary
from testkit.db import db_fingerprint

TABLE = json.loads((Path(__file__).parent / "labels_contrast.json").read_text(encoding="utf-8"))


def batch_doc(index: int, body: dict) -> dict:
    return {"source": {"id": f"src-{index}", "kind": "summary", "origin": "survey",
                       "text": " ".join(c["content"] for c in body["claims"])}, **body}


@pytest.fixture
def vocab_cli(cli, tmp_path: Path):
    path = tmp_path / "vocabulary.json"
    path.write_text(json.dumps(TABLE["vocabulary"], ensure_ascii=False), encoding="utf-8")
    assert cli("labels", "import", str(path)).code == 0
    cli("remember", "The offline tablet was chosen for searchable notes", "--kind", "decision")
    return cli


@pytest.mark.parametrize("case", TABLE["cases"], ids=[c["input"] for c in TABLE["cases"]])
def test_contrast_table(vocab_cli, db_path: Path, tmp_path: Path, case: dict):
    cli = vocab_cli
    if "hint" in case:
        r = cli("--json", "recall", "offline tablet", "--topic", case["hint"])
        assert r.code == 0, r.err  # a hint never refuses the query
        doc = r.json()
        assert doc["results"], "the query ran"
        if case["expect"] == "warn":
            assert doc["topic"]["how"] == "unknown" and doc["warnings"]
            assert "warning" in r.err and case["hint"] in r.err
        else:
            assert doc["topic"]["how"] == case["how"] and "warnings" not in doc and r.err == ""
        return
    before = db_fingerprint(db_path)
    for index, body in enumerate(case["batches"]):
        path = tmp_path / f"batch{index}.json"
        path.write_text(json.dumps(batch_doc(index, body)), encoding="utf-8")
        r = cli("--json", "apply", str(path))
        if case["expect"] == "accept":
            assert r.code == 0, r.err
            labelled = [c for c in body["claims"] if c.get("topics")]
            (outcome,) = r.json()["claims"]
            shown = cli("--json", "show", outcome["id"]).json()["memory"]
            assert shown["topics"] == labelled[0]["topics"]
        else:
            assert r.code == 1
            assert len(r.err.strip().splitlines()) == 1
            assert case["where"] in r.err.replace(f"src-{index}", "src-0") and case["field"] in r.err
            assert repr(case["label"]) in r.err
    if case["expect"] == "reject":
        assert db_fingerprint(db_path) == before, "a refused batch wrote nothing"


def test_remember_rejects_an_unknown_label_and_accepts_a_canonical_one(vocab_cli, db_path: Path):
    before = db_fingerprint(db_path)
    bad = vocab_cli("remember", "The captain signs the log", "--kind", "fact", "--entity", "observatory_captian")
    assert bad.code == 1 and "remember entities" in bad.err and "'observatory_captian'" in bad.err
    assert db_fingerprint(db_path) == before
    good = vocab_cli("--json", "remember", "The captain signs the log", "--kind", "fact", "--entity", "observatory_captain",
                     "--topic", "expedition")
    assert good.code == 0, good.err
    memory = vocab_cli("--json", "show", good.json()["id"]).json()["memory"]
    assert (memory["topics"], memory["entities"]) == (["expedition"], ["observatory_captain"])


def test_without_a_vocabulary_every_label_is_refused(cairn: Cairn):
    with pytest.raises(UnknownLabel) as caught:
        cairn.remember("The tablet is charged nightly", kind="fact", topics=["field_test"])
    assert (caught.value.where, caught.value.label_field, caught.value.label) == ("remember", "topics", "field_test")
    assert cairn.remember("The tablet is charged nightly", kind="fact").memory.topics == ()  # control: no label


def _vocabulary(cairn: Cairn, doc: dict) -> None:
    cairn.labels_import(json.dumps(doc))


def test_presence_in_stored_records_is_not_authority(cairn: Cairn):
    """A label stored while it was valid stays recognisable for queries, but does not
    make a new write with it valid once the vocabulary dropped it."""
    _vocabulary(cairn, {"topics": {"feild_test": []}})
    cairn.remember("The tablet is charged nightly", kind="fact", topics=["feild_test"])
    cairn.remember("The tablet case is waterproof", kind="fact", topics=["feild_test"])
    imported = cairn.labels_import(json.dumps({"topics": {"field_test": []}}))
    assert [p.label for p in imported.stale] == ["feild_test", "feild_test"]
    with pytest.raises(UnknownLabel):
        cairn.remember("The tablet strap is red", kind="fact", topics=["feild_test"])
    hint = cairn.label_hint("feild_test")
    assert (hint.label, hint.how, hint.warning) == ("feild_test", "present", None)


def test_labels_check_reuses_the_validator_and_writes_nothing(cli, cairn: Cairn, db_path: Path, tmp_path: Path):
    _vocabulary(cairn, {"topics": {"field_test": [], "old_topic": []}})
    kept = cairn.remember("The tablet is charged nightly", kind="fact", topics=["field_test"]).memory
    gone = cairn.remember("The paper log is retired", kind="decision", topics=["old_topic"]).memory
    cairn.forget(gone.id)  # an inactive record's labels are checked too
    assert cairn.labels_check() == []
    _vocabulary(cairn, {"topics": {"field_test": []}})
    before = db_fingerprint(db_path)
    r = cli("--json", "labels", "check")
    assert r.code == 1
    assert r.json()["problems"] == [{"where": f"record {gone.id}", "field": "topics", "label": "old_topic"}]
    assert db_fingerprint(db_path) == before
    assert kept.id not in r.out


def test_import_rejects_an_unknown_label_naming_the_line(cairn: Cairn, tmp_path: Path, clock):
    _vocabulary(cairn, {"topics": {"field_test": []}})
    cairn.remember("The tablet is charged nightly", kind="fact", topics=["field_test"])
    export = tmp_path / "export.jsonl"
    with open(export, "w", encoding="utf-8") as out:
        cairn.export(out)
    lines = export.read_text(encoding="utf-8").splitlines()
    with Cairn(tmp_path / "other" / "cairn.db", now=clock) as other:
        with pytest.raises(UnknownLabel) as caught:
            other.import_(lines)
        assert caught.value.where.startswith("import line 1 record ") and caught.value.label == "field_test"
        assert other.list().memories == []
        _vocabulary(other, {"topics": {"field_test": []}})
        assert other.import_(lines).records == 1  # control: with the label known, the same lines import


def test_a_bad_vocabulary_is_refused_and_the_old_one_kept(cli, cairn: Cairn, tmp_path: Path):
    _vocabulary(cairn, {"topics": {"field_test": ["field test"]}})
    bad = tmp_path / "bad.json"
    docs: list[object] = [{"topics": {"Field Test": []}}, {"topics": {"a": ["x"], "b": ["X"]}}, {"tags": {}}, ["field_test"]]
    for doc in docs:
        bad.write_text(json.dumps(doc), encoding="utf-8")
        r = cli("labels", "import", str(bad))
        assert r.code == 1 and len(r.err.strip().splitlines()) == 1
    assert dict(cairn.labels().topics) == {"field_test": ("field test",)}


@pytest.mark.parametrize("alias, text, expected", [
    ("cap", "the cap fits", True),
    ("cap", "the captain signs", False),  # word boundary: no match inside a word
    ("cap", "escape", False),
    ("field test", "Our FIELD  TEST went well", True),  # case and spacing folded
    ("field test", "field testing", False),
    ("C++", "we use C++ here", True),
    ("野外测试", "我们的野外测试很顺利", True),  # CJK: substring, long enough
    ("星", "星期一开会", False),  # one CJK character: below the length guard
    ("星图", "新的星图已完成", True),
])
def test_alias_matching(alias: str, text: str, expected: bool):
    assert alias_matches(alias, text) is expected


def test_the_cjk_guard_is_a_length_guard():
    assert CJK_MIN == 2
    vocabulary = parse_vocabulary({"entities": {"star": ["星"], "star_chart": ["星图"]}})
    assert vocabulary.recognise("新的星图已完成").entities == ("star_chart",)


def test_recognition_is_wider_than_validation():
    vocabulary = Vocabulary(topics={"field_test": ("field test",)})
    assert vocabulary.recognise("how did the field test go").topics == ("field_test",)
    assert vocabulary.check("x", {"topics": ["field test"]})[0].label == "field test"  # an alias does not validate
    assert vocabulary.check("x", {"topics": ["field_test"]}) == []
