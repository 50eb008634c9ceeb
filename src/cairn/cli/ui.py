"""CLI command ``cairn ui``: a local web app over a JSON API for the database (``--db``)
and space (``--space``), on the standard library's HTTP server (:mod:`cairn.web`)."""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import InvalidInput
from .common import Output, add_command

DESCRIPTION = """\
See, search and curate what the agent remembers, in a browser: the records with search and
filters, each record's evidence, quality, relations and history (with undo), corrections,
feedback, pins, the conflicted records to keep, replace or dismiss, and a recall box that
shows the digest an agent would get beside the explain numbers, the maintenance
recommendations to review and apply, and what retention policies would retire. Scripts
can use the same JSON API (/api/..., described at /api/openapi.json).

Serves http://127.0.0.1:PORT (default 8765) and opens nothing: it prints a login URL
carrying a one-time token; open it in a browser. Each start prints a new one.
With $CAIRN_UI_TOKEN set (16+ characters), that token also logs in, scripts may send
`Authorization: Bearer TOKEN`, and --host may name a non-loopback address (refused
otherwise). --retention POLICIES.toml declares the retention policies (as `cairn retention
plan` reads them) the Retention page plans first; they are checked at start. One server
serves one database and one space. Stop it with Ctrl-C."""


def register(sub) -> None:
    p = add_command(sub, "ui", "serve a local web app (and JSON API) to see and curate the memories", cmd_ui,
                    description=DESCRIPTION, needs_db=False)
    p.add_argument("--port", type=int, default=8765, help="port to listen on (default 8765; 0 picks a free one)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; another needs $CAIRN_UI_TOKEN)")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="also accept this Host header name (repeatable; loopback names are always accepted)")
    p.add_argument("--retention", metavar="POLICIES.toml",
                   help="retention policies (TOML) for the Retention page to plan; nothing is applied without you")


def cmd_ui(_: None, args) -> Output:
    from ..web import auth, server  # not at import time: other commands never load the web app

    if not 0 <= args.port < 65536:
        raise InvalidInput("--port", f"{args.port} is outside 0-65535")
    token = auth.configured_token()
    auth.check_address(args.host, token)  # before the database is opened
    if args.db is not None and not args.db.strip():
        raise InvalidInput("--db", "empty; give a database path")
    policies = _policies(args.retention)
    # The page curates records that exist: a mistyped path is refused, not served empty.
    worker = server.Worker(args.db, space=args.space, now=args.now, create=False)
    try:
        if policies is not None:  # a policy file with a mistake is refused now, not on the page later
            try:
                worker.run(lambda cairn: cairn.retention_plan(policies))
            except InvalidInput as err:
                raise InvalidInput("--retention", f"{args.retention}: {err.reason}") from None
        ui = server.UIServer(args.host, args.port, worker, token=token, allow_hosts=tuple(args.allow_host),
                             version=_version(), policies=policies)
    except OSError as err:
        worker.close()
        raise InvalidInput("--port", f"cannot listen on {args.host}:{args.port}: {err.strerror}") from None
    except BaseException:
        worker.close()
        raise
    print(f"cairn ui: serving {ui.base_url} (space {worker.cairn.space}, database {worker.cairn.path})", file=sys.stderr)
    print(f"cairn ui: open this URL to log in (it works once): {ui.login_url}", flush=True)
    try:
        ui.serve_forever()
    except KeyboardInterrupt:
        print("cairn ui: stopped", file=sys.stderr)
    finally:
        ui.server_close()
        worker.close()
    return Output({}, "")


def _policies(path: str | None) -> str | None:
    if path is None:
        return None
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise InvalidInput("--retention", f"cannot read {path!r}: {err.__class__.__name__}") from None


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("cairn-memory")
    except metadata.PackageNotFoundError:
        return ""
