"""The server-rendered pages of ``cairn ui``: what each shows, read through the API's own
routes (the plan pages carry the very plan they show), stored markup shown as text, and
the session's end."""

from __future__ import annotations

import html
import json
from urllib.parse import urlencode

import pytest

from cairn.engine.maintaining import OP_NAMES
from cairn.web import pages
from testkit.db import db_fingerprint
from web.uikit import UI

TEA = "Alice prefers green tea over coffee"
OLD = "The staging database listens on port 5432"
NEW = "The staging database listens on port 5433"


def seed(ui: UI) -> dict[str, str]:
    def write(cairn) -> dict[str, str]:
        tea = cairn.remember(TEA, kind="preference", origin="home").memory.id
        old = cairn.remember(OLD, kind="fact", origin="acme").memory.id
        new = cairn.remember(NEW, kind="fact", origin="acme", relates=[("supersedes", old)]).memory.id
        return {"tea": tea, "old": old, "new": new}

    return ui.engine(write)


def test_the_records_page_searches_and_filters(ui: UI) -> None:
    ids = seed(ui)
    c = ui.login()
    everything = c.get("/").text
    assert all(ids[k] in everything for k in ids)
    found = c.get("/?text=green").text
    assert ids["tea"] in found and ids["old"] not in found
    acme = c.get("/?origin=acme&kind=fact").text
    assert ids["old"] in acme and ids["new"] in acme and ids["tea"] not in acme
    assert 'value="acme"' in acme and '<option value="fact" selected>' in acme  # the filters stay filled in


def test_a_record_page_reads_its_relations_from_its_side(ui: UI) -> None:
    ids = seed(ui)
    c = ui.login()
    old_page = c.get(f"/records/{ids['old']}").text
    assert f'{ids["new"][:10]}</a> <strong>supersedes</strong> <em>this record</em>' in old_page
    new_page = c.get(f"/records/{ids['new']}").text
    assert f'<em>this record</em> <strong>supersedes</strong> <a href="/records/{ids["old"]}">' in new_page
    assert "<li>none</li>" in c.get(f"/records/{ids['tea']}").text  # the control: no relation


def test_the_conflicted_queue_lists_only_quarantined_records(ui: UI) -> None:
    ids = seed(ui)
    c = ui.login()
    assert "No records." in c.get("/conflicted").text
    ui.engine(lambda cairn: cairn.feedback(ids["tea"], "incorrect", "msg-1"))
    queue = c.get("/conflicted").text
    assert ids["tea"] in queue and ids["old"] not in queue
    assert 'data-action="keep"' in queue and 'data-action="dismiss"' in queue


def test_the_history_page_offers_undo_for_each_event(ui: UI) -> None:
    seed(ui)
    page = ui.login().get("/history").text
    events = ui.engine(lambda cairn: cairn.history(None, limit=100))
    assert len(events) == 3
    assert all(f'data-event="{e.id}"' in page for e in events)


def test_an_unknown_page_or_record_is_a_404_page(ui: UI) -> None:
    c = ui.login()
    for path in ("/nothing-here", "/records/zzzzzzzzzz"):
        r = c.get(path)
        assert r.status == 404 and r.headers["Content-Type"].startswith("text/html")
    assert c.get("/").status == 200  # the control


def test_logging_out_ends_the_session(ui: UI) -> None:
    c = ui.login()
    assert c.request("POST", "/logout", b"").status == 403  # without the CSRF token
    assert c.get("/").status == 200
    r = c.request("POST", "/logout", b"", {"X-CSRF-Token": c.csrf or ""})
    assert r.status == 303 and "Max-Age=0" in r.headers["Set-Cookie"]
    assert c.get("/").status == 401


def test_a_record_page_shows_its_confidence_and_its_subjects_timeline(ui: UI) -> None:
    ids = seed(ui)
    c = ui.login()
    old_page = c.get(f"/records/{ids['old']}").text
    assert "<h2>Confidence</h2>" in old_page and "every record starts here" in old_page  # its grounds
    timeline = old_page.split("<h2>Timeline</h2>")[1].split("<h2>History</h2>")[0]
    # what replaced what, with each state's validity: the newer port replaced this record
    assert "<em>this record</em>" in timeline and f'<a href="/records/{ids["new"]}">' in timeline
    assert "5433" in timeline and "→ open" in timeline
    alone = c.get(f"/records/{ids['tea']}").text.split("<h2>Timeline</h2>")[1]
    assert alone.startswith("<p class=muted>Nothing replaced this record")  # the control: no chain


# -- review (maintenance) and retention ------------------------------------------------------------

MARKUP = "The cache TTL is <b>ten</b> minutes"


def seed_review(ui: UI) -> dict[str, str]:
    def write(cairn) -> dict[str, str]:
        up = cairn.remember("Releases are cut on Mondays", kind="fact").memory.id
        down = cairn.remember(MARKUP, kind="fact").memory.id
        for _ in range(2):
            cairn.reinforce(up, "explicit_reinforcement")
            cairn.reinforce(down, "explicit_correction")
        return {"up": up, "down": down, "quiet": cairn.remember(TEA, kind="preference").memory.id}

    return ui.engine(write)


def test_every_maintenance_op_has_its_rule_in_words() -> None:
    assert set(pages.RULES) == OP_NAMES


def test_the_review_page_lists_each_recommendation_with_its_rule_and_grounds(ui: UI) -> None:
    ids = seed_review(ui)
    c = ui.login()
    before = db_fingerprint(ui.db)
    page = c.get("/review").text
    assert db_fingerprint(ui.db) == before
    plan = c.get("/api/maintenance/plan").json
    rows = page.split("<tbody>")[1].split("</tbody>")[0].split("<tr ")[1:]
    assert len(rows) == len(plan["ops"]) == 4
    for n, (row, op) in enumerate(zip(rows, plan["ops"], strict=True)):
        assert f'data-op="{op["op"]}"' in row and f'value="{n}"' in row  # the checkbox names the plan's op
        assert html.escape(pages.RULES[op["op"]]) in row and html.escape(op["reason"]) in row and op["risk"] in row
    assert ids["quiet"] not in page  # the control: a record with nothing to recommend is not listed
    assert "<b>ten</b>" not in page and "&lt;b&gt;ten&lt;/b&gt;" in page  # stored markup shown as text
    carried = json.loads(html.unescape(page.split('data-plan="')[1].split('"')[0]))
    assert carried == plan  # the page applies the plan it shows


def test_the_review_page_says_when_there_is_nothing_to_review(ui: UI) -> None:
    seed(ui)
    page = ui.login().get("/review").text
    assert "No recommendations." in page and "plan-form" not in page


def test_the_retention_page_plans_the_declared_policies_with_their_reasons(ui_policies: UI) -> None:
    ui = ui_policies

    def old(cairn) -> dict[str, str]:
        state = cairn.remember("The migration project is in phase <i>one</i>", kind="project_state").memory.id
        pinned = cairn.remember("The migration project owner is Dana", kind="project_state", pin=True).memory.id
        return {"state": state, "pinned": pinned}

    ids = {**ui.earlier(40, old), **seed(ui)}
    c = ui.login()
    before = db_fingerprint(ui.db)
    page = c.get("/retention").text
    assert db_fingerprint(ui.db) == before  # planning writes nothing
    assert "stale project state" in page and "&lt;i&gt;one&lt;/i&gt;" in page and "<i>one" not in page
    sections = page.split('<section class="policy">')[1:]
    assert len(sections) == 2
    assert "stale project state: 1 match(es)" in sections[0] and ids["state"] in sections[0]
    assert "40 days old (&gt; 30)" in sections[0]  # why it matches
    assert "old conflicted claims: 0 match(es)" in sections[1] and "No records match." in sections[1]
    assert ids["pinned"] not in page and ids["tea"] not in page  # outside the policy: not listed
    # another policy typed into the page replaces the declared ones for that plan
    other = c.get("/retention?" + urlencode({"policies": "[[policy]]\nname = 'any old'\nolder_than_days = 10\n"})).text
    assert "any old: 1 match(es)" in other and "stale project state:" not in other


@pytest.mark.parametrize(("policies", "reason"), [
    ("not toml [", "invalid policies: not TOML"),
    ("[[policy]]\nname = 'x'\n", "invalid policies: policy 'x': older_than_days must be a number"),
])
def test_a_bad_policy_on_the_retention_page_says_why_and_keeps_the_text(ui: UI, policies: str, reason: str) -> None:
    seed(ui)
    r = ui.login().get("/retention?" + urlencode({"policies": policies}))
    assert r.status == 200
    assert '<p role="alert" class="error">' + html.escape(reason) in r.text
    assert html.escape(policies) in r.text and "plan-form" not in r.text


def test_the_retention_page_without_policies_offers_the_form_only(ui: UI) -> None:
    seed(ui)
    page = ui.login().get("/retention").text
    assert '<textarea id="policies"' in page and "plan-form" not in page and "role=\"alert\"" not in page
