"""Without the semantic extra (or with it switched off) Cairn behaves exactly as the
lexical engine: the default lane is ``claims``, recall and explain are the claims lane's
to the byte, nothing is embedded, and asking for a semantic lane says how to install it."""

from __future__ import annotations

import json
import sys

import pytest

from cairn.embed import vectors
from cairn.embed.minilm import REQUIRED
from cairn.errors import CairnError

from .conftest import vector_rows

CORPUS = [
    "Our team lunch is every Friday at the ramen place",
    "Authentication uses JWT access tokens that expire after 15 minutes",
    "The production database is PostgreSQL 16 on a managed instance",
]
QUESTIONS = ["team lunch", "JWT tokens", "when do we eat together as a group", "what is the capital of France"]


def test_switched_off_recall_is_the_claims_lane_to_the_byte(cairn, db_path, semantic_off):
    for text in CORPUS:
        cairn.remember(text, kind="fact")
    for q in QUESTIONS:
        default = cairn.recall(q, trace=False)
        claims = cairn.recall(q, lane="claims", trace=False)
        assert default.outcome.request.lane == "claims"
        assert json.dumps(default.to_dict(), sort_keys=True) == json.dumps(claims.to_dict(), sort_keys=True)
        assert json.dumps(cairn.explain(q), sort_keys=True) == json.dumps(cairn.explain(q, lane="claims"), sort_keys=True)
    assert vector_rows(db_path) == []  # nothing embedded, no model loaded


def test_not_installed_is_the_same_as_switched_off(cairn, db_path, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.delenv(vectors.SWITCH, raising=False)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in REQUIRED else real(name, *a))
    for name in REQUIRED:  # not installed: not importable, and so never imported either
        monkeypatch.delitem(sys.modules, name, raising=False)
    assert not vectors.enabled()
    cairn.remember(CORPUS[0], kind="fact")
    assert cairn.recall("team lunch", trace=False).outcome.request.lane == "claims"
    assert vector_rows(db_path) == []


@pytest.mark.parametrize("lane", ["semantic", "hybrid", "semantic-episodes", "hybrid-episodes"])
def test_a_semantic_lane_without_the_extra_says_how_to_install_it(cairn, db_path, semantic_off, lane):
    cairn.remember(CORPUS[0], kind="fact")
    with pytest.raises(CairnError, match=r"pip install 'cairn-memory\[semantic\]'"):
        cairn.recall("team lunch", lane=lane)


def test_the_cli_refuses_with_one_line_and_writes_nothing(cli, db_path, semantic_off):
    from testkit.db import full_fingerprint

    assert cli("remember", CORPUS[0], "--kind", "fact").code == 0
    before = full_fingerprint(db_path)
    r = cli("recall", "team lunch", "--lane", "semantic")
    assert r.code == 1 and len(r.err.strip().splitlines()) == 1
    assert "pip install 'cairn-memory[semantic]'" in r.err
    assert full_fingerprint(db_path) == before
    embed = cli("embed")
    assert embed.code == 1 and "pip install 'cairn-memory[semantic]'" in embed.err
    assert full_fingerprint(db_path) == before
    assert cli("recall", "team lunch").code == 0  # negative control: the default lane works


def test_embed_has_help(cli):
    r = cli("embed", "--help")
    assert r.code == 0 and "resumes" in r.out and "--limit" in r.out
