"""CLI command group ``labels``: the space's topic/entity vocabulary."""

from __future__ import annotations

import argparse
import sys

from .. import wire
from ..engine import Cairn
from ..errors import InvalidInput
from .common import Output, add_command

_DESCRIPTION = """\
A space's vocabulary of canonical topic and entity ids, each with optional aliases:

  {"topics":   {"field_test": {"aliases": ["field test"]}},
   "entities": {"observatory_captain": ["observatory captain"]}}

Strict at ingestion: remember --topic/--entity, apply (batch or claim "topics"/"entities")
and import refuse a label that is not a canonical id here, naming where it is, and write
nothing. A label repeated in many records is still refused. Permissive at query time:
recall --topic with an unknown hint warns and runs.

  labels show            the vocabulary
  labels import FILE     replace the vocabulary (JSON); reports stored labels it lacks
  labels check           validate every stored record's labels (read-only; exit 1 on any)
  labels match TEXT      the labels whose id or alias occurs in TEXT"""


def register(sub) -> None:
    group = sub.add_parser("labels", help="topic/entity vocabulary: show, import, check, match",
                           description=_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    inner = group.add_subparsers(dest="labels_command", metavar="ACTION", required=True)
    add_command(inner, "show", "the space's vocabulary", cmd_show, description="Print the space's vocabulary.")
    p = add_command(inner, "import", "replace the vocabulary from a JSON file", cmd_import,
                    description="Replace the space's vocabulary with FILE (JSON, '-' for standard input). A bad file\n"
                                "is refused and the old vocabulary kept. Stored labels the new one lacks are listed.")
    p.set_defaults(creates_db=True)  # the vocabulary comes first: labelled writes need it
    p.add_argument("file", help="vocabulary file (JSON), '-' for standard input")
    add_command(inner, "check", "validate stored labels (read-only)", cmd_check,
                description="Check every stored record's topics and entities (any status) against the vocabulary\n"
                            "with the validator the write paths use. Exit 1 naming each unknown label.")
    p = add_command(inner, "match", "labels whose id or alias occurs in a text", cmd_match,
                    description="The labels recognised in TEXT: ASCII aliases on word boundaries, CJK aliases as\n"
                                "substrings of at least two characters.")
    p.add_argument("text", help="the text to look in")


def cmd_show(cairn: Cairn, args) -> Output:
    vocabulary = cairn.labels()
    doc = wire.vocabulary(vocabulary)
    lines = [f"{name[:-1]} {label}" + (f"  ({', '.join(aliases)})" if aliases else "")
             for name in ("topics", "entities") for label, aliases in sorted(vocabulary.namespace(name).items())]
    return Output(doc, "\n".join(lines) or "the vocabulary is empty: every label is refused")


def cmd_import(cairn: Cairn, args) -> Output:
    try:
        text = sys.stdin.read() if args.file == "-" else open(args.file, encoding="utf-8").read()  # noqa: SIM115
    except OSError as err:
        raise InvalidInput("vocabulary file", f"{args.file}: {err.strerror}") from None
    except UnicodeDecodeError:
        raise InvalidInput("vocabulary file", f"{args.file} is not UTF-8 text") from None
    imported = cairn.labels_import(text)
    v = imported.vocabulary
    doc = wire.labels_imported(v, imported.stale)
    stderr = [f"cairn: warning: {p} (the new vocabulary lacks it; see `cairn labels check`)" for p in imported.stale]
    return Output(doc, f"imported {len(v.topics)} topics and {len(v.entities)} entities", stderr=stderr)


def cmd_check(cairn: Cairn, args) -> Output:
    problems = cairn.labels_check()
    if not problems:
        return Output(wire.labels_checked(problems), "every stored label is in the vocabulary")
    return Output(wire.labels_checked(problems), "\n".join(str(p) for p in problems), exit_code=1,
                  stderr=[f"cairn: {len(problems)} stored label(s) are not in the vocabulary"])


def cmd_match(cairn: Cairn, args) -> Output:
    found = cairn.labels_recognise(args.text)
    text = "\n".join(f"{name[:-1]} {label}" for name, labels in found.to_dict().items() for label in labels)
    return Output(wire.labels_matched(found), text or "no label recognised")
