"""The tool registry and schemas in-process (no server): output schemas read from the wire
declarations, argument checking with its negative controls, errors that never raise, and
the lazy import that keeps the SDK out of every other command."""

from __future__ import annotations

import subprocess
import sys
from typing import NotRequired, TypedDict

import pytest

from cairn import Cairn, wire
from cairn.errors import InvalidInput
from cairn.mcp import registry
from cairn.mcp.registry import READ_ONLY, Reply, call, tool, tools
from cairn.mcp.schema import boolean, check_arguments, integer, output_schema, string, strings
from testkit import NOW

# -- output schemas come from the wire declarations ------------------------------------------


def test_output_schemas_follow_the_wire_declarations():
    remember = output_schema(wire.RememberDoc)
    assert remember["required"] == ["id", "status", "event"]  # deduplicated is NotRequired
    assert remember["properties"]["event"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    recall = output_schema(wire.RecallDoc)
    result = recall["properties"]["results"]["items"]
    assert "superseded_by" in result["properties"] and "superseded_by" not in result["required"]
    assert result["properties"]["evidence"]["required"] == ["basis", "method", "source_id", "at"]
    explain = output_schema(wire.ExplainDoc)
    factors = explain["properties"]["candidates"]["items"]["properties"]["factors"]
    assert "required" not in factors  # total=False: every factor is optional


def test_a_new_optional_wire_key_stays_optional():
    # The functional form: this module's string annotations would hide NotRequired.
    Doc = TypedDict("Doc", {"a": int, "b": NotRequired[list[str]], "c": dict[str, float]})  # noqa: UP013
    schema = output_schema(Doc)
    assert schema["required"] == ["a", "c"]
    assert schema["properties"]["b"] == {"type": "array", "items": {"type": "string"}}
    assert schema["properties"]["c"] == {"type": "object", "additionalProperties": {"type": "number"}}
    with pytest.raises(TypeError):
        output_schema(int)  # control: only documents have an output schema


# -- argument checking ------------------------------------------------------------------------

PARAMS = {
    "query": string("q", required=True),
    "limit": integer("n", default=3),
    "deep": boolean("d"),
    "tags": strings("t", max_items=2),
    "kind": string("k", enum=("fact", "preference")),
}


def test_good_arguments_get_their_defaults():
    assert check_arguments(PARAMS, {"query": "deploy"}) == {
        "query": "deploy", "limit": 3, "deep": False, "tags": [], "kind": None}
    assert check_arguments(PARAMS, {"query": "x", "limit": 7, "deep": True, "tags": ["a"], "kind": "fact"})["limit"] == 7


@pytest.mark.parametrize("arguments, reason", [
    ({}, "invalid query: required"),
    ({"query": None}, "invalid query: required"),
    ({"query": 3}, "invalid query: expected a string, got an integer 3"),
    ({"query": "x", "limit": "3"}, "invalid limit: expected an integer, got a string '3'"),
    ({"query": "x", "limit": 2.5}, "invalid limit: expected an integer"),
    ({"query": "x", "limit": False}, "invalid limit: expected an integer, got a boolean"),
    ({"query": "x", "limit": 0}, "invalid limit: 0; must be at least 1"),
    ({"query": "x", "deep": "yes"}, "invalid deep: expected true or false"),
    ({"query": "x", "tags": "a"}, "invalid tags: expected an array of strings"),
    ({"query": "x", "tags": ["a", 2]}, "invalid tags: expected an array of strings, got an item 2"),
    ({"query": "x", "tags": ["a", "b", "c"]}, "invalid tags: at most 2 items"),
    ({"query": "x", "kind": "rumour"}, "invalid kind: unknown kind 'rumour' (one of: fact, preference)"),
    ({"query": "x", "space": "other"}, "invalid arguments: unknown argument 'space'"),
])
def test_bad_arguments_are_refused_with_one_line(arguments, reason):
    with pytest.raises(InvalidInput) as err:
        check_arguments(PARAMS, arguments)
    assert str(err.value).startswith(reason)


def test_a_huge_value_is_not_echoed_back():
    with pytest.raises(InvalidInput) as err:
        check_arguments(PARAMS, {"query": "x" * 1_000_000, "limit": "y" * 1_000_000})
    assert len(str(err.value)) < 120


# -- calls never raise ---------------------------------------------------------------------------


@pytest.fixture
def broken_tool():
    @tool("memory_broken_probe", READ_ONLY, wire.EventRefDoc, "a probe that fails", title="probe",
          id=string("id", required=True))
    def broken(cairn: Cairn, a: registry.Args) -> Reply:
        raise RuntimeError("disk on fire\nsecond line")

    yield "memory_broken_probe"
    del registry.TOOLS["memory_broken_probe"]


def test_an_unexpected_exception_is_a_one_line_tool_error(broken_tool, db_path, caplog):
    with Cairn(db_path, now=NOW) as cairn:
        reply = call(cairn, broken_tool, {"id": "x"})
        assert reply.error and reply.text == "cairn: internal error: RuntimeError: disk on fire second line"
        assert "Traceback" not in reply.text
        assert any(r.exc_info for r in caplog.records)  # the traceback went to the log instead
        control = call(cairn, "memory_history", {})
        assert not control.error and control.doc == {"events": []}


def test_an_error_reason_stays_one_short_line():
    reply = registry.error_reply("invalid text:\n" + "x" * 10_000)
    assert reply.error and "\n" not in reply.text and len(reply.text) <= len("cairn: ") + registry.ERROR_MAX
    assert registry.error_reply("short reason").text == "cairn: short reason"  # control: untouched


def test_a_tool_name_is_registered_once(broken_tool):
    with pytest.raises(ValueError, match="registered twice"):
        tool("memory_broken_probe", READ_ONLY, wire.EventRefDoc, "again", title="again")(lambda c, a: Reply({}, ""))
    assert "memory_recall" in tools()


# -- lazy import ---------------------------------------------------------------------------------

PROBE = """
import sys
from cairn.cli import main
main(["--db", sys.argv[1], "remember", "The deploy target is the staging cluster", "--kind", "fact"])
code = main(["--db", sys.argv[1], "recall", "deploy target"])
print(code, "mcp" in sys.modules, "cairn.mcp" in sys.modules)
"""


def test_other_commands_do_not_import_the_sdk(tmp_path):
    db = str(tmp_path / "cairn.db")
    done = subprocess.run([sys.executable, "-c", PROBE, db], capture_output=True, text=True, timeout=120)
    assert done.stdout.split()[-3:] == ["0", "False", "False"], done.stderr
    # control: the server module does import it
    control = subprocess.run([sys.executable, "-c", "import sys, cairn.mcp.server; print('mcp' in sys.modules)"],
                             capture_output=True, text=True, timeout=120)
    assert control.stdout.strip() == "True"

