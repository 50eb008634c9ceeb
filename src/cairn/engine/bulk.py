"""What the bulk writes (import, ingest, ``remember_many``) share.

:func:`collector_paused`: Python's cyclic garbage collector stays off for the length of
one bulk call. Such a call allocates a few container objects per record (decoded JSON,
snapshot dicts, rows) and frees none of them until it ends, so each automatic collection
walks everything the call holds so far for nothing: about a sixth of the CPU of an
import of 20,000 records. Reference counting still frees what it frees; cycles made
during the call are collected at the next automatic collection after it.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, TypeVar, cast


@contextmanager
def collector_paused() -> Iterator[None]:
    """Disable the cyclic collector inside the block and enable it again after, also on
    an error; a collector already off (the caller's choice) is left off."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


F = TypeVar("F", bound=Callable[..., Any])


def bulk(fn: F) -> F:
    """Run ``fn`` with the collector paused (see :func:`collector_paused`)."""

    @wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        with collector_paused():
            return fn(*args, **kwargs)

    return cast(F, call)
