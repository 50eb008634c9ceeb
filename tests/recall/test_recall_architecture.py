"""The ranking parts of recall are pure: they import only the model, the tokeniser,
the pure policies, errors and each other — never the store, the engine or an interface."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RECALL = Path(__file__).resolve().parents[2] / "src" / "cairn" / "recall"
PURE = ("query", "score", "phrase", "gates", "rank", "pack")
ALLOWED = {"model", "text", "errors", "policy", *(f"recall.{m}" for m in PURE)}


def _imports(module: str) -> set[str]:
    tree = ast.parse((RECALL / f"{module}.py").read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = "recall" if node.level == 1 else ""
            name = ".".join(p for p in (base, node.module or "") if p)
            found.add(name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and getattr(node, "module", None) and node.module.startswith("cairn"):
            found.add(node.module.removeprefix("cairn."))
    return found


@pytest.mark.parametrize("module", PURE)
def test_pure_recall_module_imports(module):
    for name in _imports(module):
        assert name in ALLOWED or name.split(".")[0] in {"model", "text", "errors", "policy"}, f"{module} imports {name}"
        assert not name.startswith(("store", "engine", "cli")), f"{module} imports {name}"
