"""The error tree drawn in ``cairn.errors``' docstring is the hierarchy the code defines."""

from __future__ import annotations

import inspect
import re

import cairn.errors as errors

_NODE = re.compile(r"^ {4}[ │├└─]*(?P<name>[A-Z]\w+)\s")  # the indented block: drawing, then a class name


def _drawn_tree() -> dict[str, str | None]:
    """Each class drawn in the docstring, mapped to the class drawn above it (by column)."""
    parents: dict[str, str | None] = {}
    stack: list[tuple[int, str]] = []
    for line in (errors.__doc__ or "").splitlines():
        match = _NODE.match(line)
        if match is None:
            continue
        column = match.start("name")
        while stack and stack[-1][0] >= column:
            stack.pop()
        parents[match["name"]] = stack[-1][1] if stack else None
        stack.append((column, match["name"]))
    return parents


def _defined() -> dict[str, str | None]:
    classes = {n: c for n, c in vars(errors).items() if inspect.isclass(c) and issubclass(c, errors.CairnError)}
    return {n: (None if c is errors.CairnError else c.__bases__[0].__name__) for n, c in classes.items()}


def test_every_error_class_is_drawn_under_its_base():
    assert _drawn_tree() == _defined()


def test_the_benchmark_data_error_is_an_invalid_input_that_names_the_file(tmp_path):
    err = errors.BenchDataMissing(tmp_path / "locomo10.json", "give --data PATH")
    assert isinstance(err, errors.InvalidInput)
    assert str(err) == f"LoCoMo data not found at {tmp_path / 'locomo10.json'}: give --data PATH"
    assert (err.field, err.reason, err.path) == ("data", "give --data PATH", tmp_path / "locomo10.json")


def test_the_plugin_error_names_the_kind_and_the_plugin_and_is_the_one_plugins_raises():
    from cairn import plugins

    err = errors.PluginError(plugins.EMBEDDER_GROUP, "short", "returned a vector of length 1")
    assert str(err) == "embedder plug-in 'short': returned a vector of length 1"
    assert (err.group, err.name, err.reason) == ("cairn.embedders", "short", "returned a vector of length 1")
    assert plugins.PluginError is errors.PluginError  # the old import path keeps working
    assert not isinstance(err, errors.InvalidInput | errors.StoreError)  # its own branch of the tree
