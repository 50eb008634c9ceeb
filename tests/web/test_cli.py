"""``cairn ui`` on the command line: it prints a login URL that works once, listens on
loopback only unless a token is configured, and refuses bad options with one line and
nothing written."""

from __future__ import annotations

import http.client
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from testkit.db import db_fingerprint
from web.uikit import POLICIES, TOKEN


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CAIRN_UI_TOKEN", "CAIRN_DB", "CAIRN_SPACE")}
    return {**env, **extra}


def _get(url: str, **headers: str) -> http.client.HTTPResponse:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=30)
    conn.request("GET", parts.path + ("?" + parts.query if parts.query else ""), headers=headers)
    return conn.getresponse()


@pytest.mark.slow
def test_it_prints_a_login_url_that_works_once(db_path: Path, tmp_path: Path) -> None:
    from cairn import Cairn

    Cairn(db_path).close()  # an existing store: `cairn ui` does not create one
    policies = tmp_path / "policies.toml"
    policies.write_text(POLICIES, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "cairn", "--db", str(db_path), "ui", "--port", "0",
                             "--retention", str(policies)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("cairn ui: open this URL to log in (it works once): http://127.0.0.1:")
        url = line.split()[-1]
        first = _get(url)
        assert first.status == 303 and first.getheader("Set-Cookie", "").startswith("cairn_ui=")
        assert _get(url).status == 401  # spent
        base = url.split("/login")[0]
        assert _get(base + "/api/status").status == 401  # no session
        cookie = first.getheader("Set-Cookie", "").split(";")[0]
        retention = _get(base + "/retention", Cookie=cookie, Host=urlsplit(base).netloc)
        assert retention.status == 200 and "stale project state: 0 match(es)" in retention.read().decode()
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize(("args", "env", "message"), [
    (["--host", "0.0.0.0"], {}, "refusing to serve on the non-loopback address 0.0.0.0 without a token"),
    (["--host", "192.0.2.7"], {}, "without a token: set CAIRN_UI_TOKEN"),
    (["--port", "70000"], {}, "invalid --port: 70000 is outside 0-65535"),
    ([], {"CAIRN_UI_TOKEN": "short"}, "invalid CAIRN_UI_TOKEN: shorter than 16 characters"),
])
def test_refusals_are_one_line_and_touch_nothing(db_path: Path, args: list[str], env: dict[str, str],
                                                 message: str) -> None:
    before = db_fingerprint(db_path)
    result = subprocess.run([sys.executable, "-m", "cairn", "--db", str(db_path), "ui", *args],
                            capture_output=True, text=True, env=_env(**env), timeout=60)
    assert result.returncode == 1
    assert message in result.stderr and result.stderr.count("\n") == 1
    assert result.stdout == ""
    assert db_fingerprint(db_path) == before == "absent"  # the database was not even created


def test_a_missing_database_is_refused_not_served_empty(tmp_path: Path) -> None:
    missing = tmp_path / "mistyped.db"
    result = subprocess.run([sys.executable, "-m", "cairn", "--db", str(missing), "ui", "--port", "0"],
                            capture_output=True, text=True, env=_env(), timeout=60)
    assert result.returncode == 1 and "no such database" in result.stderr
    assert not missing.exists()


def test_a_configured_token_allows_another_address(monkeypatch: pytest.MonkeyPatch) -> None:
    from cairn.errors import Refused
    from cairn.web.auth import check_address, configured_token

    monkeypatch.setenv("CAIRN_UI_TOKEN", TOKEN)
    check_address("0.0.0.0", configured_token())  # allowed: a token guards it
    monkeypatch.delenv("CAIRN_UI_TOKEN")
    with pytest.raises(Refused):
        check_address("0.0.0.0", configured_token())
    check_address("127.0.0.1", None)  # loopback needs no configured token


@pytest.mark.parametrize(("policies", "message"), [
    (None, "invalid --retention: cannot read"),  # no such file
    ("not toml [", "invalid --retention: {path}: not TOML"),
    ("[[policy]]\nolder_than_days = 30\ncolour = 'red'\n", "unknown field(s) colour"),
])
def test_retention_policies_are_checked_at_start(db_path: Path, tmp_path: Path, policies: str | None,
                                                  message: str) -> None:
    from cairn import Cairn

    Cairn(db_path).close()
    path = tmp_path / "policies.toml"
    if policies is not None:
        path.write_text(policies, encoding="utf-8")
    before = db_fingerprint(db_path)
    result = subprocess.run([sys.executable, "-m", "cairn", "--db", str(db_path), "ui", "--port", "0",
                             "--retention", str(path)], capture_output=True, text=True, env=_env(), timeout=60)
    assert result.returncode == 1
    assert message.format(path=path) in result.stderr and result.stderr.count("\n") == 1
    assert result.stdout == "" and db_fingerprint(db_path) == before
