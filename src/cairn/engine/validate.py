"""Input validation shared by every write: size limits, times, and the cleaning of text
that is about to be stored (secrets redacted before anything reaches the store).

Each function either returns the cleaned value or raises :class:`~cairn.errors.InvalidInput`
naming the field, so a refused write never gets as far as opening a transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import TypeVar

from ..errors import InvalidInput
from ..model import BadTime, Kind, UnknownValue, parse_enum, parse_time
from ..policy.redaction import redact


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

E = TypeVar("E", bound=StrEnum)


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


def as_time(value: datetime | str | None, field: str) -> datetime | None:
    """Accept a datetime or an ISO-8601 string; raise InvalidInput otherwise.

    A naive datetime is read as UTC."""
    if value is None or isinstance(value, datetime):
        return value if value is None or value.tzinfo else value.replace(tzinfo=UTC)
    try:
        return parse_time(value)
    except BadTime:
        raise InvalidInput(field, f"not an ISO-8601 time: {value!r}") from None


def redact_text(text: str) -> str:
    """``text`` with secrets replaced by their redaction markers."""
    return redact(text)[0]


def clean_content(text: object, kind: Kind) -> str:
    """The stripped, redacted body of a claim or an episode, within its size limits."""
    if not isinstance(text, str):
        raise InvalidInput("text", "not a string")
    if "\x00" in text:
        raise InvalidInput("text", "contains a NUL character")
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
    """An origin (provenance inside a space): printable, at most ``LIMITS.origin_max`` long."""
    origin = (origin or "").strip()
    if len(origin) > LIMITS.origin_max or any(ord(c) < 32 for c in origin):
        raise InvalidInput("origin", f"must be at most {LIMITS.origin_max} printable characters")
    return origin
