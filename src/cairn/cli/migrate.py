"""CLI command ``cairn migrate SRC DST``: copy one space of a store into another store
(SQLite file to PostgreSQL URL, or back, or any pair), through the export format.

SRC is opened read-only and must exist; DST is created when missing and must hold
nothing in that space (a copy into a space already in use would mix two histories). The
export of SRC is streamed to a temporary file (never held in memory), imported into DST
in one all-or-nothing transaction, then DST is exported again and compared with SRC's
export byte for byte: a difference is an error (exit 1) naming the first differing line.
"""

from __future__ import annotations

import filecmp
import os
import sys
import tempfile

from .. import wire
from ..engine import Cairn
from ..errors import Refused
from .common import Output, add_command


def register(sub) -> None:
    """Add ``migrate`` to the `cairn` parser."""
    p = add_command(
        sub, "migrate", "copy a space from one store to another (SQLite <-> PostgreSQL)", cmd_migrate, needs_db=False,
        description="Copy the space named by --space (default 'default') from the store SRC into the store DST:\n"
                    "each a SQLite file path or a postgresql:// URL. SRC is only read; DST is created when\n"
                    "missing and must hold nothing in that space. Records, relations and events (the full\n"
                    "history) are copied through the export format, and DST's export is then checked to be\n"
                    "byte-identical to SRC's. Progress goes to stderr.",
    )
    p.add_argument("src", metavar="SRC", help="the store to copy from (path or postgresql:// URL)")
    p.add_argument("dst", metavar="DST", help="the store to copy into (path or postgresql:// URL)")


def _progress(text: str) -> None:
    print(f"cairn migrate: {text}", file=sys.stderr, flush=True)


def cmd_migrate(_: None, args) -> Output:
    space = args.space
    with tempfile.TemporaryDirectory(prefix="cairn-migrate-") as folder:
        exported, checked = os.path.join(folder, "src.jsonl"), os.path.join(folder, "dst.jsonl")
        with Cairn(args.src, space=space, read_only=True, create=False) as src, \
                Cairn(args.dst, space=space, now=args.now) as dst:
            if dst.status()["memories"] or dst.history(limit=1):
                raise Refused(f"the space {space!r} of {dst.path} already holds records or events; migrate into an empty one")
            with open(exported, "w", encoding="utf-8", newline="") as out:
                counts = wire.exported(src.export(out))
            _progress(f"read {counts['records']} records, {counts['relations']} relations, {counts['events']} events")
            with open(exported, encoding="utf-8", newline="") as lines:
                took = wire.imported(dst.import_(lines))
            _progress(f"wrote {took['records']} records, {took['relations']} relations, {took['events']} events")
            with open(checked, "w", encoding="utf-8", newline="") as out:
                dst.export(out)
            dst_path = dst.path
        if not filecmp.cmp(exported, checked, shallow=False):
            raise Refused(f"the export of {dst_path} differs from the source's ({_first_difference(exported, checked)})")
    doc: wire.MigrateDoc = {"space": space, "copied": took, "identical_export": True}
    return Output(doc, f"copied {took['records']} records, {took['relations']} relations and {took['events']} events of "
                       f"space {space!r}; the two exports are byte-identical")


def _first_difference(a: str, b: str) -> str:
    with open(a, encoding="utf-8") as left, open(b, encoding="utf-8") as right:
        for number, (x, y) in enumerate(zip(left, right, strict=False), start=1):
            if x != y:
                return f"first at line {number}"
    return "one is longer"
