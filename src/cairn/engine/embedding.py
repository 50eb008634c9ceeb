"""``embed`` on the facade: the resumable back-fill of the semantic lane's vectors.

Records written while the semantic extra is active get their vector in their own
transaction (:func:`cairn.embed.vectors.attach`); records written before it was
installed, or imported, have none until ``cairn embed`` fills them in, in chunks of one
transaction each, so an interrupted run keeps what it did and the next one resumes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .. import wire
from ..embed.vectors import backfill, require
from ..errors import StoreUnavailable
from ..wire import EmbedDoc
from .progress import chosen, stderr_bar
from .scope import Part

Progress = Callable[[int, int], None]  # (texts embedded so far, texts missing at the start)


@dataclass(frozen=True, slots=True)
class Embedded:
    """One back-fill run: texts missing at the start (within ``limit``), embedded, still
    missing afterwards, and the time it took."""

    missing_before: int
    embedded: int
    remaining: int
    seconds: float

    def to_dict(self) -> EmbedDoc:
        """The wire form (``embed --json``)."""
        return wire.embedded(missing_before=self.missing_before, embedded=self.embedded, remaining=self.remaining,
                             seconds=self.seconds)


class Embedding(Part):
    """The back-fill of vectors for this space."""

    def embed(self, *, limit: int | None = None, progress: Progress | bool | None = None) -> Embedded:
        """Embed the texts of this space that have no vector yet (at most ``limit``).
        ``progress``: a callback ``(done, total)``, False for none, None for a bar on a
        terminal."""
        model = require()
        if self.store.read_only:
            raise StoreUnavailable(self.store.path, "the database was opened read-only; embedding writes vectors")
        total = self.store.count_missing_vectors(self.space, model.name)  # type: ignore[attr-defined]
        if limit is not None:
            total = min(total, limit)
        report = chosen(progress, total, lambda: stderr_bar("embedding", "texts"))
        done = backfill(self.store, self.space, model, limit=limit,
                        progress=(lambda n: report(n, total)) if report else None)
        return Embedded(total, done.embedded, done.remaining, done.seconds)
