"""The wire format is pinned: every command's ``--json`` document has exactly the keys
that :mod:`cairn.wire` declares for it, nested documents included (records, events,
relations, recall results, explain candidates, timeline states, claim outcomes)."""

from __future__ import annotations

import argparse
import json
import types
from datetime import UTC, datetime
from typing import Any, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from cairn import wire
from cairn.cli import build_parser
from cairn.recall.query import parse_query
from cairn.recall.traces import trace_doc

NOW = "2026-11-10T12:00:00Z"
OLD = "Use PostgreSQL 16 for the billing service"
NEW = "Use PostgreSQL 17 for the billing service"
PORT = "The staging database listens on port 5432"


def shape_errors(value: Any, shape: Any, path: str = "$") -> list[str]:
    """Where ``value`` departs from ``shape``: a missing or undeclared key of a TypedDict,
    at any depth reachable through lists, dict values and optional (``X | None``) fields."""
    if is_typeddict(shape):
        if not isinstance(value, dict):
            return [f"{path}: expected an object, got {type(value).__name__}"]
        required, optional = shape.__required_keys__, shape.__optional_keys__
        errors = [f"{path}: missing {key!r}" for key in sorted(required - set(value))]
        errors += [f"{path}: undeclared {key!r}" for key in sorted(set(value) - required - optional)]
        hints = get_type_hints(shape)
        for key in sorted(set(value) & set(hints)):
            errors += shape_errors(value[key], hints[key], f"{path}.{key}")
        return errors
    origin, args = get_origin(shape), get_args(shape)
    if origin in (Union, types.UnionType):
        members = [a for a in args if a is not type(None)]
        if value is None or len(members) != 1:
            return []
        return shape_errors(value, members[0], path)
    if origin is list and isinstance(value, list):
        return [e for i, item in enumerate(value) for e in shape_errors(item, args[0], f"{path}[{i}]")]
    if origin is dict and isinstance(value, dict):
        return [e for key, item in value.items() for e in shape_errors(item, args[1], f"{path}.{key}")]
    return []


# -- a small store every command can work on ------------------------------------------------


def run(cli, *args: str, stdin: str | None = None) -> dict:
    result = cli("--now", NOW, "--json", *args, stdin=stdin)
    assert result.code == 0, result.err
    return json.loads(result.out)


@pytest.fixture
def ids(cli) -> dict[str, str]:
    old = run(cli, "remember", OLD, "--kind", "decision", "--origin", "acme", "--at", "2026-01-01T00:00:00Z")["id"]
    new = run(cli, "remember", NEW, "--kind", "decision", "--origin", "acme", "--supersedes", old)["id"]
    port = run(cli, "remember", PORT, "--kind", "fact", "--origin", "acme", "--alias", "staging-db")["id"]
    return {"old": old, "new": new, "port": port}


def _write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _batch(tmp_path, target: str) -> str:
    batch = {"source": {"id": "src-1", "text": "Summary: the staging database listens on port 5433 now.",
                        "kind": "summary", "origin": "acme"},
             "claims": [{"kind": "fact", "content": "The staging database listens on port 5433", "replaces": target},
                        {"kind": "preference", "content": "Prefer small reviewed commits"}]}
    return _write(tmp_path, "batch.json", json.dumps(batch))


def _locomo(tmp_path) -> str:
    conversation = {
        "sample_id": "conv-wire",
        "qa": [{"question": "What did Ana paint?", "category": 1, "evidence": ["D1:1"]}],
        "conversation": {
            "speaker_a": "Ana", "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [{"speaker": "Ana", "dia_id": "D1:1", "text": "I painted a sunrise last weekend."},
                          {"speaker": "Ben", "dia_id": "D1:2", "text": "Show me!"}],
        },
    }
    return _write(tmp_path, "locomo.json", json.dumps([conversation]))


# Each case runs one command (some twice, to meet its optional keys) and returns the
# documents it printed with the shape each must have. Nested lists are checked non-empty
# where the case means to pin the keys of their items.


def case_remember(cli, ids, tmp_path):
    fresh = run(cli, "remember", "Deploys go out on Tuesdays", "--kind", "fact")
    again = run(cli, "remember", "Deploys go out on Tuesdays", "--kind", "fact")
    assert again["deduplicated"] is True
    return [(fresh, wire.RememberDoc), (again, wire.RememberDoc)]


def case_show(cli, ids, tmp_path):
    run(cli, "feedback", ids["new"], "useful", "--source", "act-1")
    doc = run(cli, "show", ids["new"])
    assert doc["relations"] and doc["memory"]["feedback"]["utility"]
    return [(doc, wire.ShowDoc)]


def case_list(cli, ids, tmp_path):
    doc = run(cli, "list")
    assert doc["memories"]
    return [(doc, wire.ListDoc)]


def case_forget(cli, ids, tmp_path):
    return [(run(cli, "forget", ids["port"]), wire.EventRefDoc), (run(cli, "forget", ids["old"], "--purge"), wire.EventRefDoc)]


def case_pin(cli, ids, tmp_path):
    return [(run(cli, "pin", ids["port"]), wire.EventRefDoc)]


def case_unpin(cli, ids, tmp_path):
    run(cli, "pin", ids["port"])
    return [(run(cli, "unpin", ids["port"]), wire.EventRefDoc)]


def case_history(cli, ids, tmp_path):
    event = run(cli, "pin", ids["port"])["event"]
    run(cli, "undo", event)  # an undo event carries data
    doc = run(cli, "history")
    assert any("data" in e for e in doc["events"])
    return [(doc, wire.HistoryDoc)]


def case_undo(cli, ids, tmp_path):
    return [(run(cli, "undo", run(cli, "pin", ids["port"])["event"]), wire.EventRefDoc)]


def case_export(cli, ids, tmp_path):
    return [(run(cli, "export", str(tmp_path / "out.jsonl")), wire.ExportDoc)]


def case_import(cli, ids, tmp_path):
    run(cli, "export", str(tmp_path / "out.jsonl"))
    return [(run(cli, "import", str(tmp_path / "out.jsonl")), wire.ImportDoc)]


def case_status(cli, ids, tmp_path):
    return [(run(cli, "status"), wire.StatusDoc)]


def case_apply(cli, ids, tmp_path):
    doc = run(cli, "apply", _batch(tmp_path, ids["port"]))
    assert doc["claims"]
    return [(doc, wire.ApplyDoc)]


def case_candidates(cli, ids, tmp_path):
    doc = run(cli, "candidates", _batch(tmp_path, ids["port"]))
    assert doc["candidates"]
    return [(doc, wire.MentionedDoc)]


def case_correct(cli, ids, tmp_path):
    return [(run(cli, "correct", ids["port"], "The staging database listens on port 6432"), wire.CorrectDoc)]


def case_feedback(cli, ids, tmp_path):
    quarantined = run(cli, "feedback", ids["port"], "incorrect", "--source", "act-2")
    repeated = run(cli, "feedback", ids["port"], "incorrect", "--source", "act-2")
    assert "quarantined" in quarantined and repeated["applied"] is False
    return [(quarantined, wire.FeedbackDoc), (repeated, wire.FeedbackDoc)]


def case_recall(cli, ids, tmp_path):
    doc = run(cli, "recall", "PostgreSQL billing service", "--include-history")
    assert doc["results"] and doc["trace"]
    return [(doc, wire.RecallDoc)]


def case_search(cli, ids, tmp_path):
    doc = run(cli, "search", "staging database port")
    assert doc["results"]
    return [(doc, wire.RecallDoc)]


def case_explain(cli, ids, tmp_path):
    doc = run(cli, "explain", "PostgreSQL billing service")
    assert doc["candidates"] and doc["candidates"][0]["factors"]
    return [(doc, wire.ExplainDoc)]


def case_ingest(cli, ids, tmp_path):
    turns = [{"id": "t1", "speaker": "Ana", "text": "I moved the backup job to Sunday night.", "time": "2026-10-01T09:00:00Z"}]
    return [(run(cli, "ingest", _write(tmp_path, "turns.jsonl", "".join(json.dumps(t) + "\n" for t in turns))), wire.IngestDoc)]


def case_embed(cli, ids, tmp_path):
    from cairn.embed.vectors import enabled

    if not enabled():
        pytest.skip("embed needs the semantic extra")
    return [(run(cli, "embed"), wire.EmbedDoc)]


def case_learn(cli, ids, tmp_path):
    turns = [{"id": "t1", "role": "user", "text": "I prefer window seats on trains.", "time": "2026-10-01T09:00:00Z"}]
    doc = run(cli, "learn", _write(tmp_path, "chat.jsonl", "".join(json.dumps(t) + "\n" for t in turns)))
    assert doc["claims"] and doc["events"]
    return [(doc, wire.LearnDoc)]


def case_reinforce(cli, ids, tmp_path):
    return [(run(cli, "reinforce", ids["port"], "explicit_reinforcement"), wire.ReinforceDoc)]


def case_relate(cli, ids, tmp_path):
    return [(run(cli, "relate", ids["port"], "qualifies", ids["new"]), wire.RelateDoc)]


def case_timeline(cli, ids, tmp_path):
    doc = run(cli, "timeline", "billing")
    assert doc["states"] and doc["relations"]
    return [(doc, wire.TimelineDoc)]


def case_alias(cli, ids, tmp_path):
    return [(run(cli, "alias", ids["port"], "add", "pg-staging"), wire.EventRefDoc)]


def case_confirm(cli, ids, tmp_path):
    later = ("--now", "2026-12-01T00:00:00Z", "--json", "confirm", ids["new"], "--source", "review-1")
    moved, again = (json.loads(cli(*later).out) for _ in range(2))
    assert moved["moved"] is True and again["moved"] is False
    return [(moved, wire.ConfirmDoc), (again, wire.ConfirmDoc)]


def case_bench_locomo(cli, ids, tmp_path):
    doc = run(cli, "bench", "locomo", "--quick", "--data", _locomo(tmp_path))
    assert doc["categories"]
    return [(doc, wire.LocomoDoc)]


def case_bench_scale(cli, ids, tmp_path):
    doc = run(cli, "bench", "scale", "--sizes", "30")
    assert doc["sizes"] and doc["sizes"][0]["status"] == "ok"
    return [(doc, wire.ScaleDoc)]


def case_triage(cli, ids, tmp_path):
    doc = run(cli, "triage", "which database did we pick for the billing service?")
    assert doc["decision"] == "RETRIEVE"
    return [(doc, wire.TriageDoc)]


def case_hook(cli, ids, tmp_path):
    payload = json.dumps({"session_id": "s", "cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit",
                          "prompt": "what did we decide about the PostgreSQL billing service?"})
    doc = run(cli, "hook", "claude-code", "user-prompt-submit", "--timeout", "20", stdin=payload)
    silent = run(cli, "hook", "claude-code", "user-prompt-submit", stdin=json.dumps({"prompt": "ok"}))
    assert doc["hookSpecificOutput"]["additionalContext"] and silent == {}
    return [(doc, wire.HookOutputDoc), (silent, wire.HookOutputDoc)]


def case_setup(cli, ids, tmp_path, monkeypatch=None):
    import os

    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        doc = run(cli, "setup", "claude-code", "--dry-run")
    finally:
        os.chdir(here)
    assert doc["changes"] and doc["dry_run"] is True
    return [(doc, wire.SetupDoc)]
def case_mcp(cli, ids, tmp_path):
    # `cairn mcp` serves rather than prints: its documents are its tools' structuredContent,
    # built by the same wire builders and pinned here against each tool's declared type.
    from cairn import Cairn
    from cairn.mcp.registry import call, tools

    with Cairn(tmp_path / "store" / "cairn.db", now=NOW) as cairn:
        added = call(cairn, "memory_remember", {"content": "Billing invoices are sent monthly", "kind": "fact"})
        forgot = call(cairn, "memory_forget", {"id": added.doc["id"]})
        calls = [
            ("memory_recall", {"query": "PostgreSQL billing service"}), ("memory_search", {"query": "billing service"}),
            ("memory_explain", {"query": "PostgreSQL billing service"}), ("memory_show", {"id": ids["new"]}),
            ("memory_timeline", {"query": "billing service"}), ("memory_history", {}),
            ("memory_relate", {"from_id": ids["port"], "role": "qualifies", "to_id": ids["old"]}),
            ("memory_feedback", {"id": ids["port"], "verdict": "useful", "source": "s1"}),
            ("memory_pin", {"id": ids["port"]}),
            ("memory_correct", {"id": ids["port"], "text": "The staging database listens on port 5433"}),
            ("memory_undo", {"event": forgot.doc["event"]}),
        ]
        replies = [(name, call(cairn, name, args)) for name, args in calls]
        recalled = dict(replies)["memory_recall"].doc
        replies.append(("memory_report_use", call(cairn, "memory_report_use", {
            "trace": recalled["trace"], "verdict": "used", "ids": [recalled["results"][0]["id"]]})))
        replies.append(("memory_reinforce", call(cairn, "memory_reinforce",
                                                 {"id": ids["new"], "outcome": "explicit_reinforcement"})))
    replies += [("memory_remember", added), ("memory_forget", forgot)]
    assert [name for name, reply in replies if reply.error] == []
    assert {name for name, _ in replies} == set(tools())
    return [(dict(reply.doc), tools()[name].doc_type) for name, reply in replies]


def case_report(cli, ids, tmp_path):
    recalled = run(cli, "recall", "PostgreSQL billing service")
    reported = run(cli, "report", recalled["trace"], "wrong", recalled["results"][0]["id"])
    summary = run(cli, "report", "--summary")
    assert reported["refs"] and summary["reports"] == 1
    return [(reported, wire.UseReportDoc), (summary, wire.ReportSummaryDoc)]


def case_maintain(cli, ids, tmp_path):
    run(cli, "reinforce", ids["port"], "explicit_correction")
    plan = run(cli, "maintain", "--out", str(tmp_path / "plan.json"))
    applied = run(cli, "maintain", "--apply", str(tmp_path / "plan.json"))
    assert plan["ops"] and applied["applied"]
    return [(plan, wire.MaintenancePlanDoc), (applied, wire.PlanAppliedDoc)]


def case_retention(cli, ids, tmp_path):
    policy = _write(tmp_path, "policy.toml", '[[policy]]\nname = "old decisions"\nkind = "decision"\nolder_than_days = 200\n')
    plan = run(cli, "retention", "plan", policy, "--out", str(tmp_path / "plan.json"))
    applied = run(cli, "retention", "apply", str(tmp_path / "plan.json"))
    assert plan["matches"] and applied["applied"] == len(plan["matches"])
    return [(plan, wire.RetentionPlanDoc), (applied, wire.PlanAppliedDoc)]


def case_trace(cli, ids, tmp_path):
    recalled = run(cli, "recall", "PostgreSQL billing service", "--include-history")
    doc = run(cli, "trace", recalled["trace"])
    assert doc["scores"] and doc["rejected"] is not None and doc["id"] == recalled["trace"]
    return [(doc, wire.TraceDoc)]


def case_ui(cli, ids, tmp_path):
    # `cairn ui` serves rather than prints: its JSON API answers with the same wire builders,
    # every route run here (without HTTP) and pinned against the type it declares.
    from cairn import Cairn
    from cairn.web import api

    query = {"query": "PostgreSQL billing service"}
    plan = {
        "/api/records": ({}, {"origin": "acme"}), "/api/records/{id}": ({"id": ids["port"]}, {}),
        "/api/records/{id}/history": ({"id": ids["port"]}, {}), "/api/history": ({}, {}),
        "/api/timeline": ({}, {"query": "billing service"}), "/api/conflicted": ({}, {}), "/api/status": ({}, {}),
        "/api/recall": ({}, query), "/api/search": ({}, query), "/api/explain": ({}, query),
        "/api/records/{id}/correct": ({"id": ids["port"]}, {"text": "The staging database listens on port 5433"}),
        "/api/records/{id}/feedback": ({"id": ids["new"]}, {"verdict": "useful"}),
        "/api/records/{id}/forget": ({"id": ids["old"]}, {}), "/api/records/{id}/pin": ({"id": ids["new"]}, {}),
        "/api/records/{id}/unpin": ({"id": ids["new"]}, {}),
        "/api/relations": ({}, {"from_id": ids["port"], "role": "qualifies", "to_id": ids["new"]}),
        "/api/maintenance/plan": ({}, {}),
        "/api/retention/plan": ({}, {"policies": "[[policy]]\nname = 'any'\nolder_than_days = 1\n"}),
    }
    docs, forgot = [], None
    made: dict[str, dict] = {}
    with Cairn(tmp_path / "store" / "cairn.db", now=NOW) as cairn:
        for route in api.ROUTES:
            path_args: dict = {}
            if route.path.endswith("/apply"):  # apply: the plan the route before it made
                args: dict = {"plan": made[route.path.replace("/apply", "/plan")]}
            else:
                path_args, args = plan.get(route.path) or ({"id": forgot}, {})  # undo: the forget's event
            doc = dict(api.call(cairn, route, path_args, args))
            forgot = doc["event"] if route.path.endswith("/forget") else forgot
            made[route.path] = doc
            docs.append((doc, route.doc_type))
    assert len(docs) == len(plan) + 3  # every route, the undo and the two applies included
    return docs


def _archived(cli, tmp_path) -> tuple[str, str]:
    """(source id, first episode id) of a conversation ingested with --archive."""
    turns = [{"id": "a1", "speaker": "Ana", "text": "The rover logs go to the cold store.", "time": "2026-10-02T09:00:00Z"},
             {"id": "a2", "role": "system", "text": "Be brief.", "time": "2026-10-02T09:00:05Z"}]
    doc = run(cli, "ingest", _write(tmp_path, "archived.jsonl", "".join(json.dumps(t) + "\n" for t in turns)), "--archive")
    assert doc["archive"]
    episode = run(cli, "recall", "rover logs cold store", "--lane", "episodes")["results"][0]["id"]
    return doc["archive"], episode


def case_archive_add(cli, ids, tmp_path):
    path = _write(tmp_path, "add.jsonl", json.dumps({"id": "b1", "speaker": "Ben", "text": "Hi.", "time": NOW}) + "\n")
    return [(run(cli, "archive", "add", path), wire.ArchiveAddDoc), (run(cli, "archive", "add", path), wire.ArchiveAddDoc)]


def case_archive_list(cli, ids, tmp_path):
    _archived(cli, tmp_path)
    doc = run(cli, "archive", "list")
    assert doc["entries"]
    return [(doc, wire.ArchiveListDoc)]


def case_archive_verify(cli, ids, tmp_path):
    source, _ = _archived(cli, tmp_path)
    return [(run(cli, "archive", "verify"), wire.ArchiveVerifyDoc),
            (run(cli, "archive", "verify", source), wire.ArchiveVerifyDoc)]


def case_archive_show(cli, ids, tmp_path):
    source, episode = _archived(cli, tmp_path)
    ranged = run(cli, "archive", "show", source, "--turns", "1..2")
    assert ranged["records"] and ranged["channels"]["visible"]
    return [(run(cli, "archive", "show", source), wire.ArchiveShownEntryDoc), (ranged, wire.RehydratedDoc),
            (run(cli, "archive", "show", "-", "--around", episode), wire.RehydratedDoc)]


def case_archive_remove(cli, ids, tmp_path):
    source, _ = _archived(cli, tmp_path)
    return [(run(cli, "archive", "remove", source), wire.ArchiveRemoveDoc)]


_VOCABULARY = json.dumps({"topics": {"billing": ["billing service"]}, "entities": {"postgres": {"aliases": ["PostgreSQL"]}}})


def case_labels_import(cli, ids, tmp_path):
    return [(run(cli, "labels", "import", _write(tmp_path, "vocabulary.json", _VOCABULARY)), wire.LabelsImportDoc)]


def case_labels_show(cli, ids, tmp_path):
    run(cli, "labels", "import", _write(tmp_path, "vocabulary.json", _VOCABULARY))
    doc = run(cli, "labels", "show")
    assert doc["topics"] and doc["entities"]
    return [(doc, wire.VocabularyDoc)]


def case_labels_check(cli, ids, tmp_path):
    run(cli, "labels", "import", _write(tmp_path, "vocabulary.json", _VOCABULARY))
    labelled = run(cli, "remember", "Billing invoices are archived monthly", "--kind", "fact", "--topic", "billing")
    shown = run(cli, "show", labelled["id"])
    assert shown["memory"]["topics"] == ["billing"]
    return [(run(cli, "labels", "check"), wire.LabelsCheckDoc), (shown, wire.ShowDoc)]


def case_labels_match(cli, ids, tmp_path):
    run(cli, "labels", "import", _write(tmp_path, "vocabulary.json", _VOCABULARY))
    doc = run(cli, "labels", "match", "Is the billing service on PostgreSQL?")
    assert doc["labels"] == {"topics": ["billing"], "entities": ["postgres"]}
    hinted = run(cli, "recall", "PostgreSQL billing service", "--topic", "biling")
    assert hinted["warnings"] and hinted["topic"]["how"] == "unknown"
    return [(doc, wire.LabelsMatchDoc), (hinted, wire.RecallDoc)]


def case_migrate(cli, ids, tmp_path):
    doc = run(cli, "migrate", str(tmp_path / "store" / "cairn.db"), str(tmp_path / "copy" / "cairn.db"))
    assert doc["copied"]["records"] == 3
    return [(doc, wire.MigrateDoc)]


CASES = {name.removeprefix("case_").replace("_", " "): fn for name, fn in dict(globals()).items() if name.startswith("case_")}


def cli_commands() -> set[str]:
    """Every command the parser knows (a group's subcommands as "group sub")."""

    def subcommands(parser: argparse.ArgumentParser, prefix: str = "") -> set[str]:
        found: set[str] = set()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    inner = subcommands(sub, f"{prefix}{name} ")
                    found |= inner or {prefix + name}
        return found

    return subcommands(build_parser())


# -- the pins ------------------------------------------------------------------------------------


def test_every_command_of_the_cli_has_a_pinned_shape():
    assert set(CASES) == cli_commands()


@pytest.mark.parametrize("command", sorted(CASES))
def test_the_command_prints_exactly_the_declared_keys(command, cli, ids, tmp_path):
    documents = CASES[command](cli, ids, tmp_path)
    assert documents
    for doc, shape in documents:
        assert shape_errors(doc, shape) == [], f"{command}: {shape.__name__}"


def test_the_check_sees_a_missing_an_undeclared_and_a_nested_key(cli, ids):
    doc = run(cli, "recall", "PostgreSQL billing service")
    assert shape_errors(doc, wire.RecallDoc) == []

    missing = {k: v for k, v in doc.items() if k != "digest"}
    assert shape_errors(missing, wire.RecallDoc) == ["$: missing 'digest'"]

    assert shape_errors({**doc, "extra": 1}, wire.RecallDoc) == ["$: undeclared 'extra'"]

    nested = json.loads(json.dumps(doc))
    del nested["results"][0]["lane"]
    nested["results"][0]["evidence"]["weight"] = 1.0
    assert shape_errors(nested, wire.RecallDoc) == ["$.results[0]: missing 'lane'",
                                                    "$.results[0].evidence: undeclared 'weight'"]


def test_an_optional_key_may_be_absent_but_not_misspelt(cli, ids):
    doc = run(cli, "explain", "PostgreSQL billing service")
    candidate = doc["candidates"][0]
    assert "markers" not in candidate and shape_errors(candidate, wire.ExplainCandidateDoc) == []
    candidate["factors"]["freshnes"] = 0.5
    assert shape_errors(candidate, wire.ExplainCandidateDoc) == ["$.factors: undeclared 'freshnes'"]


def test_the_cases_cover_a_command_the_parser_lost_or_gained(monkeypatch):
    # Negative control of the coverage pin: a command without a case is reported.
    assert "remember" in cli_commands()
    monkeypatch.delitem(CASES, "remember")
    assert cli_commands() - set(CASES) == {"remember"}


# -- one serialisation of the recall request -------------------------------------------------


def test_explain_and_the_trace_serialise_the_request_alike(cairn, clock, ids):
    clock.at = datetime(2026, 11, 10, 12, tzinfo=UTC)
    for history in (True, False):
        explained = cairn.explain("PostgreSQL billing service", include_history=history, as_of="2026-06-01T00:00:00Z")
        recalled = cairn.recall("PostgreSQL billing service", include_history=history, as_of="2026-06-01T00:00:00Z",
                                trace=False)
        body = trace_doc(recalled.outcome, "0" * 24, datetime(2026, 11, 10, tzinfo=UTC))
        fields: dict[str, object] = dict(body)
        request = {key: fields[key] for key in wire.RecallRequestDoc.__required_keys__}
        assert request["include_history"] is history and request["as_of"] == "2026-06-01T00:00:00Z"
        assert {key: explained["query"][key] for key in request} == request
        assert shape_errors(body, wire.TraceDoc) == []


def test_the_trace_builder_is_given_the_features_of_the_redacted_query(cairn, clock, ids):
    clock.at = datetime(2026, 11, 10, 12, tzinfo=UTC)
    secret = "ghp_" + "a" * 36
    recalled = cairn.recall(f"billing token {secret}", trace=False)
    body = trace_doc(recalled.outcome, "0" * 24, datetime(2026, 11, 10, tzinfo=UTC))
    tail = "a" * 36
    assert tail in parse_query(f"billing token {secret}").to_dict()["features"]  # control: the raw parse holds it
    assert tail not in json.dumps(body) and "bill" in body["query"]["features"]


def test_explain_carries_no_memory_body(cli, ids):
    explained = run(cli, "explain", "staging database port")
    recalled = run(cli, "recall", "staging database port")
    assert PORT in json.dumps(recalled)  # control: the body is there to be found
    assert PORT not in json.dumps(explained) and "content" not in json.dumps(explained)
