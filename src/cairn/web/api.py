"""The JSON API of ``cairn ui``: one :class:`Route` per endpoint, each answering a document
of :mod:`cairn.wire` (the same documents as the CLI's ``--json`` and the MCP tools).

A route declares its method, its path (``{id}`` segments), its arguments as
:class:`~cairn.mcp.schema.Param` s (query string for ``GET``, a JSON object body for
``POST``) and its wire ``TypedDict``. :func:`openapi` reads those declarations, so the
OpenAPI description cannot drift from what the routes accept and return. Arguments are
checked by :func:`~cairn.mcp.schema.check_arguments` before the engine runs; every
engine call is one transaction, so a refused request has written nothing.

Errors are ``{"error": {"code": CODE, "message": ONE LINE}}``, as the CLI's ``--json``
errors: the code is the error's stable ``error_code`` (``invalid_input``, ``not_found``,
``ambiguous_id``, ``refused``, ``undo_refused``, ``relation_refused``, ...), the message
the line the CLI prints after ``cairn:``; the HTTP status follows the class
(:data:`STATUS`). Codes of the HTTP layer itself: ``unauthorized``, ``forbidden``,
``no_route``, ``method_not_allowed``, ``bad_request``, ``too_large``, ``internal``.

Writes act as the person at the page: actor ``manual``, like the CLI.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from .. import errors, wire
from ..engine import Cairn
from ..engine.validate import check_int
from ..mcp.schema import JSON, Param, boolean, check_arguments, document, input_schema, integer, output_schema, string
from ..model import Kind, Role, Status, Verdict

Args = dict[str, Any]

# The HTTP status of each error class; a subclass answers as its nearest listed base.
STATUS: dict[type[errors.CairnError], int] = {
    errors.InvalidInput: 400,
    errors.PluginError: 400,
    errors.NotFound: 404,
    errors.AmbiguousId: 409,
    errors.Refused: 409,
    errors.StoreUnavailable: 503,
    errors.CairnError: 500,
}
MESSAGE_MAX = 500  # characters; an echoed argument must not flood the page
LIST_SCAN = 1000  # records read per step when filtering by origin or text
IDS_MAX = 1000  # records named in one list request (a plan page names at most 300)


class HttpError(Exception):
    """A refusal of the HTTP layer (auth, routing, body), before any engine call."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


def error_code(err: errors.CairnError) -> str:
    """The error's stable code, the one the CLI prints in its ``--json`` errors."""
    return err.error_code


def error_status(err: errors.CairnError) -> int:
    for cls in type(err).__mro__:
        if cls in STATUS:
            return STATUS[cls]
    return 500


def error_doc(code: str, message: str) -> dict[str, Any]:
    line = " ".join(message.split())
    if len(line) > MESSAGE_MAX:
        line = line[: MESSAGE_MAX - 1] + "…"
    return {"error": {"code": code, "message": line}}


def dumps(doc: Mapping[str, Any]) -> bytes:
    """JSON with ``<``, ``>`` and ``&`` escaped (``\\u003c``): stored text stays inert even
    if a browser were to read the body as HTML. ``json.loads`` gives the text back."""
    text = json.dumps(doc, ensure_ascii=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e").encode()


@dataclass(frozen=True, slots=True)
class Route:
    method: str  # GET (reads) or POST (writes, and the recall family, which writes a trace)
    path: str  # /api/records/{id}
    summary: str
    doc_type: Any  # the wire TypedDict answered
    run: Callable[[Cairn, Args], Mapping[str, Any]]
    params: Mapping[str, Param] = field(default_factory=dict)
    status: int = 200

    @property
    def path_params(self) -> list[str]:
        return re.findall(r"{(\w+)}", self.path)

    @property
    def regex(self) -> re.Pattern[str]:
        return re.compile("^" + re.sub(r"{(\w+)}", r"(?P<\1>[^/]+)", self.path) + "$")


ROUTES: list[Route] = []


def route(method: str, path: str, doc_type: Any, summary: str, **params: Param):
    def register(fn: Callable[[Cairn, Args], Mapping[str, Any]]) -> Callable[[Cairn, Args], Mapping[str, Any]]:
        output_schema(doc_type)  # refuse a non-document at import, not at the first call
        ROUTES.append(Route(method, path, summary, doc_type, fn, params))
        return fn

    return register


def match(method: str, path: str) -> tuple[Route, dict[str, str]]:
    """The route for ``method path`` and its path arguments, or :class:`HttpError`."""
    allowed = []
    for r in ROUTES:
        found = r.regex.match(path)
        if found:
            if r.method == method:
                return r, {k: unquote(v) for k, v in found.groupdict().items()}
            allowed.append(r.method)
    if allowed:
        raise HttpError(405, "method_not_allowed", f"{path} accepts {', '.join(allowed)}, not {method}")
    raise HttpError(404, "no_route", f"no API endpoint {path}")


def query_arguments(r: Route, query: Mapping[str, list[str]]) -> Args:
    """Query-string values typed by the route's declarations (``limit=5`` → 5)."""
    out: Args = {}
    for name, values in query.items():
        p = r.params.get(name)
        value: Any = values[-1]
        if p is not None and p.schema["type"] == "integer":
            try:
                value = int(value)
            except ValueError:
                raise errors.InvalidInput(name, f"expected an integer, got {value[:40]!r}") from None
        elif p is not None and p.schema["type"] == "boolean":
            if value not in ("true", "false"):
                raise errors.InvalidInput(name, f"expected true or false, got {value[:40]!r}")
            value = value == "true"
        out[name] = value
    return out


def call(cairn: Cairn, r: Route, path_args: Mapping[str, str], arguments: Mapping[str, Any]) -> Mapping[str, Any]:
    """Check the arguments and run the route; a CairnError propagates (nothing written)."""
    clash = set(path_args) & set(arguments)
    if clash:
        raise errors.InvalidInput(sorted(clash)[0], "given in the path; not accepted in the query or body too")
    return r.run(cairn, {**check_arguments(r.params, arguments), **path_args})


# -- records -------------------------------------------------------------------------------

ID = "memory id, or a unique prefix of at least 6 characters"


def _matches(m: Any, origin: str | None, text: str | None) -> bool:
    if origin is not None and m.origin != origin:
        return False
    if text:
        needle = text.casefold()
        return needle in m.content.casefold() or any(needle in a.casefold() for a in m.aliases)
    return True


@route("GET", "/api/records", wire.ListDoc, "One page of this space's records, oldest first (or in the order of ids), filtered",
       kind=string("only records of this kind", enum=Kind),
       status=string("only records in this status", enum=Status),
       origin=string("only records of this origin (exact)"),
       text=string("only records whose text or an alias contains this (any case)", max_length=200),
       ids=string(f"only these records, in this order: ids separated by commas (at most {IDS_MAX}); unknown ones are"
                  " left out"),
       page=integer("page number (default 1)", default=1),
       per_page=integer("records per page (default 20, at most 1000)", default=20))
def records(cairn: Cairn, a: Args) -> Mapping[str, Any]:
    if a["ids"] is not None:
        return _page(_by_ids(cairn, a), a)
    if a["origin"] is None and not a["text"]:
        got = cairn.list(status=a["status"], kind=a["kind"], page=a["page"], per_page=a["per_page"])
        return wire.memory_page(got.memories, page=got.page, pages=got.pages, total=got.total)
    cairn.list(status=a["status"], kind=a["kind"], page=1, per_page=a["per_page"])  # the engine checks the values
    found = []
    page, pages = 1, 1
    while page <= pages:  # the engine lists by status and kind; origin and text are read here
        got = cairn.list(status=a["status"], kind=a["kind"], page=page, per_page=LIST_SCAN)
        found += [m for m in got.memories if _matches(m, a["origin"], a["text"])]
        page, pages = page + 1, got.pages
    return _page(found, a)


def _by_ids(cairn: Cairn, a: Args) -> list[Any]:
    """The records ``ids`` names that pass the other filters: what a plan page reads in one call."""
    check_int(a["per_page"], "per_page", 1, 1000)  # as the engine's list does (kind and status: by their enums)
    wanted = list(dict.fromkeys(i.strip() for i in a["ids"].split(",") if i.strip()))
    if len(wanted) > IDS_MAX:
        raise errors.InvalidInput("ids", f"{len(wanted)} ids; at most {IDS_MAX}")
    found = []
    for i in wanted:
        try:
            m = cairn.get(i)
        except errors.NotFound:
            continue
        if (a["kind"] in (None, m.kind) and a["status"] in (None, m.status)
                and _matches(m, a["origin"], a["text"])):
            found.append(m)
    return found


def _page(found: list[Any], a: Args) -> Mapping[str, Any]:
    per = a["per_page"]
    start = (a["page"] - 1) * per
    return wire.memory_page(found[start:start + per], page=a["page"], pages=max(1, -(-len(found) // per)),
                            total=len(found))


@route("GET", "/api/records/{id}", wire.ShowDoc,
       "One record: every field with its evidence, its quality, its confidence, its relations")
def show(cairn: Cairn, a: Args) -> Mapping[str, Any]:
    got = cairn.show(a["id"])
    return wire.shown(got.memory, got.quality, got.relations, got.confidence)


@route("GET", "/api/records/{id}/history", wire.HistoryDoc, "Events touching one record, newest first",
       limit=integer("at most this many events (default 20)", default=20))
def record_history(cairn: Cairn, a: Args) -> Mapping[str, Any]:
    return wire.history(cairn.history(a["id"], limit=a["limit"]))


@route("GET", "/api/history", wire.HistoryDoc, "Events of the whole space, newest first",
       limit=integer("at most this many events (default 20)", default=20))
def space_history(cairn: Cairn, a: Args) -> Mapping[str, Any]:
    return wire.history(cairn.history(None, limit=a["limit"]))


@route("GET", "/api/timeline", wire.TimelineDoc, "The successive states of one subject, oldest first",
       query=string("words naming the subject", required=True, max_length=800),
       limit=integer("at most this many states (default 50, at most 200)", default=50))
def timeline(cairn: Cairn, a: Args) -> Mapping[str, Any]:
    return cairn.timeline(a["query"], limit=a["limit"]).to_dict()


@route("GET", "/api/conflicted", wire.ListDoc, "The conflicted (quarantined) records waiting for a person",
       page=integer("page number (default 1)", default=1),
       per_page=integer("records per page (default 20, at most 1000)", default=20))
def conflicted(cairn: Cairn, a: Args) -> Mapping[str, Any]:
    got = cairn.list(status=Status.CONFLICTED, page=a["page"], per_page=a["per_page"])
    return wire.memory_page(got.memories, page=got.page, pages=got.pages, total=got.total)


@route("GET", "/api/status", wire.StatusDoc, "The store's integrity report: schema, counts, malformed rows")
def status(cairn: Cairn, a: Args) -> Mapping[str, Any]:
    return cairn.status()


# -- recall ----------------------------------------------------------------------------------


def _query_params(*, limit: int, budget: int) -> dict[str, Param]:
    return {
        "query": string("what to recall, in words", required=True, max_length=800),
        "limit": integer(f"at most this many results (default {limit})", default=limit),
        "budget": integer(f"the digest's size in bytes (default {budget})", default=budget),
        "include_history": boolean("include records replaced or no longer valid"),
        "as_of": string("as the world was at this time (ISO-8601)"),
        "known_at": string("as Cairn knew it at this time (ISO-8601)"),
    }


def _options(a: Args) -> dict[str, Any]:
    return {k: a[k] for k in ("limit", "budget", "include_history", "as_of", "known_at")}


@route("POST", "/api/recall", wire.RecallDoc, "The digest an agent would get for a query (writes a recall trace)",
       **_query_params(limit=3, budget=2048), include_dormant=boolean("include dormant records"))
def recall(cairn: Cairn, a: Args) -> Mapping[str, Any]:
    return cairn.recall(a["query"], include_dormant=a["include_dormant"], **_options(a)).to_dict()


@route("POST", "/api/search", wire.RecallDoc, "Explicit lookup: dormant records included (writes a recall trace)",
       **_query_params(limit=10, budget=8192))
def search(cairn: Cairn, a: Args) -> Mapping[str, Any]:
    return cairn.search(a["query"], **_options(a)).to_dict()


@route("POST", "/api/explain", wire.ExplainDoc, "Every stage's numbers for a query; ids and numbers only, writes nothing",
       **_query_params(limit=3, budget=2048), include_dormant=boolean("include dormant records"))
def explain(cairn: Cairn, a: Args) -> Mapping[str, Any]:
    return cairn.explain(a["query"], include_dormant=a["include_dormant"], **_options(a))


# -- writes ---------------------------------------------------------------------------------


@route("POST", "/api/records/{id}/correct", wire.CorrectDoc,
       "Replace a record's text with a person's literal correction (undoable)",
       text=string("the corrected claim", required=True, max_length=800))
def correct(cairn: Cairn, a: Args) -> Mapping[str, Any]:
    got = cairn.correct(a["id"], a["text"])
    return wire.corrected(got.memory, got.event)


@route("POST", "/api/records/{id}/feedback", wire.FeedbackDoc, "A verdict on a record (incorrect quarantines it)",
       verdict=string("the verdict", required=True, enum=Verdict),
       source=string("the receipt: one verdict per source and record (default: a new one)"))
def feedback(cairn: Cairn, a: Args) -> Mapping[str, Any]:
    got = cairn.feedback(a["id"], a["verdict"], a["source"])
    return wire.feedback(applied=got.applied, reason=got.reason, event=got.event, quarantined=got.quarantined)


@route("POST", "/api/records/{id}/forget", wire.EventRefDoc,
       "Forget a record (undoable), or with purge erase its content everywhere (not undoable)",
       purge=boolean("erase the content from the record, the index and the history"))
def forget(cairn: Cairn, a: Args) -> Mapping[str, Any]:
    return wire.event_ref(cairn.forget(a["id"], purge=a["purge"]))


@route("POST", "/api/records/{id}/pin", wire.EventRefDoc, "Pin a record: never dormant, protected from weaker claims")
def pin(cairn: Cairn, a: Args) -> Mapping[str, Any]:
    return wire.event_ref(cairn.pin(a["id"]))


@route("POST", "/api/records/{id}/unpin", wire.EventRefDoc, "Return a pinned record to the durable layer")
def unpin(cairn: Cairn, a: Args) -> Mapping[str, Any]:
    return wire.event_ref(cairn.unpin(a["id"]))


@route("POST", "/api/relations", wire.RelateDoc, "Declare how a newer record relates to an older one",
       from_id=string("the newer record (id or unique prefix)", required=True),
       role=string("the relation", required=True, enum=Role),
       to_id=string("the older record (id or unique prefix)", required=True),
       reason=string("why, in a few words", max_length=200))
def relate(cairn: Cairn, a: Args) -> Mapping[str, Any]:
    return wire.related(cairn.relate(a["from_id"], a["role"], a["to_id"], reason=a["reason"]))


@route("POST", "/api/events/{id}/undo", wire.EventRefDoc,
       "Undo an event with a compensating one; refused when a record it touched changed since")
def undo(cairn: Cairn, a: Args) -> Mapping[str, Any]:
    return wire.event_ref(cairn.undo(a["id"]))


# -- maintenance and retention --------------------------------------------------------------
# Both as the CLI has them: a read that returns a plan document, and an apply that takes a
# plan (as returned, or with the operations a person did not want removed) and writes one
# undoable event. A plan for another space, of another kind, or unreadable is refused
# before anything is written.


@route("GET", "/api/maintenance/plan", wire.MaintenancePlanDoc,
       "The maintenance recommendations for this space's active claims, as a plan to review (reads only)")
def maintenance_plan(cairn: Cairn, a: Args) -> Mapping[str, Any]:
    return cairn.maintenance_plan()


@route("POST", "/api/maintenance/apply", wire.PlanAppliedDoc,
       "Apply a maintenance plan as one undoable event: all its operations, or with auto only the low-risk ones",
       plan=document("the plan GET /api/maintenance/plan answered, less the operations you do not want", required=True),
       auto=boolean("apply only the low-risk operations (confidence decay, stability increases), as `maintain --auto`"))
def apply_maintenance(cairn: Cairn, a: Args) -> Mapping[str, Any]:
    return cairn.apply_maintenance(a["plan"], auto=a["auto"]).to_dict()


@route("POST", "/api/retention/plan", wire.RetentionPlanDoc,
       "What each retention policy matches and why (reads only; a POST to carry the policy text)",
       policies=string("the policies as TOML [[policy]] tables, as `cairn retention plan` reads them", required=True))
def retention_plan(cairn: Cairn, a: Args) -> Mapping[str, Any]:
    return cairn.retention_plan(a["policies"])


@route("POST", "/api/retention/apply", wire.PlanAppliedDoc,
       "Retire the records of a retention plan as one undoable event (never deletes; changed records are skipped)",
       plan=document("the plan POST /api/retention/plan answered, less the matches you want to keep", required=True))
def apply_retention(cairn: Cairn, a: Args) -> Mapping[str, Any]:
    return cairn.apply_retention(a["plan"]).to_dict()


# -- OpenAPI ---------------------------------------------------------------------------------


def _error_schema() -> JSON:
    return {"type": "object", "required": ["error"], "properties": {"error": {
        "type": "object", "required": ["code", "message"],
        "properties": {"code": {"type": "string"}, "message": {"type": "string"}}}}}


def openapi(version: str = "") -> JSON:
    """The OpenAPI 3.1 description: arguments from the routes, answers from the wire TypedDicts."""
    paths: JSON = {}
    for r in ROUTES:
        op: JSON = {
            "summary": r.summary,
            "operationId": r.run.__name__,
            "parameters": [{"name": n, "in": "path", "required": True, "schema": {"type": "string", "description": ID}}
                           for n in r.path_params],
            "responses": {
                str(r.status): {"description": r.doc_type.__name__,
                                "content": {"application/json": {"schema": output_schema(r.doc_type)}}},
                "default": {"description": "an error", "content": {"application/json": {"schema": _error_schema()}}},
            },
        }
        if r.method == "GET":
            op["parameters"] += [{"name": n, "in": "query", "required": p.required, "schema": p.schema}
                                 for n, p in r.params.items()]
        else:
            op["requestBody"] = {"required": any(p.required for p in r.params.values()),
                                 "content": {"application/json": {"schema": input_schema(r.params)}}}
        paths.setdefault(r.path, {})[r.method.lower()] = op
    return {
        "openapi": "3.1.0",
        "info": {"title": "Cairn UI API", "version": version or "0",
                 "description": "The JSON API of `cairn ui`. Answers are the documents of cairn.wire (the CLI's --json)."
                                " Authenticate with the session cookie (writes need the X-CSRF-Token header) or with"
                                " `Authorization: Bearer $CAIRN_UI_TOKEN`."},
        "components": {"securitySchemes": {
            "session": {"type": "apiKey", "in": "cookie", "name": "cairn_ui"},
            "bearer": {"type": "http", "scheme": "bearer"}}},
        "security": [{"session": []}, {"bearer": []}],
        "paths": paths,
    }
