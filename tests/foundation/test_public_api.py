"""The public Python API: what ``import cairn`` offers, and that each of it is documented
and typed. docs/api.md is run as a doctest, so its worked session stays true."""

from __future__ import annotations

import doctest
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
        hints = typing.get_type_hints(function)
        assert "return" in hints, name
        if hints["return"] in (dict, typing.Any) or typing.get_origin(hints["return"]) is dict:
            loose.append(name)
    assert loose == []


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
