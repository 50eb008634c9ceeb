"""JSON Schemas for the MCP tools: inputs declared here, outputs read from :mod:`cairn.wire`.

Output schemas are not written by hand: :func:`output_schema` reads a wire ``TypedDict``
(the very declaration the CLI's ``--json`` documents are pinned to) and turns it into
JSON Schema, so a tool's ``outputSchema`` and its ``structuredContent`` cannot drift
from the CLI. Optional keys (``NotRequired``, ``total=False``) are left out of
``required``; objects stay open (``additionalProperties`` unset) because the wire
format may add optional keys.

Input schemas are built from the small helpers below (:func:`string`, :func:`integer`,
…), each a :class:`Param`. :func:`check_arguments` validates a call's arguments against
them and raises :class:`~cairn.errors.InvalidInput` with a one-line reason, in the same
``invalid FIELD: reason`` form the engine uses. Lengths are deliberately not checked
here, nor upper bounds: the engine checks them and its reason is the one the CLI prints.
"""

# No ``from __future__ import annotations``: the TypedDicts read here are inspected at run
# time, and NotRequired must stay visible on Python 3.11 (see cairn/wire.py).

import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, NotRequired, Required, Union, get_args, get_origin, is_typeddict

from ..errors import InvalidInput

JSON = dict[str, Any]

_SCALARS: dict[Any, JSON] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    type(None): {"type": "null"},
    Any: {},
}


def output_schema(doc_type: Any) -> JSON:
    """The JSON Schema of a wire document type (a ``TypedDict``), nested documents inlined."""
    schema = _schema(doc_type)
    if schema.get("type") != "object":
        raise TypeError(f"{doc_type!r} is not a document (a TypedDict)")
    return schema


def _schema(tp: Any) -> JSON:
    if tp in _SCALARS:
        return dict(_SCALARS[tp])
    origin = get_origin(tp)
    if origin in (NotRequired, Required):
        return _schema(get_args(tp)[0])
    if is_typeddict(tp):
        hints = typing.get_type_hints(tp)
        required = [k for k in hints if k in tp.__required_keys__]
        out: JSON = {"type": "object", "properties": {k: _schema(v) for k, v in hints.items()}}
        if required:
            out["required"] = required
        return out
    if origin in (Union, types.UnionType):
        options = [_schema(a) for a in get_args(tp)]
        return {"anyOf": options}
    if origin is list:
        (item,) = get_args(tp) or (Any,)
        return {"type": "array", "items": _schema(item)}
    if origin is dict:
        args = get_args(tp)
        return {"type": "object", "additionalProperties": _schema(args[1]) if args else {}}
    if tp is dict:
        return {"type": "object"}
    raise TypeError(f"no JSON Schema for {tp!r}")


# -- inputs ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Param:
    """One argument of a tool: its JSON Schema, whether it is required, its default."""

    schema: JSON
    required: bool = False
    default: Any = None


def string(description: str, *, required: bool = False, max_length: int | None = None,
           enum: type[Enum] | tuple[str, ...] | None = None, default: str | None = None) -> Param:
    schema: JSON = {"type": "string", "description": description}
    if max_length is not None:
        schema["maxLength"] = max_length
    if enum is not None:
        schema["enum"] = [str(getattr(v, "value", v)) for v in enum]
    if default is not None:
        schema["default"] = default
    return Param(schema, required, default)


def integer(description: str, *, default: int | None = None) -> Param:
    """A positive integer; upper bounds are the engine's to check (and to word)."""
    schema: JSON = {"type": "integer", "description": description, "minimum": 1}
    if default is not None:
        schema["default"] = default
    return Param(schema, False, default)


def boolean(description: str, *, default: bool = False) -> Param:
    return Param({"type": "boolean", "description": description, "default": default}, False, default)


def strings(description: str, *, max_items: int | None = None) -> Param:
    schema: JSON = {"type": "array", "items": {"type": "string"}, "description": description}
    if max_items is not None:
        schema["maxItems"] = max_items
    return Param(schema, False, [])


def document(description: str, *, required: bool = False) -> Param:
    """A JSON object passed whole (a plan document); its fields are the engine's to check."""
    return Param({"type": "object", "description": description}, required, None)


def input_schema(params: Mapping[str, Param]) -> JSON:
    schema: JSON = {
        "type": "object",
        "properties": {name: p.schema for name, p in params.items()},
        "additionalProperties": False,
    }
    required = [name for name, p in params.items() if p.required]
    if required:
        schema["required"] = required
    return schema


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "boolean": (bool,), "array": (list,), "number": (int, float),
    "object": (dict,),
}


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "an array",
            dict: "an object"}.get(type(value), type(value).__name__)


def _shown(value: Any, width: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def check_arguments(params: Mapping[str, Param], arguments: Mapping[str, Any] | None) -> dict[str, Any]:
    """The arguments with defaults filled in, or :class:`InvalidInput` naming the first
    problem (an unknown or missing argument, a wrong type, a value outside its set)."""
    given = dict(arguments or {})
    unknown = sorted(set(given) - set(params))
    if unknown:
        raise InvalidInput("arguments", f"unknown argument {unknown[0]!r} (accepted: {', '.join(params)})")
    out: dict[str, Any] = {}
    for name, p in params.items():
        if name not in given or given[name] is None:
            if p.required:
                raise InvalidInput(name, "required")
            out[name] = list(p.default) if isinstance(p.default, list) else p.default
            continue
        out[name] = _checked(name, p.schema, given[name])
    return out


def _checked(name: str, schema: JSON, value: Any) -> Any:
    kind = schema["type"]
    # bool is an int in Python, but not in JSON: true is not an integer.
    if not isinstance(value, _JSON_TYPES[kind]) or (kind in ("integer", "number") and isinstance(value, bool)):
        expected = {"string": "a string", "integer": "an integer", "boolean": "true or false",
                    "array": "an array of strings", "number": "a number",
                    "object": "a JSON object"}[kind]
        raise InvalidInput(name, f"expected {expected}, got {_type_name(value)} {_shown(value)}")
    if isinstance(value, list):
        for item in value:
            if not isinstance(item, str):
                raise InvalidInput(name, f"expected an array of strings, got an item {_shown(item)}")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            raise InvalidInput(name, f"at most {schema['maxItems']} items")
    if "enum" in schema and value not in schema["enum"]:
        raise InvalidInput(name, f"unknown {name} {_shown(value)} (one of: {', '.join(schema['enum'])})")
    if kind == "integer":
        if value < schema.get("minimum", value):
            raise InvalidInput(name, f"{value}; must be at least {schema['minimum']}")
    return value
