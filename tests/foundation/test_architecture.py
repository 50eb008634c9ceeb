"""The architecture, checked by parsing every module of the package (no imports run):

* layering: ``model`` imports nothing of ours; ``text`` and ``errors`` are leaves;
  ``policy`` and the ranking parts of ``recall`` import only ``model`` (and ``text``,
  ``errors``, ``policy``); ``store`` imports ``model``; ``engine`` composes; interfaces
  import only ``engine``, ``model``, ``errors`` (and the shared ``wire``/``plugins``);
* the storage seam: no SQL text, no database-driver import and no ``.conn`` anywhere
  outside ``cairn/store/`` — everything else reaches data through ``cairn.store.protocol``.

Each rule has a negative control that runs the same checker on a probe file written
under a temporary folder.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import cairn

PACKAGE = Path(cairn.__file__).parent

# Top-level module -> the top-level modules it may import. A new module needs a row.
ALLOWED: dict[str, set[str]] = {
    "model": {"model"},
    "text": set(),
    "errors": set(),
    "wire": {"wire", "model", "errors"},
    "plugins": {"plugins", "errors"},
    "embed": {"embed", "model", "errors", "plugins"},
    "policy": {"policy", "model", "text"},
    "store": {"store", "model", "text", "errors"},
    "recall": {"recall", "model", "text", "policy", "store", "errors", "wire", "plugins", "embed"},
    "learn": {"learn", "model", "text", "policy", "errors", "plugins"},
    "engine": {"engine", "model", "text", "policy", "store", "recall", "learn", "errors", "wire", "plugins", "embed",
               "archive"},
    "cli": {"cli", "engine", "model", "errors", "bench", "wire", "plugins", "host", "mcp", "web"},
    "mcp": {"mcp", "engine", "model", "errors", "wire"},
    "host": {"host", "engine", "model", "errors", "wire"},
    "web": {"web", "engine", "model", "errors", "wire", "mcp"},
    "archive": {"archive", "model"},
    "bench": {"bench", "engine", "model", "errors", "text", "store", "recall", "policy", "learn", "cli", "embed",
              "host"},  # host: the host benchmark runs the warm server it measures
}
# The ranking parts of recall: pure functions of their inputs. They import only these
# layers and each other — never the store, the engine or an interface.
PURE_RECALL = ("query", "kinds", "score", "phrase", "gates", "rank", "pack", "triage", "triage_rules")
PURE_ALLOWED = {"model", "text", "errors", "policy"}

DRIVERS = {"sqlite3", "psycopg", "psycopg2", "psycopg_pool", "apsw", "sqlite_utils", "sqlalchemy"}
SQL_RE = re.compile(
    r"\b(SELECT\s.+?\sFROM|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|"
    r"CREATE\s+(TEMP\s+|VIRTUAL\s+|UNIQUE\s+)?(TABLE|INDEX|VIEW)|DROP\s+(TABLE|INDEX)|ALTER\s+TABLE|PRAGMA\s+\w+|"
    r"\w+\s+MATCH\s+\?)",
    re.DOTALL,
)


def _modules(root: Path = PACKAGE):
    for path in sorted(root.rglob("*.py")):
        yield path, path.relative_to(root)


def _imports(tree: ast.AST, rel: Path) -> set[str]:
    """Dotted names of the ``cairn`` modules a file imports, relative to the package
    (``recall.score``, ``model``); ``rel`` is the file's path inside the package."""
    depth = len(rel.parts) - 1  # package depth of the module
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(rel.parts[: depth - (node.level - 1)]) if node.level - 1 <= depth else []
                target = base + (node.module.split(".") if node.module else [])
                if node.module is None and len(base) == 0:  # `from . import x` at package top
                    found.update(alias.name for alias in node.names)
                elif target:
                    found.add(".".join(target))
            elif node.module and node.module.split(".")[0] == "cairn":
                found.add(node.module.removeprefix("cairn").lstrip("."))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "cairn":
                    found.add(alias.name.removeprefix("cairn").lstrip("."))
    return {f for f in found if f}


def _layer(rel: Path) -> str:
    return rel.parts[0].removesuffix(".py")


def _layering_violations(path: Path, rel: Path) -> list[str]:
    layer = _layer(rel)
    if layer in ("__init__", "__main__", "py.typed"):
        return []
    allowed = ALLOWED.get(layer)
    if allowed is None:
        return [f"{rel}: new top-level module {layer!r}; add it to ALLOWED"]
    targets = {t.split(".")[0] for t in _imports(ast.parse(path.read_text(encoding="utf-8")), rel)}
    return [f"{rel} imports cairn.{t}" for t in sorted(targets - {layer} - allowed)]


def _pure_violations(path: Path, rel: Path) -> list[str]:
    bad = []
    for name in _imports(ast.parse(path.read_text(encoding="utf-8")), rel):
        top = name.split(".")[0]
        pure_sibling = top == "recall" and name.split(".")[1:2] and name.split(".")[1] in PURE_RECALL
        if top not in PURE_ALLOWED and not pure_sibling:
            bad.append(f"{rel} imports cairn.{name}")
    return bad


def _is_query_escaping(node: ast.AST) -> bool:
    """``x.replace('"', '""')`` (FTS5 quoting) or ``x.replace("%", "\\%")`` (LIKE escaping)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "replace"):
        return False
    args = [a.value for a in node.args if isinstance(a, ast.Constant)]
    return args in (['"', '""'], ["%", "\\%"])


def _seam_violations(path: Path, rel: Path) -> list[str]:
    """SQL text, a driver import or a ``.conn`` outside the store."""
    if rel.parts[0] == "store":
        return []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            out += [f"{rel}:{line} imports {a.name}" for a in node.names if a.name.split(".")[0] in DRIVERS]
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] in DRIVERS:
            out.append(f"{rel}:{line} imports {node.module}")
        elif isinstance(node, ast.Attribute) and node.attr == "conn":
            out.append(f"{rel}:{line} uses .conn")
        elif _is_query_escaping(node):
            out.append(f"{rel}:{line} escapes query syntax (FTS quoting or LIKE escaping)")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and (sql := SQL_RE.search(node.value)):
            out.append(f"{rel}:{line} holds SQL {sql.group(0)!r}")
    return out


# -- the rules ---------------------------------------------------------------------------


def test_layering_holds():
    assert [v for path, rel in _modules() for v in _layering_violations(path, rel)] == []


def test_pure_recall_parts_import_only_pure_layers():
    found = [rel.stem for _, rel in _modules(PACKAGE / "recall")]
    assert set(PURE_RECALL) <= set(found)  # the list names real modules
    violations = []
    for name in PURE_RECALL:
        path = PACKAGE / "recall" / f"{name}.py"
        violations += _pure_violations(path, path.relative_to(PACKAGE))
    assert violations == []


def test_nothing_outside_the_store_touches_the_database():
    assert [v for path, rel in _modules() for v in _seam_violations(path, rel)] == []


def test_the_store_itself_is_where_sql_lives():
    # Positive control for the exemption: the checker would flag the SQLite backend.
    backend = PACKAGE / "store" / "sqlite" / "backend.py"
    assert _seam_violations(backend, Path("engine") / "backend.py")


# -- negative controls on probe files ---------------------------------------------------


@pytest.fixture
def probe(tmp_path):
    def write(text: str) -> Path:
        path = tmp_path / "probe.py"
        path.write_text(text, encoding="utf-8")
        return path

    return write


def test_the_layering_checker_sees_an_upward_import(probe):
    path = probe("from ..engine import Cairn\n")
    assert _layering_violations(path, Path("model") / "probe.py") == ["model/probe.py imports cairn.engine"]
    assert _layering_violations(path, Path("engine") / "probe.py") == []  # control: allowed there


def test_the_layering_checker_sees_an_unlisted_module(probe):
    path = probe("x = 1\n")
    assert "add it to ALLOWED" in _layering_violations(path, Path("newthing") / "probe.py")[0]


def test_the_pure_checker_sees_a_store_import(probe):
    path = probe("from ..store import ReadView\nfrom .score import idf\nfrom .candidates import fetch\n")
    assert sorted(_pure_violations(path, Path("recall") / "probe.py")) == [
        "recall/probe.py imports cairn.recall.candidates",
        "recall/probe.py imports cairn.store",
    ]


@pytest.mark.parametrize(
    "source, what",
    [
        ("import sqlite3\n", "imports sqlite3"),
        ("from psycopg import sql\n", "imports psycopg"),
        ("def f(view):\n    return view.conn\n", "uses .conn"),
        ('Q = "SELECT id FROM memories WHERE space = ?"\n', "holds SQL"),
        ('Q = f"UPDATE memories SET data = {1}"\n', "holds SQL"),
        ("Q = 'memories_fts MATCH ?'\n", "holds SQL"),
        ("def q(t):\n    return '\"' + t.replace('\"', '\"\"') + '\"'\n", "escapes query syntax"),
        ("def q(t):\n    return t.replace('%', '\\\\%')\n", "escapes query syntax"),
    ],
)
def test_the_seam_checker_sees_each_breach(probe, source, what):
    path = probe(source)
    [found] = _seam_violations(path, Path("recall") / "probe.py")
    assert what in found
    assert _seam_violations(path, Path("store") / "probe.py") == []  # the store may


def test_the_seam_checker_passes_plain_code(probe):
    path = probe('"""Select the best match from the index."""\nfrom ..store import ReadView\nx = view.connect\n')
    assert _seam_violations(path, Path("recall") / "probe.py") == []
