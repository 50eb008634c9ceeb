"""A throwaway PostgreSQL server for the suite: ``initdb`` into a temporary folder,
listening on a Unix socket in that folder only (no TCP port), stopped and deleted at the
end. Finds the server binaries on PATH or under /usr/lib/postgresql/*/bin (Debian).

``start()`` returns a :class:`Server`, or raises :class:`Unavailable` with the reason
(no binaries, no psycopg, initdb failed): callers skip their tests with that reason,
never pass them silently. As root the server runs as the ``postgres`` user, which the
server requires. Also a script: ``python tests/testkit/pgserver.py`` starts one, prints
its URL and stops it on Enter.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass


class Unavailable(Exception):
    """Why no PostgreSQL server can be started here."""


def _bin_dir() -> str:
    found = shutil.which("pg_ctl")
    if found:
        return os.path.dirname(os.path.realpath(found))
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.path.exists(os.path.join(candidate, "pg_ctl")):
            return candidate
    raise Unavailable("PostgreSQL server binaries not found (apt-get install -y postgresql)")


@dataclass
class Server:
    folder: str
    bindir: str
    user: str | None  # run as this user (when the suite runs as root)
    _dbs: int = 0

    @property
    def socket(self) -> str:
        return self.folder

    def url(self, database: str = "postgres", user: str = "postgres") -> str:
        return f"postgresql://{user}@/{database}?host={self.socket}"

    def _run(self, *argv: str) -> subprocess.CompletedProcess:
        cmd = list(argv)
        if self.user:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120)

    def new_database(self) -> str:
        """A fresh, empty database; returns its URL."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        self._run(os.path.join(self.bindir, "pg_ctl"), "-D", os.path.join(self.folder, "data"), "-m", "immediate", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)


def attach(folder: str) -> Server:
    """The server :func:`start` left running in ``folder`` (``start(folder=...)``), to be
    used again by a later process; it is stopped only by an explicit ``stop()``."""
    user = "postgres" if os.geteuid() == 0 else None
    server = Server(folder, _bin_dir(), user)
    import psycopg

    psycopg.connect(server.url(), connect_timeout=5).close()
    return server


def start(folder: str | None = None, settings: dict[str, str] | None = None) -> Server:
    """A new server in a new temporary folder, or in ``folder`` (which must not exist yet:
    for a server kept between processes, see :func:`attach`). ``settings``: server
    settings beyond the suite's (``-c name=value``), for a benchmark's server only; the
    suite's correctness never depends on them."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise Unavailable("psycopg is not installed (pip install 'cairn-memory[postgres]')") from None
    bindir = _bin_dir()
    user = None
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            raise Unavailable("running as root and there is no 'postgres' user to run the server as") from None
        user = "postgres"
    if folder is None:
        folder = tempfile.mkdtemp(prefix="cairn-pg-")
    else:
        os.makedirs(folder)
    os.chmod(folder, 0o755)
    server = Server(folder, bindir, user)
    data = os.path.join(folder, "data")
    if user:
        info = pwd.getpwnam(user)
        os.chown(folder, info.pw_uid, info.pw_gid)
    done = server._run(os.path.join(bindir, "initdb"), "-D", data, "-U", "postgres", "-A", "trust",
                       "--encoding=UTF8", "--locale=C", "--no-sync")
    if done.returncode:
        shutil.rmtree(folder, ignore_errors=True)
        raise Unavailable(f"initdb failed: {done.stderr.strip()[-300:]}")
    options = f"-k {folder} -c listen_addresses='' -c fsync=off -c max_connections=100 -c shared_buffers=128MB"
    options += "".join(f" -c {name}={value}" for name, value in (settings or {}).items())
    done = server._run(os.path.join(bindir, "pg_ctl"), "-D", data, "-o", options, "-l",
                       os.path.join(folder, "log"), "-w", "start")
    if done.returncode:
        log = ""
        try:
            with open(os.path.join(folder, "log")) as handle:
                log = handle.read()[-300:]
        except OSError:
            pass
        shutil.rmtree(folder, ignore_errors=True)
        raise Unavailable(f"the server did not start: {done.stderr.strip()[-200:]} {log}")
    deadline = time.monotonic() + 30
    import psycopg

    while True:
        try:
            psycopg.connect(server.url(), connect_timeout=2).close()
            return server
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                server.stop()
                raise Unavailable("the server started but accepts no connection") from None
            time.sleep(0.2)


if __name__ == "__main__":
    running = start()
    print(running.url())
    try:
        input("PostgreSQL is running; press Enter to stop it. ")
    finally:
        running.stop()
