"""CLI commands of the learn group. Placeholder: the owning work registers its commands here."""

from __future__ import annotations


def register(sub) -> None:
    """Add this group's subcommands to the `cairn` parser."""
