"""The warm path of the per-prompt hook: a running Cairn process answers for it.

A ``cairn hook claude-code user-prompt-submit`` process starts once per user prompt, and
most of its cost is importing the engine (``docs/benchmarks.md``, "Process start-up").
The MCP server that Claude Code starts for the same session (``cairn setup claude-code``
installs both) already has the engine imported and warm. So ``cairn mcp`` also listens on
a Unix socket beside the database (``<db>.hooks/warm.sock``, in the hook folder, mode
0700, the socket 0600; when that path is too long for a socket, ``cairn-<uid>/`` in
``$XDG_RUNTIME_DIR`` or ``/tmp``), and the hook process, once it has parsed its input and the
triage rules have not skipped the prompt, asks there first:

* request, one JSON line: ``{"v": 1, "space", "now", "payload", "deadline"}`` — the
  hook's own input, and the wall-clock time after which an answer is no use;
* answer, one JSON line: ``{"v": 1, "doc": …}`` — what the hook prints (``null`` for
  silence), computed by the very function the hook runs in process
  (:func:`cairn.host.claude_code.user_prompt_submit`), ledger and log included.

Anything else — no socket, a stale one (its server gone), a refused or slow connection, a
malformed answer — and the hook does the work itself, as before: the warm path can make
a hook faster, never different and never less safe. The server handles one request at a
time in its own thread, each with its own database connection; the hook's time budget
bounds the wait (past the deadline the server writes no ledger entry: the memory was not
injected). Only the file's owner can reach the socket, and the hook talks only to a
socket in a folder that is its user's alone (0700): never to one someone else could own.

One server per database: a second ``cairn mcp`` on the same database finds the socket
alive and leaves it to the first; a socket left by a killed server is replaced.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import socket

PROTOCOL = 1
SOCKET_NAME = "warm.sock"
MAX_PATH = 100  # bytes: AF_UNIX paths are limited to 107 on Linux
MAX_REQUEST = 2 << 20  # a hook payload is at most 1 MiB, plus the envelope
MAX_ANSWER = 64 << 20  # a command's printed output (an explain is at most 8 KB, a digest its budget)
CONNECT_TIMEOUT = 0.05  # seconds: a live server accepts at once
MISS = object()  # no answer from a warm server: do the work in process
# User ids (and with them Unix sockets): where they are missing (Windows), the hook and the
# read commands always work in process. `socket` itself is imported only once a socket file
# is there to talk to: a process with no server running does not pay for it.
SUPPORTED = hasattr(os, "getuid")


def socket_path(db: Path) -> Path:
    """Where the warm server of ``db`` listens: in its hook folder, or, when that path is
    too long for a Unix socket, in ``$XDG_RUNTIME_DIR`` (else ``/tmp``) under
    ``cairn-<uid>/``, named by a hash of the database's absolute path."""
    where = Path(os.path.abspath(db))
    path = where.with_name(where.name + ".hooks") / SOCKET_NAME
    if len(os.fsencode(str(path))) <= MAX_PATH:
        return path
    import hashlib

    name = hashlib.sha256(os.fsencode(str(where))).hexdigest()[:24] + ".sock"
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(os.environ.get("XDG_RUNTIME_DIR") or "/tmp") / f"cairn-{uid}" / name


def _private(folder: Path) -> bool:
    """Whether ``folder`` is this user's and closed to everyone else: a socket anywhere
    else could be someone else's, and the hook would send it the user's prompt."""
    try:
        info = os.stat(folder)
    except OSError:
        return False
    return info.st_uid == os.getuid() and not info.st_mode & 0o077


# -- the hook's side -----------------------------------------------------------------


def ask(db: Path, *, space: str, payload: dict[str, Any], now: str | None, budget: float) -> object:
    """The warm server's answer for this prompt (a document, or None for silence), or
    :data:`MISS` when there is no usable server."""
    if budget <= 0:
        return MISS
    deadline = time.time() + budget
    doc = exchange(db, {"space": space, "now": now, "payload": payload, "deadline": deadline}, deadline)
    if doc is None or "doc" not in doc:
        return MISS
    return doc["doc"] if isinstance(doc["doc"], dict) else None


def exchange(db: Path, request: dict[str, Any], deadline: float) -> dict[str, Any] | None:
    """Send one request to the warm server of ``db`` and read its answer (a JSON object),
    before ``deadline`` (wall-clock seconds); None when there is no usable server, it
    declined, or the answer is late or malformed."""
    if not SUPPORTED:
        return None
    path = socket_path(db)
    if not _private(path.parent) or not os.path.exists(path):
        return None
    import socket

    line = json.dumps({"v": PROTOCOL, **request}, ensure_ascii=False).encode("utf-8") + b"\n"
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(CONNECT_TIMEOUT)
            conn.connect(str(path))
            conn.settimeout(max(deadline - time.time(), 0.001))
            conn.sendall(line)
            answer = _read_line(conn, MAX_ANSWER)
    except OSError:  # no server, a stale socket, a refusal, or past the deadline
        return None
    try:
        doc = json.loads(answer)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) and doc.get("v") == PROTOCOL else None


def _read_line(conn: socket.socket, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if chunk.endswith(b"\n") or size > limit:
            break
    data = b"".join(chunks)
    if size > limit or not data.endswith(b"\n"):
        raise OSError("incomplete or oversized message")
    return data


# -- the server's side ---------------------------------------------------------------


class WarmServer:
    """Answers hook requests for one database from a daemon thread of a long-lived
    process (``cairn mcp``). :meth:`start` returns False, and nothing runs, when the path
    is unusable or another live server already answers there."""

    def __init__(self, db: str | os.PathLike[str], *, cli: Callable[[dict, Path], dict | None] | None = None) -> None:
        self.db = Path(db)
        # Answers a command line's request ({"kind": "cli"}) or declines it (None): given by
        # the command line (cairn.cli.warm), which this layer does not import.
        self._cli = cli
        self.path = socket_path(self.db)
        self._sock: socket.socket | None = None
        self._thread: Any = None  # threading.Thread: imported by start(), never by the hook
        self._closing = False
        self._inode = -1

    def start(self) -> bool:
        from .claude_code import HookPlace, user_prompt_submit  # imported here, not in the thread

        self._answer = user_prompt_submit
        self._place = HookPlace(self.db)
        if not SUPPORTED or not self.db.is_file():
            return False
        try:
            self._place.ensure()
            self.path.parent.mkdir(mode=0o700, exist_ok=True)
            if not _private(self.path.parent) and os.stat(self.path.parent).st_uid == os.getuid():
                os.chmod(self.path.parent, 0o700)  # our own folder, made by an older Cairn with the default mode
            if not _private(self.path.parent):
                return False
            if self.path.exists() or self.path.is_symlink():
                if _alive(self.path):
                    return False  # another process serves this database
                self.path.unlink()
            import socket

            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            old = os.umask(0o177)
            try:
                sock.bind(str(self.path))
            finally:
                os.umask(old)
            sock.listen(16)
            self._inode = os.stat(self.path).st_ino
        except OSError:
            return False
        import threading

        self._sock = sock
        self._thread = threading.Thread(target=self._serve, name="cairn-warm-hook", daemon=True)
        self._thread.start()
        return True

    def close(self) -> None:
        """Stop answering and remove the socket (only if it is still this server's)."""
        self._closing = True
        sock, self._sock = self._sock, None
        if sock is None:
            return
        try:
            mine = os.stat(self.path).st_ino == self._inode
        except OSError:
            mine = False
        try:
            import socket

            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()
        if mine:
            self.path.unlink(missing_ok=True)

    def __enter__(self) -> WarmServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _serve(self) -> None:
        while not self._closing and self._sock is not None:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return  # closed
            with conn:
                try:
                    conn.settimeout(2.0)
                    self._handle(conn)
                except Exception:  # noqa: BLE001 - one bad request never stops the server
                    continue

    def _handle(self, conn: socket.socket) -> None:
        from .claude_code import HookTimeout, _log

        request = json.loads(_read_line(conn, MAX_REQUEST))
        if not isinstance(request, dict) or request.get("v") != PROTOCOL:
            return  # not ours: close without an answer, the hook works in process
        if request.get("kind") == "cli":
            answer = self._cli(request, self.db) if self._cli is not None else None
            if answer is not None:  # None: declined, the command runs in its own process
                conn.sendall(json.dumps({"v": PROTOCOL, **answer}, ensure_ascii=False).encode("utf-8") + b"\n")
            return
        payload, space, now = request.get("payload"), request.get("space"), request.get("now")
        deadline = request.get("deadline")
        if not isinstance(payload, dict) or not isinstance(space, str) or not isinstance(deadline, (int, float)):
            return
        if now is not None and not isinstance(now, str):
            return
        doc: dict | None = None
        try:
            doc = self._answer(payload, self._place, space=space, now=now, deadline=float(deadline))
        except HookTimeout:
            _log(self._place, "user-prompt-submit", "over the time budget (warm server); nothing injected")
        except Exception as err:  # noqa: BLE001 - logged as the hook itself would
            _log(self._place, "user-prompt-submit", f"{type(err).__name__}: {' '.join(str(err).split())[:300]}")
        conn.sendall(json.dumps({"v": PROTOCOL, "doc": doc}, ensure_ascii=False).encode("utf-8") + b"\n")


def _alive(path: Path) -> bool:
    """Whether a server accepts connections on ``path``."""
    try:
        import socket

        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.settimeout(CONNECT_TIMEOUT)
            probe.connect(str(path))
        return True
    except OSError:
        return False
