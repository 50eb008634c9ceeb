"""``cairn mcp --http`` on a loopback port: the bearer token (from the environment or a
generated 0600 file), 401 touching nothing, Host/Origin checks, the size limit, and the
refusal of a non-loopback bind without a token. Only 127.0.0.1 is ever bound."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from cairn import Cairn
from cairn.errors import InvalidInput, Refused
from cairn.mcp.http import MAX_REQUEST_BYTES, load_token, parse_address, token_path
from testkit import NOW
from testkit.db import db_fingerprint

pytestmark = pytest.mark.slow

TOKEN = "http-test-token-0123456789abcdef"
REMEMBER = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "memory_remember", "arguments": {"content": "Intruders were here today", "kind": "fact"}}}
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "probe", "version": "0"}}}
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def post(url: str, body: object, **headers: str) -> httpx2.Response:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx2.post(url, content=data, headers={**HEADERS, **headers}, timeout=30)


async def remember_over_http(url: str, token: str, content: str) -> dict:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with http, Client(streamable_http_client(url, http_client=http), read_timeout_seconds=60) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        result = await client.call_tool("memory_remember", {"content": content, "kind": "fact"})
        assert "memory_recall" in listed and not result.is_error
        return result.structured_content


def seed(db: Path) -> None:
    with Cairn(db, now=NOW) as cairn:
        cairn.remember("The staging database runs on port 5433", kind="fact")


def test_only_the_right_bearer_token_gets_in(http_server, db_path):
    seed(db_path)
    with http_server({"CAIRN_MCP_TOKEN": TOKEN}) as url:
        before = db_fingerprint(db_path)
        for headers in ({}, {"Authorization": "Bearer wrong-token-0123456789"}, {"Authorization": TOKEN},
                        {"Authorization": f"Basic {TOKEN}"}):
            for body in (INITIALIZE, REMEMBER):
                response = post(url, body, **headers)
                assert response.status_code == 401, (headers, response.text)
                assert response.headers["www-authenticate"].startswith("Bearer")
        assert db_fingerprint(db_path) == before  # 401 touched nothing
        doc = anyio.run(remember_over_http, url, TOKEN, "The release train leaves on Thursdays")
    with Cairn(db_path, now=NOW) as cairn:
        assert cairn.get(doc["id"]).content == "The release train leaves on Thursdays"
        assert cairn.list().total == 2


def test_host_origin_and_size_are_checked_after_the_token(http_server, db_path):
    seed(db_path)
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with http_server({"CAIRN_MCP_TOKEN": TOKEN}) as url:
        before = db_fingerprint(db_path)
        assert post(url, INITIALIZE, Host="evil.example:80", **auth).status_code == 421
        assert post(url, INITIALIZE, Origin="http://evil.example", **auth).status_code == 403
        too_big = json.dumps({**INITIALIZE, "pad": "x" * MAX_REQUEST_BYTES}).encode()
        assert post(url, too_big, **auth).status_code == 413
        # controls: the same request from a loopback origin, and of ordinary size, is served
        assert post(url, INITIALIZE, Origin="http://127.0.0.1:3000", **auth).status_code == 200
        assert post(url, INITIALIZE, **auth).status_code == 200
        assert db_fingerprint(db_path) == before


def test_a_generated_token_is_saved_0600_and_printed_once(http_server, db_path, tmp_path):
    seed(db_path)
    errlog = tmp_path / "http-stderr.log"
    with http_server({}) as url:
        path = token_path(str(db_path))
        token = path.read_text().strip()
        assert stat.S_IMODE(path.stat().st_mode) == 0o600 and len(token) >= 32
        assert errlog.read_text().count(token) == 1
        assert post(url, INITIALIZE).status_code == 401
        anyio.run(remember_over_http, url, token, "Generated tokens are read back from the file")
    with http_server({}) as url:  # a second start reads the same token and does not print it
        anyio.run(remember_over_http, url, token, "A second start reuses the saved token")
    assert errlog.read_text().count(token) == 1


def test_a_non_loopback_bind_without_a_token_is_refused(db_path):
    env = {k: v for k, v in os.environ.items() if k != "CAIRN_MCP_TOKEN"}
    # 192.0.2.1 (TEST-NET-1) is not an address of this machine: were the check missing, the
    # bind would fail with a different message rather than listen beyond loopback.
    done = subprocess.run([sys.executable, "-m", "cairn", "--db", str(db_path), "mcp", "--http", "192.0.2.1:8765"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 1
    assert done.stderr.strip() == ("cairn: refusing to serve on a non-loopback address without a token:"
                                   " set CAIRN_MCP_TOKEN")
    assert not token_path(str(db_path)).exists()


# -- the rules in-process, with their negative controls --------------------------------------


def test_token_rules(tmp_path, monkeypatch):
    db = str(tmp_path / "cairn.db")
    monkeypatch.delenv("CAIRN_MCP_TOKEN", raising=False)
    with pytest.raises(Refused, match="non-loopback"):
        load_token(db, loopback=False)
    printed: list[str] = []
    token = load_token(db, loopback=True, announce=printed.append)
    assert len(printed) == 1 and token in printed[0]
    assert load_token(db, loopback=True, announce=printed.append) == token and len(printed) == 1
    os.chmod(token_path(db), 0o644)
    with pytest.raises(Refused, match="readable by others"):
        load_token(db, loopback=True)
    monkeypatch.setenv("CAIRN_MCP_TOKEN", TOKEN)
    assert load_token(db, loopback=False) == TOKEN  # control: with a token, any address
    monkeypatch.setenv("CAIRN_MCP_TOKEN", "short")
    with pytest.raises(InvalidInput, match="shorter than 16"):
        load_token(db, loopback=False)


@pytest.mark.parametrize("text, expected", [
    ("8765", ("127.0.0.1", 8765)), ("127.0.0.1:9000", ("127.0.0.1", 9000)), ("[::1]:9000", ("::1", 9000)),
    ("0.0.0.0:80", ("0.0.0.0", 80)),
])
def test_addresses(text, expected):
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["http", "127.0.0.1:", "1:99999", "host:0"])
def test_bad_addresses(text):
    with pytest.raises(InvalidInput):
        parse_address(text)


@pytest.mark.parametrize("host, loopback", [
    ("127.0.0.1", True), ("127.0.0.2", True), ("::1", True), ("localhost", True),
    ("0.0.0.0", False), ("::", False), ("192.168.1.4", False), ("example.com", False),
])
def test_which_hosts_are_loopback(host, loopback):
    from cairn.mcp.http import is_loopback

    assert is_loopback(host) is loopback
