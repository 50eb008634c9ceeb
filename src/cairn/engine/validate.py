"""Input validation shared by every write: size limits, times, and the cleaning of text
that is about to be stored (secrets redacted before anything reaches the store).

Each function either returns the cleaned value or raises :class:`~cairn.errors.InvalidInput`
naming the field, so a refused write never gets as far as opening a transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from functools import wraps
from inspect import isfunction
from typing import Any, TypeVar

from ..errors import InvalidInput, echo
from ..model import BadTime, Kind, UnknownValue, parse_enum, parse_time
from ..policy.redaction import redact


@dataclass(frozen=True, slots=True, repr=False, eq=False)
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

E = TypeVar("E", bound=StrEnum)
T = TypeVar("T")
R = TypeVar("R")


def choice(cls: type[E], value: object, field: str) -> E:
    """``value`` as a member of the closed vocabulary ``cls`` (a member, or its exact
    spelling); InvalidInput listing the choices otherwise."""
    try:
        return parse_enum(cls, value, field)
    except UnknownValue as err:
        raise InvalidInput(field, str(err)) from None


def optional_choice(cls: type[E], value: object, field: str) -> E | None:
    """As :func:`choice`, with None passing through (a field that may be left unset)."""
    return None if value is None else choice(cls, value, field)


# The times Cairn accepts: wide enough for any history a memory records, narrow enough
# that the policies' arithmetic (ages, windows, horizons of years) never leaves the calendar.
EARLIEST = datetime(100, 1, 1, tzinfo=UTC)
LATEST = datetime(9899, 12, 31, 23, 59, 59, tzinfo=UTC)


def as_time(value: datetime | str | None, field: str) -> datetime | None:
    """Accept a datetime or an ISO-8601 string between :data:`EARLIEST` and
    :data:`LATEST`; raise InvalidInput otherwise. A naive datetime is read as UTC."""
    if value is None:
        return None
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
        try:
            moment.astimezone(UTC)
        except (OverflowError, ValueError):
            raise InvalidInput(field, f"{echo(str(value))} lies outside the calendar in UTC") from None
    elif isinstance(value, str):
        try:
            moment = parse_time(value)
        except BadTime:
            raise InvalidInput(field, f"not an ISO-8601 time: {echo(value)}") from None
    else:
        raise InvalidInput(field, f"{echo(value)} is not a time (an ISO-8601 string or a datetime)")
    if not EARLIEST <= moment <= LATEST:
        raise InvalidInput(field, f"{echo(str(value))} is outside the supported years {EARLIEST.year}-{LATEST.year}")
    return moment


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def redact_text(text: str) -> str:
    """``text`` with secrets replaced by their redaction markers."""
    return redact(text)[0]


def clean_content(text: object, kind: Kind) -> str:
    """The stripped, redacted body of a claim or an episode, within its size limits."""
    if not isinstance(text, str):
        raise InvalidInput("text", "not a string")
    if "\x00" in text:
        raise InvalidInput("text", "contains a NUL character")
    if not _utf8(text):
        raise InvalidInput("text", "not valid UTF-8 (a lone surrogate)")
    stripped = text.strip()
    if not stripped:
        raise InvalidInput("text", "empty")
    cleaned = redact_text(stripped)
    if kind is Kind.EPISODE:
        if len(cleaned) > LIMITS.episode_max:
            raise InvalidInput("text", f"{len(cleaned)} characters; an episode holds at most {LIMITS.episode_max}")
    elif not LIMITS.claim_min <= len(cleaned) <= LIMITS.claim_max:
        raise InvalidInput("text", f"{len(cleaned)} characters; a claim holds {LIMITS.claim_min}-{LIMITS.claim_max}")
    return cleaned


def clean_aliases(aliases: Iterable[object] | None) -> tuple[str, ...]:
    """Whitespace-folded, redacted aliases without case-insensitive repeats, within limits."""
    out: list[str] = []
    for alias in aliases or ():
        if not isinstance(alias, str):
            raise InvalidInput("alias", "not a string")
        alias = " ".join(alias.split())
        if not LIMITS.alias_min <= len(alias) <= LIMITS.alias_max:
            raise InvalidInput("alias", f"{alias!r} must be {LIMITS.alias_min}-{LIMITS.alias_max} characters")
        alias = redact_text(alias)
        if alias.casefold() not in (a.casefold() for a in out):
            out.append(alias)
    if len(out) > LIMITS.aliases_max:
        raise InvalidInput("alias", f"{len(out)} aliases; at most {LIMITS.aliases_max}")
    return tuple(out)


def clean_origin(origin: str | None) -> str:
    """An origin (provenance inside a space): printable, at most ``LIMITS.origin_max``
    long, redacted like every stored text (a host may pass a URL with credentials in it)."""
    if origin is not None and not isinstance(origin, str):
        raise InvalidInput("origin", f"{echo(origin)} is not a string")
    origin = (origin or "").strip()
    if len(origin) > LIMITS.origin_max or any(ord(c) < 32 for c in origin):
        raise InvalidInput("origin", f"must be at most {LIMITS.origin_max} printable characters")
    return redact_text(origin)


# -- arguments of the Python API --------------------------------------------------------
# The facade checks each argument's type and range before delegating, so a caller's
# mistake is an InvalidInput naming the argument, never an AttributeError from deep inside.

COUNT_MAX = 1_000_000  # any limit, page or budget a caller may ask for
TIMELINE_MAX = 200  # states listed by one timeline


def check_str(value: object, field: str, *, optional: bool = False) -> str | None:
    """A string argument that can be stored (valid UTF-8, no lone surrogates); None passes
    when ``optional``."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise InvalidInput(field, f"{echo(value)} is not a string")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(field, "not valid UTF-8 (a lone surrogate)") from None
    return value


def check_int(value: object, field: str, low: int = 1, high: int = COUNT_MAX) -> int:
    """An integer argument within ``low..high`` (booleans are not integers here)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(field, f"{echo(value)} is not an integer")
    if not low <= value <= high:
        raise InvalidInput(field, f"{echo(value)} is outside {low}-{high}")
    return value


def check_bool(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInput(field, f"{echo(value)} is not True or False")
    return value


def check_number(value: object, field: str, low: float, high: float) -> float:
    """A finite real number within ``low..high`` (NaN and infinities fail the range)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidInput(field, f"{echo(value)} is not a number")
    if not low <= value <= high:
        raise InvalidInput(field, f"{echo(value)} is outside {low:g}-{high:g}")
    return float(value)


def check_time_arg(value: object, field: str) -> None:
    """A time argument: None, a datetime or an ISO-8601 string in the supported range."""
    if value is not None:
        as_time(value, field)  # type: ignore[arg-type]


def check_strings(values: object, field: str) -> None:
    """An iterable of strings (not one string, which would iterate as characters)."""
    if values is None:
        return
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise InvalidInput(field, f"{echo(values)} is not a list of strings")
    for value in list(values):
        check_str(value, field)


def input_errors(cls: type[T]) -> type[T]:
    """Translate what only a caller's input can raise deep inside (text that is not
    UTF-8, JSON nested beyond the stack, numbers beyond SQLite or the calendar) into
    InvalidInput, in every public method of ``cls``. A write interrupted so rolls back."""
    for name, fn in list(vars(cls).items()):
        if not name.startswith("_") and isfunction(fn):
            setattr(cls, name, _translated(fn))
    return cls


def _translated(fn: Callable[..., R]) -> Callable[..., R]:
    @wraps(fn)
    def call(*args: Any, **kwargs: Any) -> R:
        try:
            return fn(*args, **kwargs)
        except UnicodeError:
            raise InvalidInput("text", "not valid UTF-8 (a lone surrogate or undecodable bytes)") from None
        except RecursionError:
            raise InvalidInput("input", "nested too deeply") from None
        except OverflowError:
            raise InvalidInput("number", "too large (a count, a size or a date beyond what Cairn holds)") from None

    return call
