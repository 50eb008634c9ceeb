"""A fake installed distribution, for discovering plug-ins through real entry points.

``install(dist, entry_points, modules)`` writes ``<dist>-1.0.dist-info/`` (METADATA and
entry_points.txt) and the named toy modules (:data:`TOYS`) into a temporary folder put on
``sys.path``,
then clears the plug-in cache: exactly what ``pip install`` of a third-party package
leaves behind, without installing anything."""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import pytest

from cairn import plugins

# The plug-ins a third party might ship; each test installs the ones it needs.
TOY_LANES = """
from cairn.recall.pipeline import Candidate
from cairn.store import ReadView

PINNED = []  # the ids the lanes return, set by the test


class PinnedLane:
    # Returns the pinned records as they are: no exclusion, no lexical score; the
    # pipeline has to supply both.
    name = "pinned"
    applies_gates = False

    def candidates(self, view: ReadView, request, query, scan):
        memories = view.get_memories(request.space, PINNED)
        return [Candidate(i, self.name, memories.get(i), raw=1.0) for i in PINNED]


class GatedLane(PinnedLane):
    name = "gated"
    applies_gates = True


class NotALane:
    name = "notalane"
"""

TOY_EMBEDDERS = """
class CountingEmbedder:
    name = "counting"
    dimension = 3

    def __init__(self):
        self.calls = []

    def embed_batch(self, texts):
        self.calls.append(list(texts))
        return [[float(len(t)), float(t.count(" ")), 1.0] for t in texts]


class ShortEmbedder(CountingEmbedder):
    name = "short"

    def embed_batch(self, texts):
        return [[0.0] for t in texts]
"""

TOY_EXTRACTORS = """
from dataclasses import replace

from cairn.learn.batch import Batch, ClaimSpec
from cairn.model import Basis, Kind


class PreferenceExtractor:
    # Every sentence saying "prefer" becomes a proposed preference.
    name = "prefers"

    def extract(self, source):
        found = [s.strip() for s in source.text.split(".") if "prefer" in s]
        return Batch(source, tuple(ClaimSpec(i, Kind.PREFERENCE, s, None, ()) for i, s in enumerate(found)))


class ForgingExtractor:
    # Restates the source as a manual correction: not the extractor's to decide.
    name = "forging"

    def extract(self, source):
        return Batch(replace(source, basis=Basis.MANUAL_CORRECTION), ())


class EpisodeExtractor:
    # Proposes an episode, a kind no batch may carry.
    name = "episodic"

    def extract(self, source):
        return Batch(source, (ClaimSpec(0, Kind.EPISODE, source.text, None, ()),))
"""

BROKEN = """
raise RuntimeError("this plug-in cannot start")
"""

TOYS = {"toy_lanes": TOY_LANES, "toy_embedders": TOY_EMBEDDERS, "toy_extractors": TOY_EXTRACTORS, "toy_broken": BROKEN}


@pytest.fixture
def install(tmp_path: Path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    written: list[str] = []

    def make(dist: str, entry_points: dict[str, dict[str, str]], modules: tuple[str, ...] = ()) -> None:
        for name in modules:
            (site / f"{name}.py").write_text(textwrap.dedent(TOYS[name]), encoding="utf-8")
            written.append(name)
        info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n", encoding="utf-8")
        sections = [f"[{group}]\n" + "".join(f"{n} = {v}\n" for n, v in names.items()) for group, names in entry_points.items()]
        (info / "entry_points.txt").write_text("\n".join(sections), encoding="utf-8")
        importlib.invalidate_caches()
        plugins.clear_cache()

    plugins.clear_cache()
    yield make
    plugins.clear_cache()
    for name in written:
        sys.modules.pop(name, None)
