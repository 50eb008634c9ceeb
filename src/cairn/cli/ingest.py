"""CLI commands of the ingest group. Placeholder: the owning work registers `ingest` here."""

from __future__ import annotations


def register(sub) -> None:
    """Add this group's subcommands to the `cairn` parser."""
