"""Relation resolution of a ranked recall (DESIGN §5.7).

Owned by the corrections-and-time work (issue 5), called by the recall pipeline (issue 4)
after ranking and before packing. The contract:

    resolve(view, space, ranked_ids, *, include_history, now) -> list[Resolved]

Given the ranked ids that survived the gates (best first), return the list to pack, in
order: a corrected/superseded hit replaced by its newest correcting record (marker
``corrected``, the older refs in ``corrects``); an unresolved ``contradicts`` pair marked
``contradicted`` on both sides; a superseded *decision* placed directly after its selected
successor with marker ``historical-rationale`` and ``superseded_by`` set. The packer must
never emit a ``historical-rationale`` item unless the item named by its ``superseded_by``
was emitted immediately before it.

This first version returns the ids unchanged (no relations yet).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class Resolved:
    id: str
    markers: tuple[str, ...] = ()
    corrects: tuple[str, ...] = ()  # older refs this record corrects/supersedes
    contradicts: tuple[str, ...] = ()  # refs of unresolved contradicting records
    superseded_by: str | None = None  # for historical-rationale items
    matched: str | None = None  # the id that matched the query, when it was replaced


def resolve(view, space: str, ranked_ids: list[str], *, include_history: bool, now: datetime) -> list[Resolved]:
    return [Resolved(i) for i in ranked_ids]
