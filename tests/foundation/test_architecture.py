"""Import layering of STYLE.md, checked by parsing every module's imports:

model imports nothing of ours; text is a leaf; policy and the ranking parts of recall
import only model (and text); store imports model (and text); engine composes;
interfaces (cli, mcp) import only engine, model, errors (and their own package)."""

from __future__ import annotations

import ast
from pathlib import Path

import cairn

PACKAGE = Path(cairn.__file__).parent

ALLOWED: dict[str, set[str]] = {
    "model": {"model"},
    "text": set(),
    "errors": set(),
    "plugins": {"errors"},
    "embed": {"embed", "plugins", "errors"},
    "policy": {"policy", "model", "text"},
    "store": {"store", "model", "text", "errors"},
    "recall": {"recall", "model", "text", "policy", "store", "errors", "plugins"},
    "learn": {"learn", "model", "text", "policy", "errors", "plugins"},
    "engine": {"engine", "model", "text", "policy", "store", "recall", "learn", "errors"},
    "cli": {"cli", "engine", "model", "errors", "bench"},
    "mcp": {"engine", "model", "errors"},
    "bench": {"bench", "engine", "model", "errors", "text", "store", "recall", "policy", "learn"},
}
# Pure parts of recall: only model/text/policy, never the store or the engine.
PURE_RECALL = {"text", "query", "score", "phrase", "gates", "rank", "pack"}


def _internal_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = path.relative_to(PACKAGE).with_suffix("")
    depth = len(rel.parts) - 1  # package depth of the module
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(rel.parts[: depth - (node.level - 1)]) if node.level - 1 <= depth else []
                target = base + (node.module.split(".") if node.module else [])
                if not target:  # `from . import x` at package top
                    target = [alias.name for alias in node.names]
                found.add(target[0] if target else "")
            elif node.module and node.module.split(".")[0] == "cairn":
                parts = node.module.split(".")
                found.add(parts[1] if len(parts) > 1 else "")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "cairn":
                    found.add(parts[1] if len(parts) > 1 else "")
    return found


def _layer(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0].removesuffix(".py")


def test_layering_holds():
    violations = []
    for path in PACKAGE.rglob("*.py"):
        layer = _layer(path)
        if layer in ("__init__", "__main__"):
            continue
        allowed = ALLOWED.get(layer)
        assert allowed is not None, f"{path}: new top-level module {layer!r}; add it to ALLOWED"
        for target in _internal_imports(path) - {layer}:
            if target not in allowed:
                violations.append(f"{path.relative_to(PACKAGE)} imports cairn.{target}")
    assert violations == []


def test_pure_recall_parts_do_not_touch_storage():
    violations = []
    for path in (PACKAGE / "recall").glob("*.py"):
        if path.stem in PURE_RECALL:
            bad = _internal_imports(path) & {"store", "engine", "cli", "bench"}
            if bad:
                violations.append(f"{path.name} imports {sorted(bad)}")
    assert violations == []


def test_the_checker_sees_a_violation(tmp_path):
    # Negative control: the parser really finds an upward import.
    fake = PACKAGE / "model" / "_layering_probe.py"
    fake.write_text("from ..engine import Cairn\n")
    try:
        assert "engine" in _internal_imports(fake)
    finally:
        fake.unlink()
