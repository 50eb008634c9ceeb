"""The server-rendered pages of ``cairn ui``: what each shows, read through the API's own
routes, and the session's end."""

from __future__ import annotations

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
