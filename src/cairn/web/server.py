"""The HTTP server of ``cairn ui``: the standard library's ``ThreadingHTTPServer``.

Each request runs on its own thread for parsing, authentication and rendering; every
engine call is handed to one worker thread that opened the engine (:class:`Worker`), so
calls are serialised and the engine never leaves the thread that opened it.

A request meets, in order: the Host/Origin check (403), the size limit (413),
authentication (401: a session cookie or the bearer token; ``/login`` and ``/static/``
excepted), and for a write the CSRF token and a JSON body (403 / 415). Only then does a
route or a page run. Every answer carries a Content-Security-Policy that allows scripts
and styles from this server only, so even a stored payload that slipped into markup
could not run.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any, TypeVar
from urllib.parse import parse_qs, quote, urlsplit

from .. import errors
from ..engine import Cairn
from . import api, pages
from .auth import COOKIE, CSRF_HEADER, Gate, Session, check_address

T = TypeVar("T")

MAX_BODY = 64 * 1024  # the largest accepted text is 800 characters
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self';"
                               " connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",  # the login URL carries a token
    "Cache-Control": "no-store",
}
STATIC = {"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8"}


class Worker:
    """One thread that opens the engine and runs every call on it, one at a time."""

    def __init__(self, db: str | None, *, space: str, now: datetime | str | None = None, create: bool = True) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cairn-ui-engine")
        try:
            self.cairn: Cairn = self._pool.submit(lambda: Cairn(db, space=space, now=now, create=create)).result()
        except BaseException:
            self._pool.shutdown()  # e.g. a schema too new: the one-line reason reaches the CLI
            raise

    def run(self, fn: Callable[[Cairn], T]) -> T:
        return self._pool.submit(fn, self.cairn).result()

    def close(self) -> None:
        self._pool.submit(self.cairn.close).result()
        self._pool.shutdown()


class UIServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str, port: int, worker: Worker, *, token: str | None = None,
                 allow_hosts: tuple[str, ...] = (), version: str = "", policies: str | None = None) -> None:
        check_address(host, token)
        super().__init__((host, port), Handler)
        self.worker = worker
        self.version = version
        self.policies = policies  # --retention's policies (TOML): what the Retention page plans first
        self.gate = Gate(host, self.server_address[1], token=token, allow_hosts=allow_hosts)

    @property
    def base_url(self) -> str:
        host, port = str(self.server_address[0]), self.server_address[1]
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}"

    @property
    def login_url(self) -> str:
        return f"{self.base_url}/login?token={quote(self.gate.login_token or '')}"


class Handler(BaseHTTPRequestHandler):
    server: UIServer
    protocol_version = "HTTP/1.1"
    server_version = "cairn-ui"

    def setup(self) -> None:
        super().setup()
        # Headers and body leave in two writes; without this, Nagle's algorithm holds the body
        # until the client's delayed ACK of the headers: about 40 ms on every answer.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass  # no access log: the login URL carries a token, and queries are memory text

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        self._serve("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._serve("POST")

    def do_PUT(self) -> None:  # noqa: N802
        self._serve("PUT")

    def do_DELETE(self) -> None:  # noqa: N802
        self._serve("DELETE")

    # -- the pipeline ---------------------------------------------------------------------

    def _serve(self, method: str) -> None:
        url = urlsplit(self.path)
        is_api = url.path.startswith("/api/")
        try:
            self._dispatch(method, url.path, parse_qs(url.query, keep_blank_values=True), is_api)
        except api.HttpError as err:
            self._fail(err.status, err.code, str(err), is_api)
        except errors.CairnError as err:
            self._fail(api.error_status(err), api.error_code(err), str(err), is_api)
        except Exception as err:  # noqa: BLE001 - one line to the client, the traceback to stderr
            print(f"cairn ui: internal error on {method} {url.path}: {type(err).__name__}: {err}", file=sys.stderr)
            self._fail(500, "internal", f"internal error: {type(err).__name__}", is_api)

    def _dispatch(self, method: str, path: str, query: dict[str, list[str]], is_api: bool) -> None:
        gate = self.server.gate
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            self.close_connection = True  # the unread body would be taken for the next request
            raise api.HttpError(413, "too_large", f"the request body is over {MAX_BODY} bytes")
        body = self.rfile.read(length) if length else b""
        if not gate.host_allowed(self.headers.get("Host"), self.headers.get("Origin")):
            raise api.HttpError(403, "forbidden", "this Host or Origin is not this server")
        if method == "GET" and path == "/login":
            return self._login(query.get("token", [""])[-1])
        if method == "GET" and path.startswith("/static/"):
            return self._static(path.removeprefix("/static/"))
        session = gate.session(self.headers.get("Cookie"))
        bearer = gate.bearer(self.headers.get("Authorization"))
        if session is None and not bearer:
            raise api.HttpError(401, "unauthorized", "log in with the URL `cairn ui` printed, or send the bearer token")
        if method != "GET":
            self._check_write(session, bearer, is_api and method == "POST")
        if method == "POST" and path == "/logout" and session is not None:
            gate.logout(session)
            return self._redirect("/login", clear_cookie=True)
        if path == "/api/openapi.json" and method == "GET":
            return self._json(200, api.openapi(self.server.version))
        if is_api:
            return self._api(method, path, query, body)
        if method != "GET":
            raise api.HttpError(405, "method_not_allowed", "pages are read with GET; writes go through /api/")
        csrf = session.csrf if session is not None else ""
        html = pages.render(path, query, self._fetch, csrf, policies=self.server.policies)
        self._send(200, html.encode(), "text/html; charset=utf-8")

    def _fetch(self, method: str, path: str, arguments: Mapping[str, Any]) -> Mapping[str, Any]:
        """What a page reads: the API's own answer for ``method path`` (same routes, same checks)."""
        route, path_args = api.match(method, path)
        return self.server.worker.run(lambda cairn: api.call(cairn, route, path_args, arguments))

    def _check_write(self, session: Session | None, bearer: bool, json_body: bool) -> None:
        if bearer:
            return  # no ambient credential: a page on another site cannot send it
        assert session is not None
        if not self.server.gate.csrf_ok(session, self.headers.get(CSRF_HEADER)):
            raise api.HttpError(403, "forbidden", f"a write needs the session's {CSRF_HEADER} header")
        if json_body and self.headers.get_content_type() != "application/json":
            raise api.HttpError(415, "bad_request", "a write's body is a JSON object (Content-Type: application/json)")

    def _api(self, method: str, path: str, query: dict[str, list[str]], body: bytes) -> None:
        route, path_args = api.match(method, path)
        if method == "GET":
            arguments = api.query_arguments(route, query)
        else:
            arguments = _json_object(body)
        doc = self.server.worker.run(lambda cairn: api.call(cairn, route, path_args, arguments))
        self._json(route.status, doc)

    def _login(self, token: str) -> None:
        session = self.server.gate.login(token) if token else None
        if session is None:
            page = pages.login_page(bool(token))
            return self._send(401 if token else 200, page.encode(), "text/html; charset=utf-8")
        self._redirect("/", cookie=session.id)

    def _static(self, name: str) -> None:
        if name not in STATIC:
            raise api.HttpError(404, "no_route", f"no static file {name}")
        data = resources.files("cairn.web").joinpath("static", name).read_bytes()
        self._send(200, data, STATIC[name])

    # -- answers --------------------------------------------------------------------------

    def _fail(self, status: int, code: str, message: str, is_api: bool) -> None:
        if is_api or status == 413:
            return self._json(status, api.error_doc(code, message))
        page = pages.login_page(False) if status == 401 else pages.error_page(status, message)
        self._send(status, page.encode(), "text/html; charset=utf-8")

    def _json(self, status: int, doc: Mapping[str, Any]) -> None:
        self._send(status, api.dumps(doc), "application/json")

    def _redirect(self, where: str, *, cookie: str | None = None, clear_cookie: bool = False) -> None:
        headers = {"Location": where}
        if cookie is not None:
            headers["Set-Cookie"] = f"{COOKIE}={cookie}; HttpOnly; SameSite=Strict; Path=/"
        if clear_cookie:
            headers["Set-Cookie"] = f"{COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0"
        self._send(303, b"", "text/plain", headers)

    def _send(self, status: int, data: bytes, content_type: str, extra: Mapping[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in {**SECURITY_HEADERS, **(extra or {})}.items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)


def _json_object(body: bytes) -> dict[str, Any]:
    if not body.strip():
        return {}
    try:
        value = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise api.HttpError(400, "bad_request", f"the body is not JSON: {err}") from None
    if not isinstance(value, dict):
        raise api.HttpError(400, "bad_request", "the body must be a JSON object")
    return value


def start(worker: Worker, host: str = "127.0.0.1", port: int = 0, *, token: str | None = None,
          allow_hosts: tuple[str, ...] = (), version: str = "", policies: str | None = None,
          ) -> tuple[UIServer, threading.Thread]:
    """A running server on a background thread (tests, embedding); ``port=0`` picks a free one."""
    server = UIServer(host, port, worker, token=token, allow_hosts=allow_hosts, version=version, policies=policies)
    thread = threading.Thread(target=server.serve_forever, name="cairn-ui", daemon=True)
    thread.start()
    return server, thread
