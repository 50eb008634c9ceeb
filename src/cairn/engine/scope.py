"""What every part of the engine works in: one store, one space, one clock.

A :class:`Scope` is built once per :class:`~cairn.Cairn` and handed to each of its parts
(:class:`Part` subclasses: records, relations, learning, recall, …), which is all they
share. It resolves ids, reads one record, and opens the mutation context through which
every write goes (one transaction, one event).

The store is any :class:`cairn.store.Backend`. :meth:`Scope.open` opens the embedded
SQLite store at a path (the default) or takes a backend the caller opened, as an HTTP
client accepts a transport; either way the scope owns it and closes it.

Threading: a scope, like its store, belongs to the thread that opened it; another thread
gets :class:`~cairn.errors.StoreUnavailable` (see :mod:`cairn.store.protocol`). A server
holds one engine per thread (or serialises calls to one engine itself).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ..embed.vectors import attach as attach_embedder
from ..embed.vectors import warm as warm_embedder
from ..errors import AmbiguousId, InvalidInput, NotFound, echo
from ..model import Actor, Memory
from ..store import Backend, discard_if_empty, is_database_url, open_store, skipped_rows
from .paths import default_db_path as default_db_path  # re-exported: its home before paths.py
from .validate import as_time, redact_text

if TYPE_CHECKING:
    from .mutation import Mutation

_SPACE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_ID_RE = re.compile(r"[0-9a-z_-]+")
MIN_PREFIX = 6
ID_MAX = 128  # longer than any id Cairn writes (24) or imports; longer refs are refused unread
ID_TABLES = {"memories": "memory", "events": "event", "relations": "relation"}

Clock = Callable[[], datetime]


def discard_new_store(path: str) -> bool:
    """Delete the database file at ``path`` if it holds nothing (a command that created
    it was refused): True when deleted. For interfaces cleaning up after a refusal."""
    return discard_if_empty(path)


def _env_timeout(text: str) -> float:
    """``CAIRN_BUSY_TIMEOUT``: a finite number of seconds from 0 to a day."""
    try:
        value = float(text)
    except ValueError:
        raise InvalidInput("CAIRN_BUSY_TIMEOUT", f"{echo(text)} is not a number of seconds") from None
    if not 0 <= value <= 86_400:  # NaN and the infinities fail this too
        raise InvalidInput("CAIRN_BUSY_TIMEOUT", f"{echo(text)} is not a number of seconds from 0 to 86400")
    return value


def make_clock(now: datetime | str | Clock | None) -> Clock:
    """A clock from a fixed time (datetime or ISO-8601), a callable, or None (the machine's)."""
    if callable(now):
        return now
    if now is not None:
        fixed = as_time(now, "now")
        assert fixed is not None  # as_time returns None only for None
        return lambda: fixed
    return lambda: datetime.now(UTC)


def check_space(space: object) -> str:
    if not isinstance(space, str) or not _SPACE_RE.match(space):
        raise InvalidInput("space", f"{space!r} (1-64 letters, digits, '.', '_' or '-')")
    return space


class Scope:
    """One store, one space, one clock: the context every engine part is given."""

    def __init__(self, store: Backend, space: str, clock: Clock) -> None:
        self.store = store
        self.space = check_space(space)
        self.clock = clock
        attach_embedder(store)  # with the semantic extra active, texts are embedded in their write
        self._skipped_before = skipped_rows()

    def skipped(self) -> int:
        """Malformed stored rows this scope's reads skipped (counted while it is open)."""
        return skipped_rows() - self._skipped_before

    @classmethod
    def open(
        cls,
        path: str | os.PathLike | None = None,
        *,
        space: str = "default",
        now: datetime | str | Clock | None = None,
        read_only: bool = False,
        create: bool = True,
        busy_timeout: float | None = None,
        store: Backend | None = None,
    ) -> Scope:
        """Open the store at ``path`` (default :func:`default_db_path`), or adopt ``store``.
        ``create=False`` refuses a missing database (:class:`~cairn.errors.NoSuchDatabase`)."""
        space = check_space(space)
        clock = make_clock(now)
        if store is not None:
            if path is not None:
                raise InvalidInput("store", "give a path or a store, not both")
            # How a store is opened is its opener's choice: these would be silently ignored.
            if read_only or busy_timeout is not None or create is not True:
                raise InvalidInput("store", "read_only, create and busy_timeout apply to a path; open the store with them")
            return cls(store, space, clock)
        for flag, value in (("read_only", read_only), ("create", create)):
            if not isinstance(value, bool):
                raise InvalidInput(flag, f"{echo(value)} is not True or False")
        timeout = busy_timeout
        if timeout is None and os.environ.get("CAIRN_BUSY_TIMEOUT"):
            timeout = _env_timeout(os.environ["CAIRN_BUSY_TIMEOUT"])
        if path is not None and not isinstance(path, (str, os.PathLike)):
            raise InvalidInput("database path", f"{echo(path)} is not a path")
        url = os.environ.get("CAIRN_DB")
        target: str | os.PathLike = path if path is not None else url if url and is_database_url(url) else default_db_path()
        return cls(open_store(target, read_only=read_only, create=create, busy_timeout=timeout, now=clock()), space, clock)

    @property
    def path(self) -> str:
        return self.store.path

    def now(self) -> datetime:
        """The engine's clock. Nothing in Cairn reads the machine clock elsewhere."""
        return self.clock()

    def close(self) -> None:
        self.store.close()

    # -- ids ---------------------------------------------------------------------------

    def resolve_id(self, ref: str, table: str = "memories") -> str:
        """A full id or a unique prefix (≥6 chars) of one in this space."""
        if not isinstance(table, str) or table not in ID_TABLES:
            raise InvalidInput("table", f"{echo(table)} is not one of {', '.join(ID_TABLES)}")
        what = ID_TABLES[table]
        if ref is not None and not isinstance(ref, str):
            raise InvalidInput(f"{what} id", f"{echo(ref)} is not a string")
        ref = (ref or "").strip().lower()
        if not ref:
            raise InvalidInput(f"{what} id", "empty")
        if len(ref) > ID_MAX or not _ID_RE.fullmatch(ref):
            raise InvalidInput(f"{what} id", f"{echo(ref)} is not an id")
        exact = self.store.ids_with_prefix(table, self.space, ref, limit=21)
        if ref in exact:
            return ref
        if len(ref) < MIN_PREFIX:
            raise InvalidInput(f"{what} id", f"prefix {ref!r} is shorter than {MIN_PREFIX} characters")
        if not exact:
            raise NotFound(what, ref)
        if len(exact) > 1:
            raise AmbiguousId(ref, exact)
        return exact[0]

    def get(self, ref: str) -> Memory:
        """The memory ``ref`` names (an id or a unique prefix) in this space."""
        memory_id = self.resolve_id(ref)
        memory = self.store.get_memory(self.space, memory_id)
        if memory is None:
            raise NotFound("readable memory", ref)  # the row exists but is malformed
        return memory

    # -- writes ------------------------------------------------------------------------

    @contextmanager
    def mutation(self, actor: Actor, reason: str) -> Iterator[Mutation]:
        """Open one write transaction; on success append exactly one event and commit."""
        from .mutation import Mutation  # imported by the first write: a recall process makes none

        warm_embedder()  # load the semantic extra's model, if active, before taking the write lock
        with self.store.write() as tx:
            mutation = Mutation(tx=tx, space=self.space, actor=actor, reason=redact_text(reason), at=self.now())
            yield mutation
            mutation.finish()


class Part:
    """A part of the engine: the operations of one concern, working in the scope it is
    given. Parts hold no state of their own beyond the scope and the parts passed to them."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    @property
    def space(self) -> str:
        return self.scope.space

    @property
    def store(self) -> Backend:
        return self.scope.store

    def now(self) -> datetime:
        return self.scope.now()
