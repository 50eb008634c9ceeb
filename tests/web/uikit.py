"""Helpers for the ``cairn ui`` tests: a real server on a loopback port over a temporary database
with a fixed clock, and a small HTTP client that keeps the session cookie.

``ui`` yields a :class:`UI`: ``ui.client()`` is a fresh client (no session),
``ui.login()`` a logged-in one (it spends the one-time token), ``ui.engine(fn)`` runs
``fn(cairn)`` on the server's own engine thread (to seed records and read them back),
``ui.earlier(days, fn)`` the same with an earlier clock (old records). ``POLICIES``: two
retention policies, one per kind of match.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from cairn import Cairn
from cairn.web.server import UIServer, Worker, start
from testkit import NOW

TOKEN = "configured-token-0123456789"
POLICIES = """
[[policy]]
name = "stale project state"
kind = "project_state"
older_than_days = 30

[[policy]]
name = "old conflicted claims"
status = "conflicted"
older_than_days = 60
"""


@dataclass
class Response:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def text(self) -> str:
        return self.body.decode()


@dataclass
class Client:
    port: int
    cookie: str | None = None
    csrf: str | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def request(self, method: str, path: str, body: bytes | None = None, headers: Mapping[str, str] | None = None) -> Response:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        sent = {"Host": f"127.0.0.1:{self.port}", **self.headers, **(headers or {})}
        if self.cookie:
            sent.setdefault("Cookie", self.cookie)
        try:
            conn.request(method, path, body=body, headers=sent)
            r = conn.getresponse()
            return Response(r.status, r.headers, r.read())
        finally:
            conn.close()

    def get(self, path: str, **headers: str) -> Response:
        return self.request("GET", path, headers=headers)

    def post(self, path: str, doc: Any = None, *, csrf: bool = True, headers: Mapping[str, str] | None = None) -> Response:
        sent = {"Content-Type": "application/json"}
        if csrf and self.csrf:
            sent["X-CSRF-Token"] = self.csrf
        return self.request("POST", path, json.dumps({} if doc is None else doc).encode(), {**sent, **(headers or {})})


@dataclass
class UI:
    server: UIServer
    worker: Worker
    db: Path

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def client(self) -> Client:
        return Client(self.port)

    def login(self) -> Client:
        c = self.client()
        token = self.server.gate.login_token
        assert token, "the one-time login token was already spent"
        r = c.get(f"/login?token={token}")
        assert r.status == 303, r.text
        c.cookie = r.headers["Set-Cookie"].split(";")[0]
        page = c.get("/").text
        c.csrf = page.split('name="csrf-token" content="')[1].split('"')[0]
        return c

    def engine(self, fn: Callable[[Cairn], Any]) -> Any:
        return self.worker.run(fn)

    def earlier(self, days: float, fn: Callable[[Cairn], Any]) -> Any:
        """``fn(cairn)`` on the same database with the clock ``days`` before the server's: records
        old enough for a retention policy or a review cadence."""
        def run(_: Cairn) -> Any:
            with Cairn(self.db, space="default", now=NOW - timedelta(days=days)) as past:
                return fn(past)

        return self.worker.run(run)


def serve(db: Path, *, token: str | None = None, policies: str | None = None) -> Iterator[UI]:
    worker = Worker(str(db), space="default", now=NOW)
    server, thread = start(worker, token=token, policies=policies)
    try:
        yield UI(server, worker, db)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
        worker.close()


