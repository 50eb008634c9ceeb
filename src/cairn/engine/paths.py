"""Where Cairn's database lives by default: stdlib and :mod:`cairn.errors` only, so that a
process that needs the path and nothing else (a host hook deciding to stay silent, the
help text) does not import the store.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import InvalidInput


def default_db_path() -> Path:
    """``$CAIRN_DB``, else ``$XDG_DATA_HOME/cairn/cairn.db`` (``~/.local/share``).

    A ``CAIRN_DB`` that is set but empty is refused rather than read as "unset" or as the
    current folder (either would write memories somewhere the user did not choose)."""
    env = os.environ.get("CAIRN_DB")
    if env is not None:
        if not env.strip():
            raise InvalidInput("CAIRN_DB", "set but empty; unset it or give a database path")
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "cairn" / "cairn.db"
