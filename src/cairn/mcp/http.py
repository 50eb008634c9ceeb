"""``cairn mcp --http``: the MCP server over streamable HTTP, behind a bearer token.

The rules, in the order a request meets them:

1. **Bearer token**, checked before anything else (:class:`BearerAuth`): a request without
   ``Authorization: Bearer TOKEN``, or with another token, gets 401 and reaches neither the
   MCP session nor the database. The token is ``$CAIRN_MCP_TOKEN``; without it, a token is
   generated at first start into ``DB.mcp-token`` beside the database (mode 0600) and
   printed once, and later starts read it from there.
2. **Host and Origin** (the SDK's DNS-rebinding protection): the ``Host`` header must name
   the loopback address or the address the server was bound to (or one given with
   ``--allow-host``); a browser ``Origin`` must be one of those too.
3. **Size**: a request body over :data:`MAX_REQUEST_BYTES` gets 413 before it is parsed.

Binding to an address other than loopback is refused unless ``$CAIRN_MCP_TOKEN`` is set:
a generated token sits in a file on this machine, which is fine for a local client and
not a decision to take silently for a network.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
import secrets
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..engine import Cairn
from ..errors import InvalidInput, Refused

log = logging.getLogger("cairn.mcp")

TOKEN_ENV = "CAIRN_MCP_TOKEN"
TOKEN_SUFFIX = ".mcp-token"
MAX_REQUEST_BYTES = 256 * 1024  # a tool call is a few KB; the largest text a tool accepts is 800 characters
PATH = "/mcp"
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


def parse_address(text: str) -> tuple[str, int]:
    """``PORT``, ``HOST:PORT`` or ``[IPv6]:PORT`` → (host, port); the host defaults to 127.0.0.1."""
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host, port_text = "127.0.0.1", text
    host = host.strip("[]") or "127.0.0.1"
    try:
        port = int(port_text)
    except ValueError:
        raise InvalidInput("--http", f"{text!r} is not [HOST:]PORT") from None
    if not 0 < port < 65536:
        raise InvalidInput("--http", f"port {port} is outside 1-65535")
    return host, port


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name other than localhost may resolve anywhere


def token_path(db_path: str) -> Path:
    db = Path(db_path)
    return db.with_name(db.name + TOKEN_SUFFIX)


def load_token(db_path: str, *, loopback: bool, announce=print) -> str:
    """The bearer token: from the environment, else from (or generated into) the file
    beside the database. ``announce`` receives the one line printed when it is generated."""
    env = os.environ.get(TOKEN_ENV, "").strip()
    if env:
        if len(env) < 16:
            raise InvalidInput(TOKEN_ENV, "shorter than 16 characters; use a long random token")
        return env
    if not loopback:
        raise Refused(f"refusing to serve on a non-loopback address without a token: set {TOKEN_ENV}")
    path = token_path(db_path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read_token(path)
    except OSError as err:
        raise Refused(f"cannot write the token file {path}: {err.strerror}; set {TOKEN_ENV} instead") from None
    token = secrets.token_urlsafe(32)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    announce(f"cairn mcp: generated a bearer token, saved to {path} (mode 0600); clients send"
             f" 'Authorization: Bearer {token}'")
    return token


def _read_token(path: Path) -> str:
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise Refused(f"token file {path} is readable by others (mode {stat.S_IMODE(mode):o}); chmod 600 it")
    token = path.read_text(encoding="utf-8").strip()
    if not token:
        raise Refused(f"token file {path} is empty; delete it to generate a new token")
    return token


class BearerAuth:
    """ASGI middleware: only requests carrying the bearer token reach the app."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = token.encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not self._authorised(scope):
            from starlette.responses import JSONResponse

            response = JSONResponse(
                {"error": {"code": "unauthorized", "message": "missing or wrong bearer token"}},
                status_code=401,
                headers={"WWW-Authenticate": 'Bearer realm="cairn"'},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _authorised(self, scope: Any) -> bool:
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                scheme, _, given = value.partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self.expected)
        return False


def allowed(host: str, extra: Sequence[str]) -> tuple[list[str], list[str]]:
    """The Host and Origin values accepted: loopback names, the bound host, ``extra``."""
    names = list(dict.fromkeys([*LOOPBACK_NAMES, *([] if host in ("0.0.0.0", "::") else [host]), *extra]))
    hosts = [f"[{n}]:*" if ":" in n else f"{n}:*" for n in names]
    origins = [f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")]
    return hosts, origins


def app(cairn: Cairn, token: str, host: str, *, allow_hosts: Sequence[str] = (), version: str = "") -> Any:
    """The ASGI application: bearer check around the SDK's streamable HTTP app."""
    from mcp.server.transport_security import TransportSecuritySettings

    from .server import build  # the SDK: imported when serving, so `cairn ui` may use the helpers above

    hosts, origins = allowed(host, allow_hosts)
    inner = build(cairn, version=version).streamable_http_app(
        streamable_http_path=PATH,
        max_request_body_size=MAX_REQUEST_BYTES,
        transport_security=TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins),
        host=host,
    )
    return BearerAuth(inner, token)


def serve_http(cairn: Cairn, address: str, *, allow_hosts: Sequence[str] = (), version: str = "") -> None:
    """Serve streamable HTTP on ``address`` ([HOST:]PORT) until interrupted."""
    import uvicorn

    host, port = parse_address(address)
    token = load_token(cairn.path, loopback=is_loopback(host), announce=lambda line: print(line, file=sys.stderr))
    config = uvicorn.Config(
        app(cairn, token, host, allow_hosts=allow_hosts, version=version),
        host=host, port=port, log_config=None, access_log=False, lifespan="on",
        limit_concurrency=64,
    )
    shown = f"[{host}]" if ":" in host else host
    print(f"cairn mcp: serving http://{shown}:{port}{PATH} (space {cairn.space}, database {cairn.path})", file=sys.stderr)
    uvicorn.Server(config).run()
