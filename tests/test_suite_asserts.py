"""Every test asserts something: an ``assert``, ``pytest.raises``/``fail``/``xfail``, or a call
to a function of the same module that does (followed through such calls)."""

from __future__ import annotations

import ast
from pathlib import Path

SUITE = Path(__file__).parent
CHECKS = {"raises", "fail", "xfail", "warns"}  # pytest.<name>(...) decides the outcome too


def _asserting(tree: ast.Module) -> dict[str, bool]:
    """For each function of the module: does it assert, itself or through a local call?"""
    functions = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}

    def direct(node: ast.AST) -> bool:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Assert):
                return True
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr in CHECKS:
                return True
        return False

    def calls(node: ast.AST) -> set[str]:
        return {s.func.id for s in ast.walk(node) if isinstance(s, ast.Call) and isinstance(s.func, ast.Name)} & set(functions)

    result = {name: direct(node) for name, node in functions.items()}
    changed = True
    while changed:  # propagate through local helpers until nothing changes
        changed = False
        for name, node in functions.items():
            if not result[name] and any(result[c] for c in calls(node)):
                result[name] = changed = True
    return result


def _tests_without_assertion() -> list[str]:
    missing = []
    for path in sorted(SUITE.rglob("test_*.py")):
        asserting = _asserting(ast.parse(path.read_text(encoding="utf-8")))
        missing += [f"{path.relative_to(SUITE)}::{name}" for name, ok in asserting.items() if name.startswith("test") and not ok]
    return missing


def test_every_test_function_asserts_something():
    assert _tests_without_assertion() == []


def test_the_scan_flags_a_test_that_only_runs_steps():
    tree = ast.parse(
        "def helper(x):\n    assert x\n"
        "def test_checks_through_a_helper():\n    helper(1)\n"
        "def test_only_runs_steps():\n    print(1)\n"
    )
    assert _asserting(tree) == {"helper": True, "test_checks_through_a_helper": True, "test_only_runs_steps": False}
