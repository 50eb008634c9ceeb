"""The JSON API of ``cairn ui``: every endpoint's status and wire keys (pinned against
:mod:`cairn.wire`), refusals that write nothing, authentication on every route, CSRF on
every write, stored markup returned inert, and the OpenAPI description read from the
same declarations."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from cairn import errors, wire
from cairn.mcp.schema import output_schema
from cairn.model import Status
from cairn.web import api
from foundation.test_wire import shape_errors
from testkit.db import db_fingerprint
from web.uikit import POLICIES, TOKEN, UI, Client

SCRIPT = "The deploy target is <script>alert('x')</script> staging"
TEA = "Alice prefers green tea over coffee"
PORT = "The staging database listens on port 5432"


def seed(ui: UI) -> dict[str, str]:
    def write(cairn) -> dict[str, str]:
        tea = cairn.remember(TEA, kind="preference", origin="home").memory.id
        port = cairn.remember(PORT, kind="fact", origin="acme", aliases=["staging-db"]).memory.id
        script = cairn.remember(SCRIPT, kind="fact", origin="acme").memory.id
        newer = cairn.remember("The staging database listens on port 5433", kind="fact", origin="acme").memory.id
        event = cairn.relate(newer, "supersedes", port).id
        return {"tea": tea, "port": port, "script": script, "newer": newer, "relate_event": event}

    return ui.engine(write)


def check(r, doc_type: Any, status: int = 200) -> dict:
    assert r.status == status, r.text
    assert r.headers["Content-Type"] == "application/json"
    doc = r.json
    assert shape_errors(doc, doc_type) == []
    return doc


# -- every endpoint -------------------------------------------------------------------------------


def test_reads_answer_their_wire_documents(ui: UI) -> None:
    ids = seed(ui)
    c = ui.login()
    listed = check(c.get("/api/records"), wire.ListDoc)
    assert listed["total"] == 4 and len(listed["memories"]) == 4
    shown = check(c.get(f"/api/records/{ids['port'][:8]}"), wire.ShowDoc)  # a unique prefix, as the CLI takes
    assert shown["memory"]["id"] == ids["port"] and shown["relations"][0]["role"] == "supersedes"
    # the very document the CLI's `show --json` and MCP's memory_show build, confidence included
    same = ui.engine(lambda cairn: (lambda s: wire.shown(s.memory, s.quality, s.relations, s.confidence))(
        cairn.show(ids["port"])))
    assert shown == json.loads(json.dumps(same)) and shown["confidence"]["grounds"]
    hist = check(c.get(f"/api/records/{ids['port']}/history?limit=5"), wire.HistoryDoc)
    assert [e["id"] for e in hist["events"]][0] == ids["relate_event"]
    check(c.get("/api/history?limit=3"), wire.HistoryDoc)
    assert len(c.get("/api/history?limit=3").json["events"]) == 3
    tl = check(c.get("/api/timeline?query=staging+database+port"), wire.TimelineDoc)
    assert sorted(s["id"] for s in tl["states"]) == sorted([ids["port"], ids["newer"]])
    assert check(c.get("/api/status"), wire.StatusDoc)["memories"] == 4
    assert check(c.get("/api/conflicted"), wire.ListDoc)["total"] == 0


def test_recall_search_and_explain(ui: UI) -> None:
    ids = seed(ui)
    c = ui.login()
    got = check(c.post("/api/recall", {"query": "what does Alice prefer to drink"}), wire.RecallDoc)
    assert got["results"][0]["id"] == ids["tea"] and TEA in got["digest"] and got["trace"]
    found = check(c.post("/api/search", {"query": "staging database port", "include_history": True}), wire.RecallDoc)
    assert ids["newer"] in [r["id"] for r in found["results"]]
    why = check(c.post("/api/explain", {"query": "what does Alice prefer to drink"}), wire.ExplainDoc)
    assert why["selected"] == [ids["tea"]]
    assert TEA not in json.dumps(why)  # explain carries ids and numbers, never a memory body


def test_writes_answer_their_wire_documents_and_undo_restores(ui: UI) -> None:
    ids = seed(ui)
    c = ui.login()
    fixed = check(c.post(f"/api/records/{ids['tea']}/correct", {"text": "Alice prefers black tea"}), wire.CorrectDoc)
    assert ui.engine(lambda cairn: cairn.get(ids["tea"]).content) == "Alice prefers black tea"
    check(c.post(f"/api/events/{fixed['event']}/undo"), wire.EventRefDoc)
    assert ui.engine(lambda cairn: cairn.get(ids["tea"]).content) == TEA
    check(c.post(f"/api/records/{ids['tea']}/pin"), wire.EventRefDoc)
    assert ui.engine(lambda cairn: cairn.get(ids["tea"]).pinned)
    check(c.post(f"/api/records/{ids['tea']}/unpin"), wire.EventRefDoc)
    assert not ui.engine(lambda cairn: cairn.get(ids["tea"]).pinned)
    fb = check(c.post(f"/api/records/{ids['script']}/feedback", {"verdict": "incorrect", "source": "msg-1"}), wire.FeedbackDoc)
    assert fb["applied"] and fb["quarantined"] == [ids["script"]]
    assert [m["id"] for m in c.get("/api/conflicted").json["memories"]] == [ids["script"]]
    rel = check(c.post("/api/relations", {"from_id": ids["newer"], "role": "qualifies", "to_id": ids["tea"]}),
                wire.RelateDoc)
    assert rel["relation"]["from"] == ids["newer"] and rel["relation"]["to"] == ids["tea"]
    check(c.post(f"/api/records/{ids['tea']}/forget"), wire.EventRefDoc)
    assert ui.engine(lambda cairn: cairn.get(ids["tea"]).status) is Status.FORGOTTEN
    check(c.post(f"/api/records/{ids['port']}/forget", {"purge": True}), wire.EventRefDoc)
    assert ui.engine(lambda cairn: cairn.get(ids["port"]).content) == ""


def test_every_route_is_exercised_above() -> None:
    """A new route must join the tests: this lists the routes the tests above call."""
    called = {("GET", "/api/records"), ("GET", "/api/records/{id}"), ("GET", "/api/records/{id}/history"),
              ("GET", "/api/history"), ("GET", "/api/timeline"), ("GET", "/api/status"), ("GET", "/api/conflicted"),
              ("POST", "/api/recall"), ("POST", "/api/search"), ("POST", "/api/explain"),
              ("POST", "/api/records/{id}/correct"), ("POST", "/api/events/{id}/undo"), ("POST", "/api/records/{id}/pin"),
              ("POST", "/api/records/{id}/unpin"), ("POST", "/api/records/{id}/feedback"), ("POST", "/api/relations"),
              ("POST", "/api/records/{id}/forget"),
              ("GET", "/api/maintenance/plan"), ("POST", "/api/maintenance/apply"),
              ("POST", "/api/retention/plan"), ("POST", "/api/retention/apply")}
    assert {(r.method, r.path) for r in api.ROUTES} == called


# -- filters -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("query", "expected"), [
    ("text=GREEN+tea", ["tea"]),  # any case
    ("text=staging-db", ["port"]),  # an alias matches
    ("origin=acme", ["port", "script", "newer"]),
    ("origin=acme&text=5433", ["newer"]),
    ("kind=preference", ["tea"]),
    ("text=no+such+words", []),  # negative control
    ("origin=ACME", []),  # origin is exact
])
def test_records_filters(ui: UI, query: str, expected: list[str]) -> None:
    ids = seed(ui)
    doc = check(ui.login().get(f"/api/records?{query}"), wire.ListDoc)
    assert sorted(m["id"] for m in doc["memories"]) == sorted(ids[k] for k in expected)  # one clock: order is by id
    assert doc["total"] == len(expected)


def test_records_named_by_id_come_in_the_order_given(ui: UI) -> None:
    ids = seed(ui)
    c = ui.login()
    named = f"{ids['script']},{ids['tea']},{'f' * 24},{ids['port']}"  # an unknown id is left out
    doc = check(c.get(f"/api/records?ids={named}"), wire.ListDoc)
    assert [m["id"] for m in doc["memories"]] == [ids["script"], ids["tea"], ids["port"]] and doc["total"] == 3
    only_acme = c.get(f"/api/records?ids={named}&origin=acme&kind=fact").json  # with the other filters
    assert [m["id"] for m in only_acme["memories"]] == [ids["script"], ids["port"]]
    assert c.get(f"/api/records?ids={ids['newer']}").json["memories"][0]["id"] == ids["newer"]  # the control
    too_many = ",".join(f"{n:024x}" for n in range(api.IDS_MAX + 1))
    r = c.get(f"/api/records?ids={too_many}")
    assert (r.status, r.json["error"]["code"]) == (400, "invalid_input")


def test_filtered_records_page(ui: UI) -> None:
    ids = seed(ui)
    c = ui.login()
    first = c.get("/api/records?origin=acme&per_page=2&page=1").json
    second = c.get("/api/records?origin=acme&per_page=2&page=2").json
    assert (second["page"], second["pages"], second["total"]) == (2, 2, 3)
    shown = [m["id"] for m in first["memories"] + second["memories"]]
    assert sorted(shown) == sorted([ids["port"], ids["script"], ids["newer"]])  # each once, none lost


# -- refusals write nothing ------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "path", "body", "status", "code"), [
    ("POST", "/api/records/{tea}/correct", {"text": "no"}, 400, "invalid_input"),  # too short for a claim
    ("POST", "/api/records/{tea}/correct", {}, 400, "invalid_input"),  # text required
    ("POST", "/api/records/{tea}/correct", {"text": "Alice drinks tea", "extra": 1}, 400, "invalid_input"),
    ("POST", "/api/records/zzzzzzzzzz/correct", {"text": "Alice drinks tea"}, 404, "not_found"),
    ("POST", "/api/records/{tea}/feedback", {"verdict": "great"}, 400, "invalid_input"),
    ("POST", "/api/relations", {"from_id": "{tea}", "role": "corrects", "to_id": "{tea}"}, 409, "relation_refused"),
    ("POST", "/api/relations", {"from_id": "{port}", "role": "supersedes", "to_id": "{newer}"}, 409, "relation_refused"),
    ("POST", "/api/events/{relate_event}/undo", {"reason": "x"}, 400, "invalid_input"),
    ("POST", "/api/recall", {"query": 5}, 400, "invalid_input"),
    ("POST", "/api/recall", {"query": "tea", "as_of": "yesterday-ish"}, 400, "invalid_input"),
    ("GET", "/api/records?kind=opinion", None, 400, "invalid_input"),
    ("GET", "/api/records?per_page=5000", None, 400, "invalid_input"),
    ("GET", "/api/records?page=two", None, 400, "invalid_input"),
    ("GET", "/api/records/zzzzzzzzzz", None, 404, "not_found"),
    ("GET", "/api/nothing", None, 404, "no_route"),
    # plans: refused before anything is written
    ("POST", "/api/maintenance/apply", {}, 400, "invalid_input"),  # plan required
    ("POST", "/api/maintenance/apply", {"plan": "[]"}, 400, "invalid_input"),  # a string is not a plan document
    ("POST", "/api/maintenance/apply", {"plan": {"kind": "cairn-retention-plan", "space": "default", "matches": []}},
     400, "invalid_input"),  # a plan of the other kind
    ("POST", "/api/maintenance/apply", {"plan": {"kind": "cairn-maintenance-plan", "space": "default",
                                                 "ops": [{"op": "delete_everything", "id": "{tea}"}]}}, 400, "invalid_input"),
    ("POST", "/api/maintenance/apply", {"plan": {"kind": "cairn-maintenance-plan", "space": "other", "ops": []}},
     409, "refused"),  # another space's plan
    ("POST", "/api/maintenance/apply", {"plan": {"kind": "cairn-maintenance-plan", "space": "default", "ops": []},
                                        "auto": "yes"}, 400, "invalid_input"),
    ("POST", "/api/retention/plan", {}, 400, "invalid_input"),  # policies required
    ("POST", "/api/retention/plan", {"policies": "not toml ["}, 400, "invalid_input"),
    ("POST", "/api/retention/plan", {"policies": "[[policy]]\nolder_than_days = 3\ncolour = 'red'\n"}, 400,
     "invalid_input"),
    ("POST", "/api/retention/apply", {"plan": {"kind": "cairn-retention-plan", "space": "other", "matches": []}},
     409, "refused"),
    ("POST", "/api/retention/apply", {"plan": {"kind": "cairn-retention-plan", "space": "default",
                                               "matches": [{"id": "{tea}"}]}}, 400, "invalid_input"),  # no revision
    ("GET", "/api/maintenance/apply", None, 405, "method_not_allowed"),
    ("DELETE", "/api/records/{tea}", None, 405, "method_not_allowed"),
])
def test_refusals_write_nothing(ui: UI, method: str, path: str, body: Any, status: int, code: str) -> None:
    ids = seed(ui)
    c = ui.login()
    fill = lambda text: re.sub(r"{(\w+)}", lambda m: ids[m.group(1)], text)  # noqa: E731
    before = db_fingerprint(ui.db)
    if method == "POST":
        r = c.post(fill(path), json.loads(fill(json.dumps(body))))
    else:
        r = c.request(method, fill(path), headers={"X-CSRF-Token": c.csrf or ""})
    assert r.status == status, r.text
    assert r.json["error"]["code"] == code and "\n" not in r.json["error"]["message"]
    assert db_fingerprint(ui.db) == before


# -- maintenance and retention ----------------------------------------------------------------------

OLD_STATE = "The migration project is in phase one"
OLD_DOUBT = "The migration freeze starts in March"


def seed_plans(ui: UI) -> dict[str, str]:
    """Records each plan has something to say about: a claim twice reinforced (a low-risk
    stability increase), one twice corrected (review ops and a contested mark), old project
    state and an old quarantined claim (one retention policy each), and a pinned one that
    every policy must leave alone."""
    def old(cairn) -> dict[str, str]:
        state = cairn.remember(OLD_STATE, kind="project_state", origin="a").memory.id
        pinned = cairn.remember("The migration project owner is Dana", kind="project_state", origin="a", pin=True)
        doubt = cairn.remember(OLD_DOUBT, kind="fact", origin="a").memory.id
        cairn.feedback(doubt, "incorrect", "msg-doubt")
        return {"state": state, "pinned": pinned.memory.id, "doubt": doubt}

    def now(cairn) -> dict[str, str]:
        up = cairn.remember("Releases are cut on Mondays", kind="fact").memory.id
        down = cairn.remember("The cache TTL is ten minutes", kind="fact").memory.id
        for _ in range(2):
            cairn.reinforce(up, "explicit_reinforcement")
            cairn.reinforce(down, "explicit_correction")
        return {"up": up, "down": down}

    return {**ui.earlier(70, old), **ui.engine(now)}


def test_maintenance_plan_then_apply_a_selection_then_undo(ui: UI) -> None:
    ids = seed_plans(ui)
    c = ui.login()
    before = db_fingerprint(ui.db)
    plan = check(c.get("/api/maintenance/plan"), wire.MaintenancePlanDoc)
    assert db_fingerprint(ui.db) == before  # a plan reads only
    by = {(o["id"], o["op"]): o for o in plan["ops"]}
    assert {(ids["up"], "increase_stability"), (ids["down"], "mark_contested_suggestion")} <= set(by)
    assert by[(ids["down"], "decrease_stability")]["reason"] and by[(ids["up"], "increase_stability")]["risk"] == "low"
    # a person keeps only the contested mark: one event, and only that op applied
    chosen = {**plan, "ops": [by[(ids["down"], "mark_contested_suggestion")]]}
    applied = check(c.post("/api/maintenance/apply", {"plan": chosen}), wire.PlanAppliedDoc)
    assert (applied["applied"], applied["skipped"]) == (1, 0) and applied["event"]
    assert ui.engine(lambda cairn: cairn.get(ids["down"]).status) is Status.CONFLICTED
    assert ui.engine(lambda cairn: cairn.history(limit=1)[0].id) == applied["event"]
    after = {(o["id"], o["op"]) for o in c.get("/api/maintenance/plan").json["ops"]}
    assert (ids["up"], "increase_stability") in after  # the control: what was not selected still waits
    check(c.post(f"/api/events/{applied['event']}/undo"), wire.EventRefDoc)
    assert ui.engine(lambda cairn: cairn.get(ids["down"]).status) is not Status.CONFLICTED


def test_maintenance_auto_applies_only_the_low_risk_ops(ui: UI) -> None:
    ids = seed_plans(ui)
    c = ui.login()
    plan = c.get("/api/maintenance/plan").json
    low = [o for o in plan["ops"] if o["risk"] == "low"]
    assert low and len(low) < len(plan["ops"])
    applied = check(c.post("/api/maintenance/apply", {"plan": plan, "auto": True}), wire.PlanAppliedDoc)
    assert (applied["applied"], applied["skipped"]) == (len(low), len(plan["ops"]) - len(low))
    assert ui.engine(lambda cairn: cairn.get(ids["down"]).status) is not Status.CONFLICTED  # never a contested mark
    after = {(o["id"], o["op"]) for o in c.get("/api/maintenance/plan").json["ops"]}
    assert (ids["up"], "increase_stability") not in after and (ids["down"], "decrease_stability") in after


def test_retention_plan_says_why_then_apply_retires_in_one_undoable_event(ui: UI) -> None:
    ids = seed_plans(ui)
    c = ui.login()
    before = db_fingerprint(ui.db)
    plan = check(c.post("/api/retention/plan", {"policies": POLICIES}), wire.RetentionPlanDoc)
    assert db_fingerprint(ui.db) == before  # planning writes nothing (a POST only to carry the text)
    assert plan["policies"] == ["stale project state", "old conflicted claims"]
    why = {m["id"]: (m["policy"], m["reason"]) for m in plan["matches"]}
    assert set(why) == {ids["state"], ids["doubt"]}  # not the pinned one, not the fresh ones
    assert why[ids["state"]][0] == "stale project state" and "70 days old" in why[ids["state"]][1]
    assert why[ids["doubt"]][0] == "old conflicted claims" and "conflicted" in why[ids["doubt"]][1]
    keep_doubt = {**plan, "matches": [m for m in plan["matches"] if m["id"] == ids["state"]]}
    applied = check(c.post("/api/retention/apply", {"plan": keep_doubt}), wire.PlanAppliedDoc)
    assert (applied["applied"], applied["skipped"]) == (1, 0)
    status = lambda key: ui.engine(lambda cairn: cairn.get(ids[key]).status)  # noqa: E731
    assert status("state") is Status.RETIRED and status("doubt") is Status.CONFLICTED  # the deselected one stays
    assert ui.engine(lambda cairn: cairn.get(ids["state"]).content) == OLD_STATE  # retired, not deleted
    check(c.post(f"/api/events/{applied['event']}/undo"), wire.EventRefDoc)
    assert status("state") is Status.PROVISIONAL


def test_a_retention_plan_applied_after_its_record_changed_skips_it_and_writes_nothing(ui: UI) -> None:
    ids = seed_plans(ui)
    c = ui.login()
    plan = c.post("/api/retention/plan", {"policies": POLICIES}).json
    c.post(f"/api/records/{ids['state']}/pin")
    c.post(f"/api/records/{ids['doubt']}/correct", {"text": "The migration freeze starts in April"})
    before = db_fingerprint(ui.db)
    applied = check(c.post("/api/retention/apply", {"plan": plan}), wire.PlanAppliedDoc)
    assert applied == {"applied": 0, "skipped": 2, "event": None}
    assert db_fingerprint(ui.db) == before


@pytest.mark.parametrize("path", ["/api/maintenance/apply", "/api/retention/apply"])
def test_applying_a_plan_needs_the_sessions_csrf_token(ui: UI, path: str) -> None:
    seed_plans(ui)
    c = ui.login()
    plan = (c.get("/api/maintenance/plan") if "maintenance" in path
            else c.post("/api/retention/plan", {"policies": POLICIES})).json
    before = db_fingerprint(ui.db)
    assert c.post(path, {"plan": plan}, csrf=False).status == 403
    r = c.request("POST", path, b"plan=x", {"Content-Type": "application/x-www-form-urlencoded",
                                            "X-CSRF-Token": c.csrf or ""})
    assert r.status == 415
    assert db_fingerprint(ui.db) == before
    assert c.post(path, {"plan": plan}).status == 200  # the control


def test_undo_refused_when_the_record_changed_since(ui: UI) -> None:
    ids = seed(ui)
    c = ui.login()
    first = c.post(f"/api/records/{ids['tea']}/correct", {"text": "Alice prefers black tea"}).json["event"]
    c.post(f"/api/records/{ids['tea']}/correct", {"text": "Alice prefers oolong tea"})
    before = db_fingerprint(ui.db)
    r = c.post(f"/api/events/{first}/undo")
    assert (r.status, r.json["error"]["code"]) == (409, "undo_refused")
    assert db_fingerprint(ui.db) == before


@pytest.mark.parametrize("raw", [b"{not json", b"[1, 2]", b"\xff\xfe"])
def test_a_body_that_is_not_a_json_object_is_refused(ui: UI, raw: bytes) -> None:
    ids = seed(ui)
    c = ui.login()
    before = db_fingerprint(ui.db)
    r = c.request("POST", f"/api/records/{ids['tea']}/correct", raw,
                  {"Content-Type": "application/json", "X-CSRF-Token": c.csrf or ""})
    assert (r.status, r.json["error"]["code"]) == (400, "bad_request")
    assert db_fingerprint(ui.db) == before


def test_an_oversized_body_is_refused_before_it_is_read(ui: UI) -> None:
    c = ui.login()
    r = c.post("/api/recall", {"query": "x" * 70_000})
    assert (r.status, r.json["error"]["code"]) == (413, "too_large")


@pytest.mark.parametrize(("err", "code", "status"), [
    (errors.InvalidInput("kind", "x"), "invalid_input", 400),
    (errors.NotFound("memory", "abc"), "not_found", 404),
    (errors.AmbiguousId("abc", ["abc1", "abc2"]), "ambiguous_id", 409),
    (errors.UndoRefused("e1", "changed"), "undo_refused", 409),
    (errors.RelationRefused("cycle", "x"), "relation_refused", 409),
    (errors.StoreUnavailable("/db", "locked"), "store_unavailable", 503),
    (errors.SchemaTooNew(9, 1), "schema_too_new", 500),
    (errors.NoSuchDatabase("/nowhere/cairn.db"), "no_such_database", 500),
])
def test_error_codes_follow_the_error_classes(err: errors.CairnError, code: str, status: int) -> None:
    assert (api.error_code(err), api.error_status(err)) == (code, status)


# -- authentication and CSRF -------------------------------------------------------------------------


def _concrete(path: str) -> str:
    return path.replace("{id}", "0123456789abcdef")


@pytest.mark.parametrize("route", api.ROUTES, ids=lambda r: f"{r.method} {r.path}")
def test_every_route_needs_authentication(ui: UI, route: api.Route) -> None:
    seed(ui)
    before = db_fingerprint(ui.db)
    anonymous = ui.client()
    r = anonymous.request(route.method, _concrete(route.path), b"{}", {"Content-Type": "application/json"})
    assert (r.status, r.json["error"]["code"]) == (401, "unauthorized")
    forged = Client(ui.port, cookie="cairn_ui=not-a-session")
    assert forged.request(route.method, _concrete(route.path), b"{}", {"Content-Type": "application/json"}).status == 401
    assert db_fingerprint(ui.db) == before
    # the control: the same request with a session gets past authentication
    assert ui.login().request(route.method, _concrete(route.path), b"{}",
                              {"Content-Type": "application/json"}).status != 401


@pytest.mark.parametrize("path", ["/", "/conflicted", "/recall", "/history", "/records/0123456789", "/api/openapi.json"])
def test_pages_need_authentication(ui: UI, path: str) -> None:
    r = ui.client().get(path)
    assert r.status == 401
    assert ui.login().get(path).status in (200, 404)


def test_the_login_token_works_once(ui: UI) -> None:
    token = ui.server.gate.login_token
    first = ui.client().get(f"/login?token={token}")
    assert first.status == 303 and first.headers["Location"] == "/"
    cookie = first.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert ui.client().get(f"/login?token={token}").status == 401  # spent
    assert ui.client().get("/login?token=wrong-token").status == 401


def test_writes_need_the_sessions_csrf_token(ui: UI) -> None:
    ids = seed(ui)
    c = ui.login()
    before = db_fingerprint(ui.db)
    path = f"/api/records/{ids['tea']}/correct"
    assert c.post(path, {"text": "Alice drinks water"}, csrf=False).status == 403
    assert c.post(path, {"text": "Alice drinks water"}, headers={"X-CSRF-Token": "guess"}).status == 403
    # a form post (what another site could send) is refused even with the token
    r = c.request("POST", path, b"text=Alice+drinks+water",
                  {"Content-Type": "application/x-www-form-urlencoded", "X-CSRF-Token": c.csrf or ""})
    assert r.status == 415
    assert db_fingerprint(ui.db) == before
    assert c.post(path, {"text": "Alice drinks water"}).status == 200  # the control


@pytest.mark.parametrize(("headers", "status"), [
    ({"Host": "evil.example:80"}, 403),  # DNS rebinding: a hostile name resolving to 127.0.0.1
    ({"Origin": "http://evil.example"}, 403),
    ({"Origin": "http://localhost:{port}"}, 200),
    ({"Host": "localhost:{port}"}, 200),
])
def test_host_and_origin_must_be_this_server(ui: UI, headers: dict[str, str], status: int) -> None:
    c = ui.login()
    sent = {k: v.format(port=ui.port) for k, v in headers.items()}
    assert c.get("/api/status", **sent).status == status


def test_a_configured_token_serves_scripts_as_bearer(ui_token: UI) -> None:
    ids = seed(ui_token)
    script = Client(ui_token.port, headers={"Authorization": f"Bearer {TOKEN}"})
    assert script.get("/api/status").status == 200
    assert script.post(f"/api/records/{ids['tea']}/pin").status == 200  # no CSRF: no ambient credential
    wrong = Client(ui_token.port, headers={"Authorization": "Bearer " + "x" * len(TOKEN)})
    assert wrong.get("/api/status").status == 401
    for _ in range(2):  # the configured token logs in as often as needed
        assert ui_token.client().get(f"/login?token={TOKEN}").status == 303


def test_without_a_configured_token_no_bearer_is_accepted(ui: UI) -> None:
    c = Client(ui.port, headers={"Authorization": "Bearer "})
    assert c.get("/api/status").status == 401


def test_the_api_reaches_only_the_servers_space(ui: UI) -> None:
    from cairn import Cairn
    from testkit import NOW

    def elsewhere(_) -> str:
        with Cairn(ui.db, space="other", now=NOW) as other:
            return other.remember("The other space keeps its own secrets", kind="fact").memory.id

    hidden = ui.engine(elsewhere)
    ids = seed(ui)
    c = ui.login()
    assert c.get(f"/api/records/{ids['tea']}").status == 200  # the control: this space's record
    assert (c.get(f"/api/records/{hidden}").status, c.get(f"/api/records/{hidden}").json["error"]["code"]) == (404, "not_found")
    assert hidden not in c.get("/api/records?per_page=100").text
    assert c.get("/api/records?space=other").json["error"]["code"] == "invalid_input"  # no route takes a space
    before = db_fingerprint(ui.db)
    assert c.post(f"/api/records/{hidden}/forget").status == 404
    assert db_fingerprint(ui.db) == before


# -- stored markup ----------------------------------------------------------------------------------


def test_a_stored_script_is_returned_escaped(ui: UI) -> None:
    ids = seed(ui)
    c = ui.login()
    r = c.get(f"/api/records/{ids['script']}")
    assert b"<script>" not in r.body and b"\\u003cscript\\u003e" in r.body
    assert r.json["memory"]["content"] == SCRIPT  # the text itself is intact
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert "script-src 'self'" in r.headers["Content-Security-Policy"]
    page = c.get(f"/records/{ids['script']}").text
    assert "<script>alert" not in page and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    listing = c.get("/?text=deploy").text
    assert "<script>alert" not in listing and "&lt;script&gt;" in listing


def test_a_purged_record_shows_nothing_of_its_content(ui: UI) -> None:
    ids = seed(ui)
    c = ui.login()
    assert TEA in c.get(f"/records/{ids['tea']}").text  # the control
    c.post(f"/api/records/{ids['tea']}/forget", {"purge": True})
    page = c.get(f"/records/{ids['tea']}").text
    assert "purged" in page and "green tea" not in page
    assert "green tea" not in c.get("/?status=forgotten").text
    assert c.get(f"/api/records/{ids['tea']}").json["memory"]["content"] == ""
    # nor anywhere else a page or an endpoint could show it
    for path in ("/history", f"/api/records/{ids['tea']}/history", "/api/history?limit=100", "/review",
                 "/api/timeline?query=alice+coffee", "/api/records?status=forgotten"):
        assert "green tea" not in c.get(path).text, path
    for path in ("/api/search", "/api/recall"):
        assert "green tea" not in c.post(path, {"query": "Alice coffee", "include_history": True}).text, path


# -- OpenAPI ----------------------------------------------------------------------------------------


def test_openapi_is_generated_from_the_routes_and_the_wire_types(ui: UI) -> None:
    doc = ui.login().get("/api/openapi.json").json
    assert doc["openapi"].startswith("3.1")
    for r in api.ROUTES:
        op = doc["paths"][r.path][r.method.lower()]
        assert op["responses"]["200"]["content"]["application/json"]["schema"] == output_schema(r.doc_type)
        declared = set(r.params)
        if r.method == "GET":
            assert {p["name"] for p in op["parameters"] if p["in"] == "query"} == declared
        else:
            assert set(op["requestBody"]["content"]["application/json"]["schema"]["properties"]) == declared
        assert {p["name"] for p in op["parameters"] if p["in"] == "path"} == set(r.path_params)
