"""The host loop's labelled data (tests/host/*.json): triage sets and the store they run on."""

from __future__ import annotations

import json
from pathlib import Path

HOST_DATA = Path(__file__).resolve().parent.parent / "host"


def load(name: str):
    return json.loads((HOST_DATA / name).read_text(encoding="utf-8"))
