"""``cairn ui`` in a real browser: Debian's Chromium, headless, driven by Playwright (the
pip package's driver only; the browser is the system's ``/usr/bin/chromium``, never one
Playwright downloads).

One walk through the page as a person would take it: log in with the printed token,
search, open a record, correct it, undo the correction, resolve a conflicted record, see
a stored ``<img src=x onerror=alert(1)>`` as text, ask the recall box, review a
maintenance recommendation and apply it then undo it, and plan a retention policy, apply
it and undo it. Screenshots of each step are saved
in the test's tmp folder (``pytest --basetemp DIR`` keeps them where you want).

Skipped, with the reason, when Playwright or Chromium is absent (``make test`` installs
both when the machine allows).
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from cairn.model import Status
from web.uikit import UI

CHROMIUM = "/usr/bin/chromium"
# Flags known to work here: no sandbox as root, and no background connections, which a
# closed network refuses many at a time.
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
TEA = "Alice prefers green tea over coffee"
FIXED = "Alice prefers black tea, no sugar"
XSS = "The banner markup is <img src=x onerror=alert(1)> on the landing page"
DOUBTFUL = "The release train leaves every second Tuesday"
STALE = "The on-call rotation changes on Mondays"
REWORDED = "The on-call rotation changes on Thursdays"
WRONG = "The office closes at noon on Fridays"
PRAISED = "Releases are cut on Mondays"
DISPUTED = "The cache TTL is ten minutes"
OLD_STATE = "The migration project is in phase one"
POLICY = """[[policy]]
name = "stale project state"
kind = "project_state"
older_than_days = 30
"""

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("playwright") is None,
                       reason="playwright is not installed (pip install 'cairn-memory[web]'; make test installs it)"),
    pytest.mark.skipif(shutil.which(CHROMIUM) is None,
                       reason=f"no Chromium at {CHROMIUM} (apt-get install -y chromium; make test installs it as root)"),
]


def test_a_person_curates_memories_in_the_browser(ui: UI, tmp_path: Path) -> None:
    from playwright.sync_api import Dialog, expect, sync_playwright

    def seed(cairn) -> dict[str, str]:
        ids = {"tea": cairn.remember(TEA, kind="preference", origin="home").memory.id,
               "xss": cairn.remember(XSS, kind="fact", origin="web").memory.id,
               "doubtful": cairn.remember(DOUBTFUL, kind="fact", origin="work").memory.id,
               "stale": cairn.remember(STALE, kind="fact", origin="work").memory.id,
               "wrong": cairn.remember(WRONG, kind="fact", origin="work").memory.id}
        for name in ("doubtful", "stale", "wrong"):  # quarantined: they wait in the conflicted queue
            cairn.feedback(ids[name], "incorrect", f"msg-{name}")
        ids["praised"] = cairn.remember(PRAISED, kind="fact", origin="work").memory.id
        ids["disputed"] = cairn.remember(DISPUTED, kind="fact", origin="work").memory.id
        for _ in range(2):  # maintenance recommendations: a stability increase, and review ops
            cairn.reinforce(ids["praised"], "explicit_reinforcement")
            cairn.reinforce(ids["disputed"], "explicit_correction")
        return ids

    ids = ui.engine(seed)
    ids["old"] = ui.earlier(40, lambda cairn: cairn.remember(OLD_STATE, kind="project_state", origin="work").memory.id)
    status = lambda key: ui.engine(lambda c: c.get(ids[key]).status)  # noqa: E731
    shots = tmp_path / "screenshots"
    shots.mkdir()
    dialogs: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=CHROMIUM, headless=True, args=FLAGS,
            viewport={"width": 1280, "height": 800})
        try:
            page = browser.new_page()

            def on_dialog(dialog: Dialog) -> None:  # an alert() from stored markup, or a confirm()
                dialogs.append(dialog.message)
                dialog.dismiss()

            page.on("dialog", on_dialog)

            # log in with the one-time URL: the token leaves the address bar
            page.goto(ui.server.login_url)
            assert page.url.endswith("/") and "token" not in page.url
            expect(page.locator("h1")).to_have_text("Records")
            page.screenshot(path=shots / "1-records.png")

            # search, with the keyboard: "/" jumps to the search box
            page.keyboard.press("/")
            expect(page.locator('input[name="text"]')).to_be_focused()
            page.keyboard.type("green tea")
            page.keyboard.press("Enter")
            rows = page.locator("tbody tr")
            expect(rows).to_have_count(1)
            expect(rows.locator("td.text")).to_have_text(TEA)
            page.screenshot(path=shots / "2-search.png")

            # open the record, correct it
            rows.locator("a").first.click()
            expect(page.locator("#content")).to_have_text(TEA)
            page.fill("#correct-text", FIXED)
            page.get_by_role("button", name="Save correction").click()
            expect(page.locator("#content")).to_have_text(FIXED)
            expect(page.locator("#message")).to_contain_text("Corrected in event")
            assert ui.engine(lambda c: c.get(ids["tea"]).content) == FIXED
            page.screenshot(path=shots / "3-corrected.png", full_page=True)

            # undo the correction: the newest event in the record's history
            page.locator("table.history button[data-action=undo]").first.click()
            expect(page.locator("#content")).to_have_text(TEA)
            expect(page.locator("#message")).to_contain_text("Undone by event")
            assert ui.engine(lambda c: c.get(ids["tea"]).content) == TEA
            page.screenshot(path=shots / "4-undone.png", full_page=True)

            # resolve the conflicted records: keep one (its text becomes the person's own), replace
            # one's text, dismiss one
            page.get_by_role("link", name="Conflicted").click()
            queue = page.locator("tbody tr")
            expect(queue).to_have_count(3)
            page.screenshot(path=shots / "5-conflicted.png")
            page.locator("tr", has_text=DOUBTFUL).get_by_role("button", name="Keep").click()
            expect(queue).to_have_count(2)
            row = page.locator("tr", has_text=STALE)
            row.get_by_role("textbox").fill(REWORDED)
            row.get_by_role("button", name="Replace").click()
            expect(queue).to_have_count(1)
            page.locator("tr", has_text=WRONG).get_by_role("button", name="Dismiss").click()
            expect(page.locator("main")).to_contain_text("No records.")
            after = ui.engine(lambda c: {k: c.get(ids[k]) for k in ("doubtful", "stale", "wrong")})
            assert after["doubtful"].content == DOUBTFUL and after["doubtful"].status is not Status.CONFLICTED
            assert after["stale"].content == REWORDED and after["stale"].status is not Status.CONFLICTED
            assert after["wrong"].status is Status.FORGOTTEN

            # stored markup is shown as text: no element made of it, no script run
            page.goto(f"{ui.server.base_url}/?text=onerror")
            cell = page.locator("tbody td.text")
            expect(cell).to_have_text(XSS)
            assert cell.locator("img").count() == 0
            page.goto(f"{ui.server.base_url}/records/{ids['xss']}")
            expect(page.locator("#content")).to_have_text(XSS)
            assert page.locator("main img").count() == 0

            # the recall box: the digest beside the explain numbers
            page.goto(f"{ui.server.base_url}/recall")
            page.fill("#recall-query", "what does Alice like to drink")
            page.keyboard.press("Enter")
            expect(page.locator("#digest")).to_contain_text(TEA)
            expect(page.locator("#explain tbody tr").first).to_contain_text(ids["tea"][:10])
            page.screenshot(path=shots / "6-recall.png")

            # review the maintenance recommendations: tick one with the keyboard, apply it (one
            # event), then undo it from the message line
            page.get_by_role("link", name="Review").click()
            expect(page.locator("h1")).to_have_text("Review maintenance")
            contested = page.locator(f'tr[data-id="{ids["disputed"]}"][data-op="mark_contested_suggestion"]')
            expect(contested).to_contain_text("2+ explicit corrections")  # the rule
            expect(contested).to_contain_text("2 explicit corrections")  # the grounds
            box = contested.get_by_role("checkbox")
            box.focus()
            page.keyboard.press("Space")
            expect(box).to_be_checked()
            page.screenshot(path=shots / "7-review.png", full_page=True)
            page.get_by_role("button", name="Apply selected").click()
            expect(page.locator("#message")).to_contain_text("Applied 1 operation(s)")
            assert status("disputed") is Status.CONFLICTED and status("praised") is not Status.CONFLICTED
            page.screenshot(path=shots / "8-review-applied.png")
            page.locator("#message").get_by_role("button", name="Undo").click()
            expect(page.locator("#message")).to_contain_text("Undone by event")
            assert status("disputed") is not Status.CONFLICTED

            # retention: type a policy, plan it, read why each record matches, retire, undo
            page.get_by_role("link", name="Retention").click()
            page.fill("#policies", POLICY)
            page.get_by_role("button", name="Plan").click()
            policy = page.locator("section.policy")
            expect(policy.locator("h2")).to_have_text("stale project state: 1 match(es)")
            expect(policy.locator("tbody tr")).to_contain_text(OLD_STATE)
            expect(policy.locator("tbody tr")).to_contain_text("40 days old (> 30)")
            page.screenshot(path=shots / "9-retention.png", full_page=True)
            page.get_by_role("button", name="Retire all 1").click()
            expect(page.locator("#message")).to_contain_text("Retired 1 record(s)")
            expect(policy.locator("h2")).to_have_text("stale project state: 0 match(es)")
            assert status("old") is Status.RETIRED
            page.locator("#message").get_by_role("button", name="Undo").click()
            expect(page.locator("#message")).to_contain_text("Undone by event")
            expect(policy.locator("h2")).to_have_text("stale project state: 1 match(es)")
            assert status("old") is Status.PROVISIONAL
            page.screenshot(path=shots / "10-retention-undone.png", full_page=True)
        finally:
            browser.close()
    assert dialogs == []  # no alert() ran, and nothing asked for confirmation
    assert sorted(f.name for f in shots.iterdir()) == sorted([
        "1-records.png", "2-search.png", "3-corrected.png", "4-undone.png", "5-conflicted.png", "6-recall.png",
        "7-review.png", "8-review-applied.png", "9-retention.png", "10-retention-undone.png"])
