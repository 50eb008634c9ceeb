"""CLI command ``cairn mcp``: serve the database (``--db``) and space (``--space``) to MCP
clients over stdio (default) or streamable HTTP (``--http [HOST:]PORT``).

The ``mcp`` SDK is imported only when the command runs, so that every other command
starts without loading it.
"""

from __future__ import annotations

import logging

from ..engine import Cairn
from ..errors import Refused
from .common import Output, add_command

DESCRIPTION = """\
Serve Cairn to AI agents over the Model Context Protocol: tools memory_recall, memory_search,
memory_explain, memory_show, memory_timeline, memory_history (read-only), memory_remember,
memory_correct, memory_relate, memory_feedback, memory_pin (writing), memory_forget,
memory_undo (destructive). One server serves one database (--db) and one space (--space).

Default transport: stdio (the client starts `cairn mcp` itself; see docs/agents.md).
--http [HOST:]PORT serves streamable HTTP at http://HOST:PORT/mcp instead (HOST defaults to
127.0.0.1). Every HTTP request needs `Authorization: Bearer TOKEN`: the token is
$CAIRN_MCP_TOKEN, or one generated at first start into DB.mcp-token (mode 0600) and printed
once. Binding to a non-loopback address requires $CAIRN_MCP_TOKEN.

While it runs, it also answers the per-prompt hook (`cairn hook claude-code
user-prompt-submit`) and the read commands (recall, search, explain) on a Unix socket
beside the database (DB.hooks/warm.sock, owner only), so those processes need not load the
engine themselves; --no-warm-hook turns that off (CAIRN_WARM=off, for one command).

Needs the optional extra: pip install 'cairn-memory[mcp]'. Logs go to stderr."""


def register(sub) -> None:
    p = add_command(sub, "mcp", "serve this database to AI agents over MCP (stdio or --http)", cmd_mcp,
                    description=DESCRIPTION)
    p.add_argument("--http", metavar="[HOST:]PORT", help="serve streamable HTTP on this address instead of stdio")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="with --http: also accept this Host/Origin name (repeatable; loopback is always accepted)")
    p.add_argument("--verbose", action="store_true", help="log every tool call to stderr")
    p.add_argument("--no-warm-hook", action="store_true",
                   help="do not answer the per-prompt hook on DB.hooks/warm.sock (hooks then load the engine)")


def cmd_mcp(cairn: Cairn, args) -> Output:
    try:
        from ..mcp import server
    except ImportError as err:  # the extra is not installed
        raise Refused(f"the MCP server needs the optional extra (missing {err.name}): "
                      "pip install 'cairn-memory[mcp]'") from None
    from importlib import metadata  # not at import time: other commands never scan metadata

    server.configure_logging(logging.INFO if args.verbose else logging.WARNING)
    try:
        version = metadata.version("cairn-memory")
    except metadata.PackageNotFoundError:
        version = ""
    from ..host.warm import WarmServer
    from .warm import answer

    warm = WarmServer(cairn.path, cli=answer)  # the hook, and the read commands (cli/warm.py)
    if not args.no_warm_hook:
        warm.start()  # False (and nothing runs) off SQLite or when another server answers there
    try:
        if args.http:
            from ..mcp import http

            http.serve_http(cairn, args.http, allow_hosts=args.allow_host, version=version)
        else:
            server.serve_stdio(cairn, version=version)
    finally:
        warm.close()
    return Output({}, "")
