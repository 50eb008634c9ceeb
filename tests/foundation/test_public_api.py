"""The public Python API: what ``import cairn`` offers, and that each of it is documented
and typed. docs/api.md is run as a doctest, so its worked session stays true."""

from __future__ import annotations

import ast
import doctest
import importlib
import inspect
import typing
from pathlib import Path

import pytest

import cairn
import cairn.engine
import cairn.errors
from cairn import Cairn

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_all_is_sorted_and_every_name_resolves():
    assert cairn.__all__ == sorted(cairn.__all__)
    assert len(set(cairn.__all__)) == len(cairn.__all__)
    for name in cairn.__all__:
        assert getattr(cairn, name, None) is not None, name


def test_every_error_is_exported_from_the_top():
    errors = {
        name
        for name, value in vars(cairn.errors).items()
        if isinstance(value, type) and issubclass(value, cairn.CairnError)
    }
    assert errors <= set(cairn.__all__), errors - set(cairn.__all__)
    assert issubclass(cairn.PluginError, cairn.CairnError)


def test_every_engine_result_type_is_exported_from_the_top():
    results = {n for n in cairn.engine.__all__ if n[0].isupper() and n not in ("LIMITS", "Limits", "Scope")}
    assert results <= set(cairn.__all__), results - set(cairn.__all__)


def _public_methods(cls: type) -> dict[str, object]:
    return {
        name: member
        for name, member in vars(cls).items()
        if not name.startswith("_") and (inspect.isfunction(member) or isinstance(member, classmethod))
    }


def _undocumented(cls: type) -> list[str]:
    return sorted(name for name, member in _public_methods(cls).items() if not inspect.getdoc(member))


def test_every_public_cairn_method_has_a_docstring():
    assert len(_public_methods(Cairn)) >= 25
    assert _undocumented(Cairn) == []


def test_the_docstring_check_sees_a_missing_docstring():
    class Probe:
        def documented(self) -> None:
            """Yes."""

        def bare(self) -> None:
            pass

    assert _undocumented(Probe) == ["bare"]


def test_every_public_cairn_method_has_a_typed_result():
    """No bare ``dict``/``Any`` results: each method says what it returns."""
    loose = []
    for name, member in _public_methods(Cairn).items():
        function = member.__func__ if isinstance(member, classmethod) else member
        hints = typing.get_type_hints(function, localns=_facade_annotation_names())
        assert "return" in hints, name
        if hints["return"] in (dict, typing.Any) or typing.get_origin(hints["return"]) is dict:
            loose.append(name)
    assert loose == []


def _facade_annotation_names() -> dict[str, object]:
    """The names the facade imports under ``TYPE_CHECKING`` only (it imports its parts on
    first use, for start-up time), imported here so that its annotations resolve."""
    facade = importlib.import_module("cairn.engine.facade")
    names: dict[str, object] = {}
    for node in ast.parse(inspect.getsource(facade)).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for item in node.body:
                assert isinstance(item, ast.ImportFrom)
                module = importlib.import_module("." * item.level + (item.module or ""), "cairn.engine")
                names.update({a.asname or a.name: getattr(module, a.name) for a in item.names})
    assert names, "the facade's annotation-only imports were not found"
    return names


def test_docs_api_session_runs(tmp_path, monkeypatch):
    """docs/api.md is a worked Python session; every example in it must hold."""
    monkeypatch.chdir(tmp_path)
    failures, tried = doctest.testfile(
        str(DOCS / "api.md"), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert tried >= 20
    assert failures == 0


@pytest.mark.parametrize("name", ["Cairn", "Remembered", "Recalled", "Memory", "CairnError", "Backend"])
def test_names_in_the_docs_are_importable_from_the_top(name):
    assert name in (DOCS / "api.md").read_text(encoding="utf-8")
    assert hasattr(cairn, name)


# -- results: one way to the wire form -----------------------------------------------------------


def test_every_result_type_has_to_dict():
    """Each typed result a Cairn method returns turns into its JSON form the same way."""
    names = [n for n in cairn.engine.__all__ if n[0].isupper() and n not in ("LIMITS", "Limits", "Scope", "Cairn")]
    results = [getattr(cairn, n) for n in names]
    assert len(results) >= 12
    assert _without_to_dict(results) == []


def _without_to_dict(types: list[type]) -> list[str]:
    return [t.__name__ for t in types if not callable(getattr(t, "to_dict", None))]


def test_the_to_dict_check_sees_a_missing_method():
    class Probe:
        pass

    assert _without_to_dict([Probe, cairn.Remembered]) == ["Probe"]


def test_results_to_dict_match_the_cli_documents(tmp_path):
    import json

    from cairn.cli import main
    from testkit import NOW

    db = tmp_path / "c.db"
    with Cairn(db, now=NOW) as c:
        remembered = c.remember("Deploys go out on Tuesdays", kind="fact", origin="ops")
        assert remembered.id == remembered.memory.id
        assert remembered.event is not None
        assert remembered.to_dict() == {"id": remembered.id, "status": "provisional", "event": remembered.event.id}
        shown = c.show(remembered.id[:8])
        assert shown.id == remembered.id and shown.memory == c.get(remembered.id)  # show = get + quality + relations
        page = c.list()
        corrected = c.correct(remembered.id, "Deploys go out on Wednesdays")
        feedback = c.feedback(remembered.id, "useful", source="s1")
        recalled = c.recall("deploys wednesdays", trace=False)
        ingested = c.ingest([{"role": "user", "content": "We deploy on Wednesdays now."}], origin="chat")
        out = io_run(main, ["--db", str(db), "--now", NOW.isoformat(), "--json", "show", remembered.id])
        assert shown.to_dict()["memory"]["id"] == json.loads(out)["memory"]["id"]
    assert page.to_dict()["total"] == 1 and page.to_dict()["memories"][0]["id"] == remembered.id
    assert corrected.to_dict() == {"id": remembered.id, "event": corrected.event.id}
    assert feedback.to_dict()["applied"] is True
    assert recalled.to_dict()["results"][0]["id"] == remembered.id
    assert ingested.to_dict()["episodes"] == 1 and ingested.generated == ("id", "time")


def io_run(main, argv):
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) == 0
    return out.getvalue()


# -- ingest from Python values -----------------------------------------------------------------------


def test_ingest_accepts_dicts_in_the_jsonl_shape(cairn):
    turns = [{"id": "t1", "role": "user", "text": "The backup job runs on Sunday night.", "time": "2026-10-01T09:00:00Z"}]
    result = cairn.ingest(turns, origin="chat")
    assert result.episodes == 1 and result.generated == ()
    assert cairn.get(result.ids[0]).evidence.source_id == "t1"


def test_ingest_accepts_any_iterable_of_dicts(cairn):
    turns = ({"role": "user", "content": f"Backup number {n} went to the NAS."} for n in range(3))
    assert cairn.ingest(turns, origin="gen").episodes == 3


def test_ingest_accepts_the_chat_shape_and_states_what_it_generated(cairn):
    chat = [{"role": "user", "content": "Where do backups go?"}, {"role": "assistant", "content": "To the NAS."}]
    first = cairn.ingest(chat, origin="chat")
    assert first.episodes == 2 and first.generated == ("id", "time")
    episodes = [cairn.get(i) for i in first.ids]
    assert [e.content for e in episodes] == ["Where do backups go?", "To the NAS."]
    assert all(e.evidence.at == cairn.now() for e in episodes)
    again = cairn.ingest(chat, origin="chat")  # generated ids are stable: re-ingesting is idempotent
    assert (again.episodes, again.skipped) == (0, 2)


@pytest.mark.parametrize(
    ("turns", "match"),
    [
        ([{"role": "user"}], '"text" \\(or "content"\\)'),
        ([{"role": "user", "content": 42}], '"text" \\(or "content"\\)'),
        ([42], "42 is neither a line of text nor a turn object"),
        ([{"role": "user", "content": "hi", "time": "yesterday"}], "ISO-8601"),
        ([{"content": "no speaker"}], "role"),
        ([{"role": "user", "content": "x", "extra": object()}], "not JSON data"),
    ],
)
def test_ingest_refuses_what_it_cannot_read_with_invalid_input(cairn, db_path, turns, match):
    from testkit.db import db_fingerprint

    cairn.remember("Something to create the file", kind="fact")
    before = db_fingerprint(db_path)
    with pytest.raises(cairn_errors.InvalidInput, match=match):
        cairn.ingest(turns)
    assert db_fingerprint(db_path) == before


cairn_errors = cairn.errors
