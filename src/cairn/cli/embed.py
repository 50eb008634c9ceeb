"""CLI command ``embed``: back-fill the semantic lane's vectors (the semantic extra)."""

from __future__ import annotations

from ..engine import Cairn
from .common import Output, add_command, positive_int

_DESCRIPTION = """\
Embed every text of this space that has no vector yet, for the semantic and hybrid lanes.
Needs the semantic extra: pip install 'cairn-memory[semantic]'.

With the extra installed, records get their vector in the same transaction as the record
itself; this command fills in what was written before (or imported). It works in chunks of
one transaction each, so stopping it (Ctrl-C) keeps what is done, and running it again
resumes. Unchanged texts are never embedded twice: vectors are keyed on the content hash.
A progress bar is drawn on stderr when it is a terminal.
"""


def register(sub) -> None:
    p = add_command(sub, "embed", "back-fill the vectors of the semantic lane (semantic extra)", cmd_embed,
                    description=_DESCRIPTION)
    p.add_argument("--limit", type=positive_int, help="stop after this many texts (default: all)")


def cmd_embed(cairn: Cairn, args) -> Output:
    done = cairn.embed(limit=args.limit)
    doc = done.to_dict()
    text = f"embedded {done.embedded} of {done.missing_before} texts in {done.seconds:.1f} s"
    if done.embedded:
        text += f" ({doc['per_second']}/s)"
    if done.remaining:
        text += f"; {done.remaining} remain (run it again to go on)"
    return Output(doc, text)
