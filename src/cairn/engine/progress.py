"""Progress bars for long work on the facade (embed, ingest, learn), drawn on stderr.

The facade draws one only when asked to (``progress=True``) or, by default, when stderr
is a terminal and the work is long; scripts and pipes see nothing. Standard library
only: a one-shot process that never draws one pays nothing for it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

Bar = Callable[[int, int], None]  # (items done so far, items in all)


def stderr_bar(label: str, unit: str, *, width: int = 30, stream: TextIO | None = None) -> Bar:
    """A one-line bar redrawn in place, with the running rate; it ends its line when
    ``done`` reaches ``total``."""
    started = time.perf_counter()
    out = stream if stream is not None else sys.stderr

    def show(done: int, total: int) -> None:
        share = min(done / total, 1.0) if total else 1.0
        filled = int(share * width)
        rate = done / max(time.perf_counter() - started, 1e-9)
        end = "\n" if done >= total else ""
        print(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} {unit}, {rate:.0f}/s",
              end=end, file=out, flush=True)

    return show


def staged_bars(command: str, units: dict[str, str], *, stream: TextIO | None = None) -> Callable[[str, int, int], None]:
    """One bar per stage of a command (``learn: extract``, ``learn: episodes``), each
    started when its stage first reports; a stage not in ``units`` draws nothing."""
    bars: dict[str, Bar] = {}

    def show(stage: str, done: int, total: int) -> None:
        if stage not in units:
            return
        if stage not in bars:
            bars[stage] = stderr_bar(f"{command}: {stage}", units[stage], stream=stream)
        bars[stage](done, total)

    return show


def chosen(progress: object, total: int, make: Callable[[], Callable], *, minimum: int = 1) -> Callable | None:
    """The reporter a facade call uses, from its ``progress`` argument: the caller's own
    callable; a bar (``make()``) when it is ``True``, or when it is ``None`` and stderr is
    a terminal and the work has at least ``minimum`` items; else none (``False``)."""
    if callable(progress):
        return progress
    if progress is True or (progress is None and total >= max(minimum, 1) and sys.stderr.isatty()):
        return make()
    return None
