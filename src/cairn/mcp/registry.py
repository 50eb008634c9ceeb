"""The tool registry: every MCP tool is one decorated function.

A tool module declares a tool like this::

    @tool("memory_show", READ_ONLY, wire.ShowDoc, "One stored memory by id: ...", title="Show one memory",
          id=string("memory id or unique prefix", required=True))
    def show(cairn: Cairn, a: Args) -> Reply:
        shown = cairn.show(a["id"])
        doc = wire.shown(shown.memory, shown.quality, shown.relations)
        return Reply(doc, render.show(doc))

and nothing else: the name, the hints, the input schema (from the keyword
:class:`~.schema.Param` s) and the output schema (from the wire ``TypedDict``) are all in
the decorator. :func:`call` validates the arguments, runs the function on the server's
one engine and turns any :class:`~cairn.errors.CairnError` into a tool error carrying the
CLI's one-line reason. This module does not import the ``mcp`` SDK: the server
(:mod:`.server`) turns these specs and replies into protocol objects.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..engine import Cairn
from ..errors import CairnError
from .schema import JSON, Param, check_arguments, input_schema, output_schema

log = logging.getLogger("cairn.mcp")

Args = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Hints:
    """The MCP tool annotations: what a client may assume about a tool's effect."""

    read_only: bool
    destructive: bool
    idempotent: bool


READ_ONLY = Hints(read_only=True, destructive=False, idempotent=True)
WRITES = Hints(read_only=False, destructive=False, idempotent=False)
DESTRUCTIVE = Hints(read_only=False, destructive=True, idempotent=False)


@dataclass(frozen=True, slots=True)
class Reply:
    """What a tool returns: ``doc`` (a :mod:`cairn.wire` document, the ``structuredContent``)
    and ``text`` (the labelled text a person or a model reads)."""

    doc: Mapping[str, Any]
    text: str
    error: bool = False


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    title: str
    description: str
    hints: Hints
    params: Mapping[str, Param]
    doc_type: Any  # the wire TypedDict of its structuredContent
    run: Callable[[Cairn, Args], Reply]

    @property
    def output(self) -> JSON:
        return output_schema(self.doc_type)

    @property
    def input_schema(self) -> JSON:
        return input_schema(self.params)


TOOLS: dict[str, ToolSpec] = {}


def tool(name: str, hints: Hints, output: Any, description: str, *, title: str,
         **params: Param) -> Callable[[Callable[[Cairn, Args], Reply]], Callable[[Cairn, Args], Reply]]:
    """Register the decorated function as the tool ``name`` (names are stable: clients and
    agents' instructions refer to them)."""

    def register(fn: Callable[[Cairn, Args], Reply]) -> Callable[[Cairn, Args], Reply]:
        if name in TOOLS:
            raise ValueError(f"tool {name!r} is registered twice")
        output_schema(output)  # refuse a non-document at registration, not at listing
        TOOLS[name] = ToolSpec(name, title, description, hints, params, output, fn)
        return fn

    return register


def tools() -> dict[str, ToolSpec]:
    """Every tool, in registration order (the tool modules are imported here, once)."""
    from . import tools_read, tools_write  # noqa: F401 - importing registers their tools

    return TOOLS


ERROR_MAX = 500  # characters of a reason; an echoed argument must not flood the client


def error_reply(message: str) -> Reply:
    """A tool error: the one-line reason, as ``cairn: REASON`` like the CLI's stderr."""
    line = " ".join(message.split())
    if len(line) > ERROR_MAX:
        line = line[: ERROR_MAX - 1] + "…"
    return Reply({}, f"cairn: {line}", error=True)


def call(cairn: Cairn, name: str, arguments: Mapping[str, Any] | None) -> Reply:
    """Run one tool call. Never raises: every failure is a tool error with one line, and
    a failed call has written nothing (each engine operation is one transaction)."""
    spec = tools().get(name)
    if spec is None:
        return error_reply(f"unknown tool {name!r} (tools: {', '.join(tools())})")
    log.info("%s called", name)
    try:
        return spec.run(cairn, check_arguments(spec.params, arguments))
    except CairnError as err:
        log.info("%s refused: %s", name, err)
        return error_reply(str(err))
    except Exception as err:  # noqa: BLE001 - a tool call must never put a traceback on the wire
        log.exception("%s failed", name)  # the traceback goes to the log (stderr), not to the client
        return error_reply(f"internal error: {type(err).__name__}: {err}")
