"""The write policy has no side doors, driven through the CLI as a user would.

Each rule has its positive case and a negative control that shows the rule is not a blanket
refusal: a duplicate under another kind, a second replacement with a withheld value, a
replacement reusing a stored value, and malformed correction evidence on every write path.
"""

from __future__ import annotations

import json

import pytest

from testkit.db import db_fingerprint

NOW = "2026-11-10T12:00:00Z"
BEFORE = "2026-11-01T00:00:00Z"
USER_PORT = "Atlas database port is 5432"
SUMMARY_PORT = "Atlas database port is 1111"
SOURCE_TEXT = "Summary: the Atlas database port is 1111 now, and the Atlas cache host is cache-2."


def remember(cli, text, *, basis="user_statement", kind="fact", method="manual"):
    out = cli("--now", BEFORE, "--json", "remember", text, "--kind", kind, "--origin", "acme", "--basis", basis,
              "--method", method)
    assert out.code == 0, out.err
    return out.json()["id"]


def apply(cli, tmp_path, claims, *, kind="summary", source_id="s1", text=SOURCE_TEXT, **source):
    doc = {"source": {"id": source_id, "text": text, "kind": kind, "origin": "acme", **source}, "claims": claims}
    path = tmp_path / f"{source_id}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return cli("--now", NOW, "--json", "apply", str(path))


def records(cli):
    """Every record of the store (all statuses), by id."""
    found, page = {}, 1
    while True:
        batch = cli("--json", "list", "--page", str(page)).json()["memories"]
        found.update({m["id"]: m for m in batch})
        if len(batch) < 20:
            return found
        page += 1


def holding(cli, text):
    return [m for m in records(cli).values() if m["content"] == text]


def recalled(cli, query="Atlas database port"):
    return [r["content"] for r in cli("--now", NOW, "--json", "recall", query).json()["results"]]


# -- a same-batch duplicate under another kind -------------------------------------------


@pytest.mark.parametrize("decision_first", [True, False])
def test_a_duplicate_under_another_kind_stays_quarantined(cli, tmp_path, decision_first):
    user = remember(cli, USER_PORT)
    claims = [{"kind": "decision", "content": SUMMARY_PORT}, {"kind": "fact", "content": SUMMARY_PORT, "replaces": user}]
    out = apply(cli, tmp_path, claims if decision_first else claims[::-1])
    assert out.code == 0, out.err
    assert out.json()["withheld"] == 1
    held = holding(cli, SUMMARY_PORT)
    assert sorted(m["kind"] for m in held) == ["decision", "fact"]
    assert {m["status"] for m in held} == {"conflicted"}
    assert recalled(cli) == [USER_PORT]


def test_control_a_decision_beside_no_withheld_value_is_added(cli, tmp_path):
    remember(cli, USER_PORT)
    out = apply(cli, tmp_path, [{"kind": "decision", "content": SUMMARY_PORT}])
    assert out.code == 0, out.err
    assert [m["status"] for m in holding(cli, SUMMARY_PORT)] == ["provisional"]


# -- a same-batch replacement reviving a withheld value ------------------------------------

WEAK = "Atlas cache host is cache-1"


@pytest.mark.parametrize("user_first", [True, False])
def test_a_second_replacement_cannot_revive_a_withheld_value(cli, tmp_path, user_first):
    user = remember(cli, USER_PORT)
    weak = remember(cli, WEAK, basis="summary", method="local")
    claims = [{"kind": "fact", "content": SUMMARY_PORT, "replaces": user},
              {"kind": "fact", "content": SUMMARY_PORT, "replaces": weak}]
    out = apply(cli, tmp_path, claims if user_first else claims[::-1])
    assert out.code == 0, out.err
    doc = out.json()
    assert (doc["withheld"], doc["replaced"]) == (2, 0)
    stored = records(cli)
    assert stored[weak]["content"] == WEAK and stored[user]["content"] == USER_PORT
    held = holding(cli, SUMMARY_PORT)
    assert held and {m["status"] for m in held} == {"conflicted"}
    assert {c["id"] for c in doc["claims"]} == {held[0]["id"]}


def test_control_a_replacement_of_a_weaker_record_alone_is_written(cli, tmp_path):
    remember(cli, USER_PORT)
    weak = remember(cli, WEAK, basis="summary", method="local")
    out = apply(cli, tmp_path, [{"kind": "fact", "content": "Atlas cache host is cache-2", "replaces": weak}])
    assert out.code == 0, out.err
    assert records(cli)[weak]["content"] == "Atlas cache host is cache-2"


# -- a replacement reusing a stored value -----------------------------------------------

OLD = "Atlas cache host was cache-0"
STORED = "Atlas cache host is cache-2"


def test_a_replacement_reusing_a_stored_value_leaves_one_current_record(cli, tmp_path):
    old = remember(cli, OLD, basis="summary", method="local")
    stored = remember(cli, STORED, basis="summary", method="local")
    out = apply(cli, tmp_path, [{"kind": "fact", "content": STORED, "replaces": old}], kind="conversation",
                text="User: the Atlas cache host was cache-0, it is cache-2 now.")
    assert out.code == 0, out.err
    assert out.json()["claims"][0]["id"] == stored
    everything = records(cli)
    current = [m for m in everything.values() if m["status"] in ("provisional", "confirmed")]
    assert [m["id"] for m in current] == [stored]
    assert everything[stored]["evidence"]["source_id"] == "s1"  # the newer evidence, attached
    assert everything[stored]["evidence"]["basis"] == "user_statement"
    assert everything[old]["status"] == "retired"
    assert recalled(cli, "Atlas cache host") == [STORED]


def test_control_a_replacement_with_a_new_value_is_written_in_place(cli, tmp_path):
    old = remember(cli, OLD, basis="summary", method="local")
    remember(cli, STORED, basis="summary", method="local")
    out = apply(cli, tmp_path, [{"kind": "fact", "content": "Atlas cache host is cache-3", "replaces": old}],
                kind="conversation", text="User: the Atlas cache host was cache-0, it is cache-3 now.")
    assert out.code == 0, out.err
    assert records(cli)[old]["content"] == "Atlas cache host is cache-3"
    assert records(cli)[old]["status"] == "provisional"


# -- malformed correction evidence ------------------------------------------------------


def test_remember_refuses_a_correction_basis_without_the_manual_method(cli, db_path):
    remember(cli, USER_PORT)
    before = db_fingerprint(db_path)
    out = cli("--now", BEFORE, "remember", "Atlas database port is 7777", "--kind", "fact", "--basis",
              "manual_correction", "--method", "model")
    assert out.code == 1 and "manual_correction" in out.err and out.err.count("\n") == 1
    assert db_fingerprint(db_path) == before


def test_control_remember_accepts_the_literal_correction_pair(cli):
    memory = remember(cli, USER_PORT, basis="manual_correction", method="manual")
    assert cli("--now", NOW, "--json", "show", memory).json()["quality"]["priority"] == 4


@pytest.mark.parametrize(("method", "code"), [("model", 1), ("agent", 1), ("local", 1), ("manual", 0)])
def test_apply_refuses_a_manual_source_with_another_method(cli, tmp_path, db_path, method, code):
    user = remember(cli, USER_PORT)
    before = db_fingerprint(db_path)
    out = apply(cli, tmp_path, [{"kind": "fact", "content": "Atlas database port is 7777", "replaces": user}],
                kind="manual", method=method, text="Atlas database port is 7777, not 5432.")
    assert out.code == code, out.err
    if code:
        assert "source.method" in out.err and db_fingerprint(db_path) == before
    else:
        assert cli("--now", NOW, "--json", "show", user).json()["quality"]["priority"] == 4


@pytest.mark.parametrize(("method", "code"), [("model", 1), ("manual", 0)])
def test_import_refuses_a_record_edited_to_correction_authority(cli, tmp_path, method, code):
    remember(cli, USER_PORT)
    export = tmp_path / "export.jsonl"
    assert cli("export", str(export)).code == 0
    lines = [json.loads(line) for line in export.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        if line["type"] == "memory":
            line["data"]["evidence"].update(basis="manual_correction", method=method)
    export.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    fresh = tmp_path / "other.db"
    out = cli("--db", str(fresh), "--now", NOW, "import", str(export))
    assert out.code == code, out.err
    if code:
        # Refused before anything was written: no store was left behind either.
        assert "manual_correction" in out.err and not fresh.exists()
    else:
        listed = cli("--db", str(fresh), "--json", "list").json()["memories"]
        assert [m["evidence"]["basis"] for m in listed] == ["manual_correction"]


@pytest.mark.parametrize(("method", "priority"), [("model", 0), ("agent", 0), ("manual", 4)])
def test_stored_malformed_evidence_defends_and_ranks_with_nothing(method, priority):
    """A record written before the check, still carrying manual_correction/model: it fails
    closed (priority 0) for replacement and for the rank's evidence weight alike."""
    from datetime import UTC, datetime

    from cairn.model import Basis, Evidence, Kind, Memory, Method
    from cairn.policy.priority import record_priority
    from cairn.recall.rank import rank_factors

    at = datetime(2026, 11, 1, tzinfo=UTC)
    legacy = Memory(id="a" * 24, space="default", origin="acme", kind=Kind.FACT, content=USER_PORT, created_at=at,
                    updated_at=at, evidence=Evidence(Basis.MANUAL_CORRECTION, Method(method), "s0", at))
    assert record_priority(legacy) == priority
    assert rank_factors(legacy, 1.0, at).priority == priority


@pytest.mark.parametrize("user_first", [True, False])
def test_a_withheld_claim_never_points_at_a_record_the_batch_rewrites(cli, tmp_path, user_first):
    """The weak record held the withheld value before the batch, and the batch replaces
    that text: the withheld claim needs its own quarantined variant, whatever the order."""
    user = remember(cli, USER_PORT)
    weak = remember(cli, SUMMARY_PORT, basis="summary", method="local")
    claims = [{"kind": "fact", "content": SUMMARY_PORT, "replaces": user},
              {"kind": "fact", "content": "Atlas database port is 2222", "replaces": weak}]
    out = apply(cli, tmp_path, claims if user_first else claims[::-1],
                text="Summary: the Atlas database port is 1111, or 2222 now.")
    assert out.code == 0, out.err
    withheld = next(c for c in out.json()["claims"] if c["outcome"] == "withheld")
    variant = records(cli)[withheld["id"]]
    assert (variant["content"], variant["status"]) == (SUMMARY_PORT, "conflicted")
    assert records(cli)[weak]["content"] == "Atlas database port is 2222"


def test_a_record_kept_by_the_quarantine_still_holds_its_value_for_a_reuse(cli, tmp_path):
    """The weak record's own replacement is withheld (its value is quarantined), so it keeps
    its text: another replacement reusing that text must find it, whatever the order."""
    user = remember(cli, USER_PORT)
    kept = remember(cli, "Atlas cache host is cache-1", basis="summary", method="local")
    other = remember(cli, "Atlas cache host was cache-0", basis="summary", method="local")
    claims = [{"kind": "fact", "content": "Atlas cache host is cache-1", "replaces": other},
              {"kind": "fact", "content": SUMMARY_PORT, "replaces": user},
              {"kind": "fact", "content": SUMMARY_PORT, "replaces": kept}]
    out = apply(cli, tmp_path, claims, text="Summary: Atlas database port is 1111; the Atlas cache host was cache-0, "
                                            "it is cache-1.")
    assert out.code == 0, out.err
    current = [m for m in holding(cli, "Atlas cache host is cache-1") if m["status"] in ("provisional", "confirmed")]
    assert [m["id"] for m in current] == [kept]
    assert records(cli)[other]["status"] == "retired"
