"""Fixtures for the MCP server tests: a real ``cairn mcp`` process driven by the ``mcp``
client library, over stdio or over HTTP on a loopback port.

``connect(*options)`` is an async context manager yielding a connected
``mcp.Client``; the server's stderr goes to a file the test can read (``stderr_text``).
``http_server(...)`` starts ``cairn mcp --http 127.0.0.1:PORT`` and yields its URL.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from testkit import NOW

NOW_ISO = NOW.isoformat().replace("+00:00", "Z")
TOKEN = "test-token-0123456789abcdef"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """The suite's database path, in a folder that exists: `cairn --db` creates a database,
    not the folders above it."""
    path = tmp_path / "store" / "cairn.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def server_args(db: Path, *options: str, space: str | None = None) -> list[str]:
    return ["-m", "cairn", "--db", str(db), "--now", NOW_ISO, *(["--space", space] if space else []), "mcp", *options]


def base_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CAIRN_MCP_TOKEN", "CAIRN_DB", "CAIRN_SPACE")}
    return env


@pytest.fixture
def stderr_file(tmp_path: Path) -> Path:
    return tmp_path / "server-stderr.log"


@pytest.fixture
def connect(db_path: Path, stderr_file: Path) -> Callable[..., Any]:
    @asynccontextmanager
    async def open_client(*options: str, space: str | None = None) -> AsyncIterator[Client]:
        params = StdioServerParameters(command=sys.executable, args=server_args(db_path, *options, space=space),
                                       env=base_env())
        with open(stderr_file, "a", encoding="utf-8") as errlog:
            async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60) as client:
                yield client

    return open_client


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def run_http_server(db: Path, *, env: dict[str, str], errlog: Path) -> Iterator[str]:
    """``cairn mcp --http 127.0.0.1:PORT``; yields its URL once the port accepts connections."""
    port = free_port()
    with open(errlog, "a", encoding="utf-8") as err:
        proc = subprocess.Popen([sys.executable, *server_args(db, "--http", f"127.0.0.1:{port}")],
                                stdout=subprocess.DEVNULL, stderr=err, env=env)
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise AssertionError(f"server exited with {proc.returncode}: {errlog.read_text()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise AssertionError("server did not start listening within 60 s") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def http_server(db_path: Path, tmp_path: Path) -> Callable[..., Any]:
    """``http_server(env)``: a context manager running the HTTP server with that environment."""

    def start(env: dict[str, str]) -> Any:
        return run_http_server(db_path, env={**base_env(), **env}, errlog=tmp_path / "http-stderr.log")

    return start
