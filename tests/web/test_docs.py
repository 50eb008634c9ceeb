"""docs/ui.md, the README and ``make demo`` say what ``cairn ui`` is: every API route and
every page is documented, the screenshots they show exist, and the demo prints how to
open its memories in the browser."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from cairn.web import api, pages

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "ui.md").read_text(encoding="utf-8")
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("route", api.ROUTES, ids=lambda r: f"{r.method} {r.path}")
def test_every_route_is_in_the_api_table(route: api.Route) -> None:
    assert f"`{route.method} {route.path}`" in DOC


def test_every_page_of_the_navigation_is_in_the_pages_table() -> None:
    tabs = re.findall(r'<a href="(/[a-z]*)"[^>]*>(\w+)</a>', pages.layout("t", "", ""))
    assert len(tabs) == 6  # Records, Conflicted, Recall, Review, Retention, History
    for href, label in tabs:
        assert f"| **{label}** (`{href}`)" in DOC


@pytest.mark.parametrize("path", ["docs/ui.md", "README.md"])
def test_the_screenshots_shown_exist(path: str) -> None:
    text = (ROOT / path).read_text(encoding="utf-8")
    images = re.findall(r"!\[[^\]]+\]\(([^)]+\.png)\)", text)
    assert images, f"{path} shows no screenshot of cairn ui"
    for image in images:
        assert (ROOT / path).parent.joinpath(image).read_bytes().startswith(PNG), image


def test_make_demo_says_how_to_open_the_ui(tmp_path: Path) -> None:
    db = tmp_path / "cairn.db"
    script = 'step() { printf "== %s\\n" "$*"; }; source scripts/demo.d/90-ui.sh'
    out = subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=30,
                         env={**os.environ, "CAIRN_DB": str(db)}, check=True).stdout
    assert f".venv/bin/cairn --db {db} ui" in out and "login?token=" in out
