"""The engine's foundation: the store it reads and writes through, the clock, the space,
id resolution, input validation and the mutation context every write goes through.

The store is any :class:`cairn.store.Backend`. ``Cairn(path)`` opens the embedded SQLite
store at ``path`` (the default); ``Cairn(store=backend)`` uses a backend the caller
opened, as an HTTP client accepts a transport — the engine then closes it on ``close()``.
An engine, like its store, belongs to the thread that opened it (see
:mod:`cairn.store.protocol`)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ..errors import AmbiguousId, InvalidInput, NotFound
from ..model import Actor, BadTime, Kind, Memory, parse_time
from ..policy.redaction import redact
from ..store import Backend, open_store
from .mutation import Mutation

_SPACE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
MIN_PREFIX = 6


@dataclass(frozen=True, slots=True)
class Limits:
    """Size limits on what may be stored."""

    claim_min: int = 4
    claim_max: int = 800
    episode_max: int = 20_000
    aliases_max: int = 8
    alias_min: int = 2
    alias_max: int = 64
    origin_max: int = 200


LIMITS = Limits()


def default_db_path() -> Path:
    """``$CAIRN_DB``, else ``$XDG_DATA_HOME/cairn/cairn.db`` (``~/.local/share``)."""
    env = os.environ.get("CAIRN_DB")
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "cairn" / "cairn.db"


def as_time(value: datetime | str | None, field: str) -> datetime | None:
    """Accept a datetime or an ISO-8601 string; raise InvalidInput otherwise."""
    if value is None or isinstance(value, datetime):
        return value if value is None or value.tzinfo else value.replace(tzinfo=UTC)
    try:
        return parse_time(value)
    except BadTime:
        raise InvalidInput(field, f"not an ISO-8601 time: {value!r}") from None


class EngineBase:
    """State and helpers shared by every part of the :class:`~cairn.Cairn` facade."""

    store: Backend

    def __init__(
        self,
        path: str | os.PathLike | None = None,
        *,
        space: str = "default",
        now: datetime | str | Callable[[], datetime] | None = None,
        read_only: bool = False,
        busy_timeout: float | None = None,
        store: Backend | None = None,
    ) -> None:
        if not isinstance(space, str) or not _SPACE_RE.match(space):
            raise InvalidInput("space", f"{space!r} (1-64 letters, digits, '.', '_' or '-')")
        self.space = space
        if callable(now):
            self._clock = now
        elif now is not None:
            fixed = as_time(now, "now")
            assert fixed is not None  # as_time returns None only for None
            self._clock = lambda: fixed
        else:
            self._clock = lambda: datetime.now(UTC)
        if store is not None:
            if path is not None:
                raise InvalidInput("store", "give a path or a store, not both")
            self.store = store
            self.path = store.path
            return
        self.path = str(path if path is not None else default_db_path())
        timeout = busy_timeout
        if timeout is None and os.environ.get("CAIRN_BUSY_TIMEOUT"):
            try:
                timeout = float(os.environ["CAIRN_BUSY_TIMEOUT"])
            except ValueError:
                raise InvalidInput("CAIRN_BUSY_TIMEOUT", "not a number of seconds") from None
        self.store = open_store(self.path, read_only=read_only, busy_timeout=timeout, now=self.now())

    @classmethod
    def open(cls, path: str | os.PathLike | None = None, **options):
        return cls(path, **options)

    def close(self) -> None:
        self.store.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def now(self) -> datetime:
        """The engine's clock. Nothing in Cairn reads the machine clock elsewhere."""
        return self._clock()

    # -- ids ---------------------------------------------------------------------------

    def resolve_id(self, ref: str, table: str = "memories") -> str:
        """A full id or a unique prefix (≥6 chars) of one in this space."""
        what = {"memories": "memory", "events": "event", "relations": "relation"}[table]
        ref = (ref or "").strip().lower()
        if not ref:
            raise InvalidInput(f"{what} id", "empty")
        if not re.fullmatch(r"[0-9a-z_-]+", ref):
            raise InvalidInput(f"{what} id", f"{ref!r} is not an id")
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
        memory_id = self.resolve_id(ref)
        memory = self.store.get_memory(self.space, memory_id)
        if memory is None:
            raise NotFound("readable memory", ref)  # the row exists but is malformed
        return memory

    # -- writes ------------------------------------------------------------------------

    @contextmanager
    def _mutation(self, actor: Actor, reason: str) -> Iterator[Mutation]:
        """Open one write transaction; on success append exactly one event and commit."""
        with self.store.write() as tx:
            mutation = Mutation(tx=tx, space=self.space, actor=actor, reason=self._redact(reason), at=self.now())
            yield mutation
            mutation.finish()

    # -- validation --------------------------------------------------------------------

    @staticmethod
    def _redact(text: str) -> str:
        """``text`` with secrets replaced by their redaction markers."""
        return redact(text)[0]

    def _clean_content(self, text: str, kind: Kind) -> str:
        if not isinstance(text, str):
            raise InvalidInput("text", "not a string")
        if "\x00" in text:
            raise InvalidInput("text", "contains a NUL character")
        stripped = text.strip()
        if not stripped:
            raise InvalidInput("text", "empty")
        cleaned = self._redact(stripped)
        if kind is Kind.EPISODE:
            if len(cleaned) > LIMITS.episode_max:
                raise InvalidInput("text", f"{len(cleaned)} characters; an episode holds at most {LIMITS.episode_max}")
        elif not LIMITS.claim_min <= len(cleaned) <= LIMITS.claim_max:
            raise InvalidInput(
                "text", f"{len(cleaned)} characters; a claim holds {LIMITS.claim_min}-{LIMITS.claim_max}"
            )
        return cleaned

    def _clean_aliases(self, aliases) -> tuple[str, ...]:
        out: list[str] = []
        for alias in aliases or ():
            if not isinstance(alias, str):
                raise InvalidInput("alias", "not a string")
            alias = " ".join(alias.split())
            if not LIMITS.alias_min <= len(alias) <= LIMITS.alias_max:
                raise InvalidInput("alias", f"{alias!r} must be {LIMITS.alias_min}-{LIMITS.alias_max} characters")
            alias = self._redact(alias)
            if alias.casefold() not in (a.casefold() for a in out):
                out.append(alias)
        if len(out) > LIMITS.aliases_max:
            raise InvalidInput("alias", f"{len(out)} aliases; at most {LIMITS.aliases_max}")
        return tuple(out)

    @staticmethod
    def _clean_origin(origin: str | None) -> str:
        origin = (origin or "").strip()
        if len(origin) > LIMITS.origin_max or any(ord(c) < 32 for c in origin):
            raise InvalidInput("origin", f"must be at most {LIMITS.origin_max} printable characters")
        return origin
