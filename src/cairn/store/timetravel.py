"""Record-time reconstruction: what Cairn held at a past moment (DESIGN §6, ``known_at``).

Owned by the corrections-and-time work (issue 5), called by the recall pipeline (issue 4)
when ``known_at`` is given: the pipeline then scores these records instead of the current
ones. The contract:

    records_known_at(view, space, at) -> list[Memory]

Every record as it stood at ``at``, rebuilt from the event log (the newest ``after``
snapshot of each record among events at or before ``at``), so a later correction does not
erase what was known before it.

This first version approximates with the current records created at or before ``at``.
"""

from __future__ import annotations

from datetime import datetime

from ..model import Memory


def records_known_at(view, space: str, at: datetime) -> list[Memory]:
    return [m for m in view.iter_memories(space) if m.created_at <= at]
