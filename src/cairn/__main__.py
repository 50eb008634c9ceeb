"""``python -m cairn`` runs the command line."""

from .cli import run

run()
