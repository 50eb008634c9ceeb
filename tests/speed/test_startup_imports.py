"""What a ``cairn recall`` process and a Claude Code hook process import (docs/benchmarks.md,
"Process start-up"): each runs once per user prompt, so importing a part it does
not use is paid on every prompt.

Each check runs the command in a fresh interpreter and reads ``sys.modules`` after it ran
(tests/speed/test_startup.py does the same for the command groups). The rules:

* **recall** imports only the recall side of the engine (:data:`RECALL_ENGINE`), no
  other command group, no learning, ingest, archive, host, MCP, web or benchmark module,
  and nothing outside the standard library (no numpy, no embedder, no MCP SDK), nor the
  stdlib's heavy optional parts (:data:`HEAVY_STDLIB`);
* **a hook prompt that triage skips whatever is stored** imports exactly
  :data:`HOOK_SKIP` of Cairn, and neither the engine nor ``sqlite3``: it is answered
  before any database is opened;
* **a hook prompt that retrieves** imports what a recall does, plus the host adapter.

Each rule has a negative control: the same checker run on a command that does import the
forbidden parts must name them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Set as AbstractSet
from pathlib import Path

import pytest

from cairn import Cairn
from cairn.engine.pretriage import without_store
from testkit.host import load

# The engine modules a recall needs: the facade, the scope it opens, recall and trust.
RECALL_ENGINE = {"cairn.engine", "cairn.engine.facade", "cairn.engine.paths", "cairn.engine.scope",
                 "cairn.engine.validate", "cairn.engine.mutation", "cairn.engine.recalling", "cairn.engine.trust",
                 "cairn.engine.relations"}
# Layers a recall may use in full (lanes and ranking parts come and go; the layer is the rule).
RECALL_LAYERS = ("cairn.model", "cairn.store", "cairn.recall", "cairn.policy", "cairn.embed")
RECALL_SINGLE = {"cairn", "cairn.errors", "cairn.text", "cairn.wire", "cairn.plugins", "cairn.cli", "cairn.cli.common",
                 "cairn.cli.recall",
                 # the warm path's client: it asks a running `cairn mcp` first (none runs here)
                 "cairn.cli.warm", "cairn.host", "cairn.host.warm"}
# Inside those layers, parts a claims recall must not load.
NEVER = ("cairn.store.postgres", "cairn.recall.lanes.semantic", "cairn.embed.model", "cairn.embed.onnx",
         "cairn.policy.retention", "cairn.policy.authority")
# Standard-library parts that cost a fresh process noticeably and that a recall has no use for.
# (shutil, with bz2 and lzma, is what argparse's stock help formatter imports to read the
# terminal's width: the CLI's formatter reads it only to print help.)
HEAVY_STDLIB = ("importlib.metadata", "email", "zipfile", "tomllib", "asyncio", "concurrent", "ssl", "http",
                "xml", "logging", "subprocess", "multiprocessing", "ctypes", "decimal", "zoneinfo", "uuid",
                "shutil", "bz2", "lzma")

# Exactly what a claims recall process imports of Cairn: the rules above say what it may
# import, this says what it does, so that a new import on the path (a module, or a part
# that a recall reaches only through a constant or a type) shows up here and is justified.
# Not here, and why: engine.relations (a recall needs only TIMELINE_MAX, which lives in
# engine.validate), engine.mutation (imported by the first write).
RECALL_PINNED = {
    "cairn", "cairn.errors", "cairn.text", "cairn.wire", "cairn.plugins",
    "cairn.cli", "cairn.cli.common", "cairn.cli.recall", "cairn.cli.warm", "cairn.host", "cairn.host.warm",
    "cairn.engine", "cairn.engine.facade", "cairn.engine.paths", "cairn.engine.recalling", "cairn.engine.scope",
    "cairn.engine.trust", "cairn.engine.validate",
    "cairn.embed", "cairn.embed.vectors",
    "cairn.model", "cairn.model.codec", "cairn.model.enums", "cairn.model.values",
    "cairn.policy", "cairn.policy.aging", "cairn.policy.confidence", "cairn.policy.maintenance", "cairn.policy.priority",
    "cairn.policy.redaction", "cairn.policy.temporal",
    "cairn.recall", "cairn.recall.candidates", "cairn.recall.explain", "cairn.recall.fusion", "cairn.recall.gates",
    "cairn.recall.kept", "cairn.recall.kinds", "cairn.recall.lanes", "cairn.recall.lanes.claims", "cairn.recall.pack",
    "cairn.recall.phrase", "cairn.recall.pipeline", "cairn.recall.query", "cairn.recall.rank", "cairn.recall.resolve",
    "cairn.recall.score", "cairn.recall.traces", "cairn.recall.variants",
    "cairn.store", "cairn.store.migrations", "cairn.store.protocol", "cairn.store.sqlite", "cairn.store.sqlite.backend",
    "cairn.store.sqlite.fts", "cairn.store.sqlite.vectors", "cairn.store.timetravel",
}

# The dataclasses a recall process creates. Each costs about half a millisecond at import
# (dataclasses generates and compiles its methods), so a per-recall value that needs none
# of what a dataclass adds (replace(), default factories, mutation) is a NamedTuple. These
# remain: the public model values, the named profiles (tests and docs derive them with
# replace()), the request, query and outcome (the pipeline derives them with replace()),
# and the mutable working state (Candidate, Packed). (TrustState and resolve's _Graph are
# plain classes: they needed only the generated constructor, repr and equality.)
RECALL_DATACLASSES = {
    "cairn.model.values." + name for name in ("Change", "Event", "Evidence", "Feedback", "Memory", "Relation", "Source",
                                               "VerdictSlot")
} | {
    "cairn.engine.validate.Limits", "cairn.policy.aging.AgingProfile",
    "cairn.policy.confidence.ConfidenceProfile", "cairn.recall.fusion.SemanticProfile", "cairn.recall.gates.GateProfile",
    "cairn.recall.pack.PackProfile", "cairn.recall.pack.Packed", "cairn.recall.phrase.PhraseProfile",
    "cairn.recall.pipeline.Candidate", "cairn.recall.pipeline.Outcome", "cairn.recall.pipeline.Request",
    "cairn.recall.query.Feature", "cairn.recall.query.ParsedQuery", "cairn.recall.rank.RankProfile",
    "cairn.recall.score.ScoreProfile",
}

HOOK_SKIP = {"cairn", "cairn.errors", "cairn.cli", "cairn.cli.common", "cairn.cli.host", "cairn.engine",
             "cairn.engine.paths", "cairn.engine.pretriage", "cairn.host", "cairn.host.claude_code", "cairn.recall",
             "cairn.recall.triage", "cairn.recall.triage_rules", "cairn.text"}
# A retrieving prompt adds the host adapter, the triage, the warm path's client (it asks a
# running server first, here none) and the key its ledger files the prompt under
# (cairn.learn.signals, not the learning engine).
HOOK_EXTRA = {"cairn.cli.host", "cairn.engine.pretriage", "cairn.engine.triaging", "cairn.host", "cairn.host.warm",
              "cairn.host.claude_code", "cairn.recall.triage", "cairn.recall.triage_rules", "cairn.learn",
              "cairn.learn.signals"}

_PROBE = """
import io, json, sys
stdin = sys.stdin.read()
sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8")), encoding="utf-8")
out = sys.stdout
sys.stdout = io.StringIO()
from cairn.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as stop:
    code = stop.code
printed = sys.stdout.getvalue()
sys.stdout = out
dataclasses = sorted(f"{name}.{value.__qualname__}" for name, module in list(sys.modules.items())
                     if name.split(".")[0] == "cairn" for value in vars(module).values()
                     if isinstance(value, type) and "__dataclass_fields__" in value.__dict__ and value.__module__ == name)
print(json.dumps({"code": code, "printed": printed, "modules": sorted(sys.modules), "dataclasses": dataclasses}))
"""


def _run(*argv: str, stdin: str = "") -> tuple[int, str, set[str]]:
    """Exit code, what the command printed, and every module loaded after it ran.

    As the default install runs: model-free. ``make test`` installs the semantic extra,
    whose hybrid lane loads the embedder by design (docs/semantic.md); ``CAIRN_SEMANTIC=off``
    keeps it inactive here, as if it were not installed."""
    env = dict(os.environ, CAIRN_SEMANTIC="off")
    env.pop("CAIRN_DEFAULT_LANE", None)
    done = subprocess.run([sys.executable, "-c", _PROBE, *argv], input=stdin, capture_output=True, text=True,
                          timeout=120, env=env)
    last = json.loads(done.stdout.strip().splitlines()[-1])
    return last["code"], last["printed"], set(last["modules"])


def _bare() -> set[str]:
    """What the interpreter itself has loaded (site, .pth hooks) before any Cairn code."""
    done = subprocess.run([sys.executable, "-c", "import json, sys; print(json.dumps(sorted(sys.modules)))"],
                          capture_output=True, text=True, timeout=60)
    return set(json.loads(done.stdout))


def _under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def recall_violations(modules: set[str], bare: set[str], extra: AbstractSet[str] = frozenset()) -> list[str]:
    """The modules a recall process should not have loaded (empty when it is lean)."""
    bad = []
    for name in sorted(modules - bare):
        top = name.split(".")[0]
        if top == "cairn":
            allowed = name in RECALL_ENGINE | RECALL_SINGLE | extra or _under(name, RECALL_LAYERS)
            if not allowed or _under(name, NEVER):
                bad.append(name)
        elif top not in sys.stdlib_module_names:
            bad.append(f"{name} (not the standard library)")
        elif _under(name, HEAVY_STDLIB):
            bad.append(f"{name} (heavy standard-library part)")
    return bad


@pytest.fixture(scope="module")
def bare() -> set[str]:
    return _bare()


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("startup") / "cairn.db"
    with Cairn(path, now="2026-06-01T00:00:00Z") as cairn:
        cairn.remember("Billing runs on PostgreSQL 16", kind="decision")
        cairn.remember("The staging deploy runs from the deploy-staging GitHub Actions workflow", kind="fact")
    return path


def _hook(db: Path, prompt: str) -> tuple[int, str, set[str]]:
    payload = json.dumps({"session_id": "s-startup", "prompt": prompt, "cwd": str(db.parent),
                          "hook_event_name": "UserPromptSubmit", "transcript_path": ""})
    return _run("--db", str(db), "--now", "2026-06-02T00:00:00Z", "hook", "claude-code", "user-prompt-submit",
                "--timeout", "30", stdin=payload)


# -- cairn recall ------------------------------------------------------------------------


def test_a_recall_process_imports_only_the_recall_side(store, bare):
    code, printed, modules = _run("--db", str(store), "--json", "recall", "what runs billing?")
    assert code == 0 and "PostgreSQL 16" in printed  # it did recall, and found the record
    assert "cairn.recall.pipeline" in modules and "sqlite3" in modules
    assert recall_violations(modules, bare) == []


def test_a_recall_process_imports_exactly_the_pinned_modules(store, tmp_path):
    code, printed, modules = _run("--db", str(store), "recall", "what runs billing?")
    assert code == 0 and "PostgreSQL 16" in printed
    assert {m for m in modules if m.split(".")[0] == "cairn"} == RECALL_PINNED
    # Control: a write (remember) imports what the pin leaves out.
    code, _, written = _run("--db", str(tmp_path / "w.db"), "remember", "The pin leaves writes out", "--kind", "fact")
    assert code == 0 and "cairn.engine.mutation" in written - RECALL_PINNED


def test_a_recall_process_creates_only_the_pinned_dataclasses(store, tmp_path):
    done = subprocess.run([sys.executable, "-c", _PROBE, "--db", str(store), "recall", "what runs billing?"],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ, CAIRN_SEMANTIC="off"))
    last = json.loads(done.stdout.strip().splitlines()[-1])
    assert last["code"] == 0
    assert set(last["dataclasses"]) == RECALL_DATACLASSES
    # Control: the probe sees a dataclass of a part a recall does not import (a write's).
    done = subprocess.run([sys.executable, "-c", _PROBE, "--db", str(tmp_path / "w.db"), "remember", "A control record",
                           "--kind", "fact"], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, CAIRN_SEMANTIC="off"))
    assert "cairn.engine.mutation.Mutation" in json.loads(done.stdout.strip().splitlines()[-1])["dataclasses"]


def _generated_doc(cls: type) -> bool:
    return (cls.__doc__ or "").startswith(cls.__name__ + "(")


def test_every_dataclass_a_recall_creates_has_its_own_docstring():
    # Without one, dataclasses writes it from inspect.signature(cls), about 70 µs a class
    # of every process's start-up.
    import dataclasses
    import importlib

    missing = [name for name in sorted(RECALL_DATACLASSES)
               if _generated_doc(getattr(importlib.import_module(name.rpartition(".")[0]), name.rpartition(".")[2]))]
    assert missing == []

    # Control: a dataclass without a docstring is seen.
    @dataclasses.dataclass(frozen=True, slots=True)
    class Bare:
        field: int

    assert _generated_doc(Bare)


def test_the_recall_rule_names_what_a_learning_command_imports(store, bare):
    # Negative control: `cairn learn` needs learning, ingest and the extractors.
    code, _, modules = _run("--db", str(store), "learn", "--help")
    assert code == 0
    bad = recall_violations(modules, bare)
    assert "cairn.cli.learn" in bad
    # and a third-party or heavy import is named as such
    assert recall_violations({"numpy", "importlib.metadata", "cairn.engine.capturing"}, set()) == [
        "cairn.engine.capturing", "importlib.metadata (heavy standard-library part)", "numpy (not the standard library)"]


# -- the Claude Code hook --------------------------------------------------------------------


# ("What is the capital of France?" is SKIP too, but because no record holds "France":
# that needs the store, so it is not among these.)
@pytest.mark.parametrize("prompt", ["ok", "thanks!", "/compact", "好的", "how do I reverse a list in python?"])
def test_a_hook_prompt_skipped_on_any_store_never_imports_the_engine(store, prompt):
    code, printed, modules = _hook(store, prompt)
    assert (code, printed) == (0, "")
    assert {m for m in modules if m.split(".")[0] == "cairn"} == HOOK_SKIP
    assert "sqlite3" not in modules


def test_a_retrieving_hook_prompt_imports_what_a_recall_does(store, bare):
    code, printed, modules = _hook(store, "what did we decide about billing?")
    assert code == 0 and "PostgreSQL 16" in printed
    cairn_modules = {m for m in modules if m.split(".")[0] == "cairn"}
    # Negative control of the skip rule: this prompt needs the store, and the set shows it.
    assert cairn_modules != HOOK_SKIP and "sqlite3" in modules
    assert recall_violations(modules, bare, extra=HOOK_EXTRA) == []


# -- the triage a hook answers without a store ----------------------------------------------


@pytest.fixture(scope="module")
def populated_triage(tmp_path_factory):
    path = tmp_path_factory.mktemp("pretriage") / "cairn.db"
    cairn = Cairn(path, now="2026-06-01T00:00:00Z")
    for memory in load("triage_store.json"):
        cairn.remember(memory["content"], kind=memory["kind"])
    yield cairn
    cairn.close()


@pytest.mark.parametrize("name", ["triage_set.json", "triage_heldout.json"])
def test_a_decision_made_without_the_store_is_the_engines_decision(populated_triage, name):
    """Wherever :func:`without_store` decides, the engine (on a populated store) decides the
    same; it decides every message of the labelled sets the engine skips for a reason other
    than the store."""
    rows = load(name)
    decided = 0
    for row in rows:
        early = without_store(row["message"])
        engine = populated_triage.triage(row["message"])
        if early is not None:
            decided += 1
            assert early.to_dict() == engine.to_dict(), row["message"]
    skipped = sum(populated_triage.triage(r["message"]).decision.value == "SKIP" for r in rows)
    assert decided >= skipped * 0.8  # most skips are answered before the store is opened


def test_a_decision_that_depends_on_the_store_is_left_to_the_engine(tmp_path):
    # A Chinese topic word is RETRIEVE only when a record holds it: no early answer.
    assert without_store("周会是几点") is None
    with Cairn(tmp_path / "c.db", now="2026-06-01T00:00:00Z") as cairn:
        assert cairn.triage("周会是几点").decision.value == "SKIP"
        cairn.remember("周会每周一上午十点开", kind="fact")
        assert cairn.triage("周会是几点").decision.value == "RETRIEVE"
    # Control: an acknowledgement is decided early, as SKIP.
    early = without_store("ok")
    assert early is not None and early.decision.value == "SKIP"


# -- what is compiled lazily still compiles ----------------------------------------------------


def test_every_redaction_rule_compiles():
    from cairn.policy.redaction import PATTERNS

    assert len(PATTERNS) > 60
    assert all(pattern.regex.pattern == pattern.source for pattern in PATTERNS)


# -- named profiles: created by every recall process, compared and printed by nothing ------

PROFILES = ("cairn.recall.score.ScoreProfile", "cairn.recall.rank.RankProfile", "cairn.recall.pack.PackProfile",
            "cairn.recall.phrase.PhraseProfile", "cairn.recall.gates.GateProfile", "cairn.recall.fusion.SemanticProfile",
            "cairn.policy.aging.AgingProfile", "cairn.policy.confidence.ConfidenceProfile", "cairn.engine.validate.Limits")


@pytest.mark.parametrize("path", PROFILES)
def test_a_profile_is_a_dataclass_without_generated_eq_or_repr(path):
    """A profile is read field by field and derived with ``replace()``; nothing compares or
    prints one, so its class skips the generated ``__eq__``, ``__hash__`` and ``__repr__``
    (three of the six methods dataclasses compiles for a frozen class at import)."""
    import dataclasses
    import importlib

    module, name = path.rsplit(".", 1)
    cls = getattr(importlib.import_module(module), name)
    params = cls.__dataclass_params__
    assert params.frozen and not params.eq and not params.repr
    assert "__eq__" not in cls.__dict__ and "__repr__" not in cls.__dict__
    first = dataclasses.fields(cls)[0]
    default = cls() if all(f.default is not dataclasses.MISSING for f in dataclasses.fields(cls)) else None
    if default is not None:  # derived as the tests and docs derive profiles
        derived = dataclasses.replace(default, **{first.name: getattr(default, first.name)})
        assert derived is not default and [getattr(derived, f.name) for f in dataclasses.fields(cls)] == [
            getattr(default, f.name) for f in dataclasses.fields(cls)]


def test_the_startup_benchmark_prints_only_when_out_is_a_dash():
    from cairn.bench.startup import report_file

    assert report_file("-") is None and report_file(None) is None
    assert report_file("docs/benchmarks.md") == "docs/benchmarks.md"  # a file is written


def test_trust_state_reads_as_the_dataclass_it_was():
    from cairn.engine.trust import TrustState

    fresh, other = TrustState(), TrustState()
    assert fresh == other and fresh.supports is not other.supports  # a list of its own each
    assert repr(fresh) == ("TrustState(supports=[], stability='normal', reviewed_at=None, decay=0.0, reports=[])"
                           .replace("'normal'", repr(fresh.stability)))
    changed = TrustState(decay=0.5)
    assert changed != fresh and changed.decay == 0.5
    # Control: not equal to a value of another class holding the same fields.
    assert (fresh == tuple(fresh._fields())) is False
