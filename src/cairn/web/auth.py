"""Who may talk to ``cairn ui``, checked on every request before any route runs.

* **Login**: at start the server makes a one-time login token and prints the URL carrying
  it. ``GET /login?token=T`` with that token opens a session (an ``HttpOnly``,
  ``SameSite=Strict`` cookie) and spends the token: the printed URL works once. With
  ``$CAIRN_UI_TOKEN`` set, that token also logs in (as often as needed) and a script may
  send it as ``Authorization: Bearer TOKEN`` on every request instead of a cookie.
* **Writes** (``POST``) from a cookie session must carry the session's CSRF token in the
  ``X-CSRF-Token`` header (the page reads it from a ``<meta>`` tag) and a JSON body: a
  form on another site can send neither. Bearer requests carry no ambient credential, so
  they need no CSRF token.
* **Host and Origin**: the ``Host`` header must name a loopback name or the bound address
  (DNS rebinding: a hostile name resolving to 127.0.0.1 is refused), and a browser's
  ``Origin``, when sent, must be this server.
* **Address**: serving on a non-loopback address is refused unless ``$CAIRN_UI_TOKEN`` is
  set: a token printed on a terminal is fine for this machine, not a decision to take
  silently for a network.

Sessions live in memory: restarting the server logs everyone out.
"""

from __future__ import annotations

import hmac
import os
import secrets
import threading
from dataclasses import dataclass

from ..errors import InvalidInput, Refused
from ..mcp.http import LOOPBACK_NAMES, is_loopback

TOKEN_ENV = "CAIRN_UI_TOKEN"
COOKIE = "cairn_ui"
CSRF_HEADER = "X-CSRF-Token"
MAX_SESSIONS = 64  # a person's browsers; the oldest session is dropped beyond this


def configured_token() -> str | None:
    """``$CAIRN_UI_TOKEN``, or None; a short one is refused (it guards a network port)."""
    token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        return None
    if len(token) < 16:
        raise InvalidInput(TOKEN_ENV, "shorter than 16 characters; use a long random token")
    return token


def check_address(host: str, token: str | None) -> None:
    if not is_loopback(host) and token is None:
        raise Refused(f"refusing to serve on the non-loopback address {host} without a token: set {TOKEN_ENV}")


@dataclass(frozen=True, slots=True)
class Session:
    id: str
    csrf: str


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode(), expected.encode())


class Gate:
    """The login token, the configured token and the open sessions of one server."""

    def __init__(self, host: str, port: int, *, token: str | None = None, allow_hosts: tuple[str, ...] = ()) -> None:
        self.login_token: str | None = secrets.token_urlsafe(24)
        self.token = token
        self.sessions: dict[str, Session] = {}
        self._lock = threading.Lock()  # requests run on several threads
        names = [*LOOPBACK_NAMES, host, *allow_hosts]
        self.hosts = {f"[{n}]:{port}" if ":" in n else f"{n}:{port}" for n in names}
        self.origins = {f"http://{h}" for h in self.hosts}

    def login(self, given: str) -> Session | None:
        """A new session for a valid login token (the one-time token is spent), else None."""
        with self._lock:
            if self.login_token is not None and _same(given, self.login_token):
                self.login_token = None
            elif not (self.token is not None and _same(given, self.token)):
                return None
            session = Session(secrets.token_urlsafe(24), secrets.token_urlsafe(24))
            self.sessions[session.id] = session
            while len(self.sessions) > MAX_SESSIONS:
                self.sessions.pop(next(iter(self.sessions)))
            return session

    def session(self, cookie_header: str | None) -> Session | None:
        """The session the request's cookie names, or None."""
        for part in (cookie_header or "").split(";"):
            name, _, value = part.strip().partition("=")
            if name == COOKIE:
                with self._lock:
                    for sid, session in self.sessions.items():
                        if _same(value, sid):
                            return session
        return None

    def bearer(self, authorization: str | None) -> bool:
        scheme, _, given = (authorization or "").partition(" ")
        return self.token is not None and scheme.lower() == "bearer" and _same(given.strip(), self.token)

    def logout(self, session: Session) -> None:
        with self._lock:
            self.sessions.pop(session.id, None)

    def host_allowed(self, host: str | None, origin: str | None) -> bool:
        if host is None or host.lower() not in self.hosts:
            return False
        return origin is None or origin.lower() in self.origins

    def csrf_ok(self, session: Session, given: str | None) -> bool:
        return given is not None and _same(given, session.csrf)
