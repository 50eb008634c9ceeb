"""``cairn mcp`` over stdio, as a real subprocess driven by the ``mcp`` client library:
the listing, every tool's effect checked through the API, bad input, evidence honesty,
one space per server, two clients at once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from cairn import Cairn, wire
from cairn.mcp.registry import tools
from cairn.mcp.schema import output_schema
from testkit import NOW
from testkit.db import db_fingerprint

pytestmark = pytest.mark.slow

READ_ONLY = {"memory_recall", "memory_search", "memory_explain", "memory_show", "memory_timeline", "memory_history"}
WRITING = {"memory_remember", "memory_correct", "memory_relate", "memory_feedback", "memory_pin", "memory_report_use",
           "memory_reinforce"}
DESTRUCTIVE = {"memory_forget", "memory_undo"}
OUTPUTS = {
    "memory_recall": wire.RecallDoc, "memory_search": wire.RecallDoc, "memory_explain": wire.ExplainDoc,
    "memory_show": wire.ShowDoc, "memory_timeline": wire.TimelineDoc, "memory_history": wire.HistoryDoc,
    "memory_remember": wire.RememberDoc, "memory_correct": wire.CorrectDoc, "memory_relate": wire.RelateDoc,
    "memory_feedback": wire.FeedbackDoc, "memory_pin": wire.EventRefDoc, "memory_forget": wire.EventRefDoc,
    "memory_undo": wire.EventRefDoc, "memory_report_use": wire.UseReportDoc, "memory_reinforce": wire.ReinforceDoc,
}


def run(fn, *args: Any) -> Any:
    return anyio.run(fn, *args)


def text(result) -> str:
    assert len(result.content) == 1 and result.content[0].type == "text"
    return result.content[0].text


def ok(result) -> dict:
    assert not result.is_error, text(result)
    return result.structured_content


def engine(db: Path, space: str = "default") -> Cairn:
    return Cairn(db, space=space, now=NOW)


# -- the listing ---------------------------------------------------------------------------


def test_the_listing_names_every_tool_with_its_hints_and_schemas(connect):
    async def scenario():
        async with connect() as client:
            prompts = (await client.list_prompts()).prompts
            prompt = await client.get_prompt("recall_context", {"task": "migrate the billing database"})
            try:
                await client.get_prompt("recall_context", {"task": "  "})
                refused = ""
            except Exception as err:  # noqa: BLE001 - the client raises the server's protocol error
                refused = str(err)
            return client.instructions, (await client.list_tools()).tools, prompts, prompt, refused

    instructions, listed, prompts, prompt, refused = run(scenario)
    assert [p.name for p in prompts] == ["recall_context"]
    [message] = prompt.messages
    assert "memory_recall" in message.content.text and message.content.text.endswith("Task: migrate the billing database")
    assert "invalid task: required" in refused
    by_name = {t.name: t for t in listed}
    assert set(by_name) == READ_ONLY | WRITING | DESTRUCTIVE
    assert "memory_recall" in instructions and "data" in instructions and len(instructions) < 1200
    for name, t in by_name.items():
        a = t.annotations
        assert a.read_only_hint is (name in READ_ONLY), name
        assert a.destructive_hint is (name in DESTRUCTIVE), name
        assert a.open_world_hint is False
        assert t.input_schema["type"] == "object" and t.input_schema["additionalProperties"] is False
        assert t.output_schema == output_schema(OUTPUTS[name]), name
        assert t.description and t.title
    recall = by_name["memory_recall"].input_schema
    assert recall["required"] == ["query"]
    assert {"query", "limit", "budget", "lane", "as_of", "known_at", "include_history", "include_dormant"} <= set(
        recall["properties"])
    assert recall["properties"]["limit"]["type"] == "integer"
    remember = by_name["memory_remember"].input_schema
    assert set(remember["required"]) == {"content", "kind"}
    assert remember["properties"]["basis"]["enum"] == ["summary", "user_statement", "tool_observation"]
    assert "manual_correction" not in json.dumps(remember)  # no agent can claim it here
    assert "method" not in remember["properties"]
    assert by_name["memory_forget"].input_schema["properties"]["purge"]["default"] is False
    assert "explicitly" in by_name["memory_correct"].description  # when to use the strongest evidence
    # The registry in-process lists the same names: the test would catch a tool left unregistered.
    assert set(tools()) == set(by_name)


# -- every tool, its effect seen through the API -----------------------------------------------


def test_every_tool_has_its_effect(connect, db_path, cli):
    async def scenario():
        out: dict[str, Any] = {}
        async with connect() as c:
            out["old"] = ok(await c.call_tool("memory_remember", {
                "content": "The staging database runs on port 5433", "kind": "fact", "basis": "tool_observation",
                "source": "msg-1", "origin": "acme", "aliases": ["pg"]}))
            out["new"] = ok(await c.call_tool("memory_remember", {
                "content": "The staging database now runs on port 6543", "kind": "fact", "basis": "user_statement",
                "origin": "acme", "supersedes": [out["old"]["id"]]}))
            out["pref"] = ok(await c.call_tool("memory_remember", {"content": "The user prefers tabs over spaces",
                                                                   "kind": "preference"}))
            recall = await c.call_tool("memory_recall", {"query": "staging database port", "trace": True})
            out["recall"], out["recall_text"] = ok(recall), text(recall)
            out["search"] = ok(await c.call_tool("memory_search", {"query": "staging database"}))
            out["explain"] = ok(await c.call_tool("memory_explain", {"query": "staging database port"}))
            show = await c.call_tool("memory_show", {"id": out["new"]["id"][:8]})
            out["show"], out["show_text"] = ok(show), text(show)
            out["timeline"] = ok(await c.call_tool("memory_timeline", {"query": "staging database"}))
            out["relate"] = ok(await c.call_tool("memory_relate", {"from_id": out["pref"]["id"], "role": "qualifies",
                                                                   "to_id": out["old"]["id"]}))
            out["feedback"] = ok(await c.call_tool("memory_feedback", {"id": out["new"]["id"], "verdict": "useful",
                                                                       "source": out["recall"]["trace"]}))
            out["pin"] = ok(await c.call_tool("memory_pin", {"id": out["pref"]["id"]}))
            out["correct"] = ok(await c.call_tool("memory_correct", {"id": out["new"]["id"],
                                                                     "text": "The staging database runs on port 6544"}))
            out["forget"] = ok(await c.call_tool("memory_forget", {"id": out["pref"]["id"]}))
            out["after_forget"] = (await c.call_tool("memory_recall", {"query": "tabs spaces"})).structured_content
            out["undo"] = ok(await c.call_tool("memory_undo", {"event": out["forget"]["event"]}))
            out["history"] = ok(await c.call_tool("memory_history", {"id": out["pref"]["id"]}))
            out["final_show"] = ok(await c.call_tool("memory_show", {"id": out["new"]["id"]}))
        return out

    out = run(scenario)
    with engine(db_path) as cairn:
        old, new, pref = (cairn.get(out[k]["id"]) for k in ("old", "new", "pref"))
        # remember: evidence as the call said, the agent as actor
        assert (old.evidence.basis.value, old.evidence.method.value, old.evidence.source_id) == (
            "tool_observation", "agent", "msg-1")
        assert old.origin == "acme" and old.aliases == ("pg",)
        assert (pref.evidence.basis.value, pref.evidence.method.value) == ("summary", "agent")
        assert cairn.history(pref.id, limit=50)[-1].actor.value == "agent"
        # supersedes declared in the same event as the new record
        assert any(r.role.value == "supersedes" and r.to_id == old.id for r in cairn.show(new.id).relations)
        # recall and search return the newer record; its trace was written
        assert out["recall"]["results"][0]["id"] == new.id and out["recall"]["trace"]
        assert "quoted text is data" in out["recall_text"] and out["recall"]["digest"] in out["recall_text"]
        assert new.id in [r["id"] for r in out["search"]["results"]]
        assert new.id in [c["id"] for c in out["explain"]["candidates"]]
        assert out["show"]["memory"]["id"] == new.id and "6543" in out["show_text"]
        assert {s["id"] for s in out["timeline"]["states"]} >= {old.id, new.id}
        # relate, feedback, pin, correct, forget + undo
        assert any(r.role.value == "qualifies" and r.from_id == pref.id for r in cairn.show(old.id).relations)
        # (the correction below cleared the verdict, as a correction does; the event stays)
        assert out["feedback"]["applied"] is True
        assert [e.id for e in cairn.history(new.id) if e.reason == "feedback useful"] == [out["feedback"]["event"]]
        assert pref.layer.value == "pinned"
        assert new.content == "The staging database runs on port 6544"
        assert (new.evidence.basis.value, new.evidence.method.value) == ("manual_correction", "manual")
        assert out["after_forget"]["results"] == []
        assert pref.status.value != "forgotten"  # undone
        assert [e["id"] for e in out["history"]["events"]][0] == out["undo"]["event"]
    # The structured content is the CLI's --json document, built by the same code.
    shown = cli("--now", NOW.isoformat(), "--json", "show", new.id)
    assert shown.code == 0 and out["final_show"] == shown.json()


def test_recall_text_and_document_are_the_clis(connect, db_path, cli):
    with engine(db_path) as cairn:
        cairn.remember("Deploys go to fly.io in region ams", kind="fact")

    async def scenario():
        async with connect() as c:
            return await c.call_tool("memory_recall", {"query": "deploys region", "trace": False})

    result = run(scenario)
    printed = cli("--now", NOW.isoformat(), "--json", "recall", "deploys region", "--no-trace")
    assert result.structured_content == printed.json()
    assert text(result) == printed.json()["digest"]


def test_a_user_statement_is_the_users_and_nothing_passes_as_a_correction(connect, db_path):
    async def scenario():
        async with connect() as c:
            said = ok(await c.call_tool("memory_remember", {"content": "The user decided to ship on Fridays",
                                                            "kind": "decision", "basis": "user_statement"}))
            forged = await c.call_tool("memory_remember", {"content": "Release branch is frozen", "kind": "fact",
                                                           "basis": "manual_correction"})
            method = await c.call_tool("memory_remember", {"content": "Release branch is frozen", "kind": "fact",
                                                           "method": "manual"})
            vouched = await c.call_tool("memory_feedback", {"id": said["id"], "verdict": "accurate", "source": "s1"})
            return said, forged, method, vouched

    said, forged, method, vouched = run(scenario)
    with engine(db_path) as cairn:
        m = cairn.get(said["id"])
        assert (m.evidence.basis.value, m.evidence.method.value) == ("user_statement", "manual")
        assert cairn.list().total == 1  # neither forgery was stored
        assert m.feedback.accuracy is None  # nor an agent's vouching
    assert forged.is_error and "invalid basis: unknown basis 'manual_correction'" in text(forged)
    assert method.is_error and "unknown argument 'method'" in text(method)
    assert vouched.is_error and "unknown verdict 'accurate' (one of: useful, unhelpful, incorrect)" in text(vouched)


# -- bad input ---------------------------------------------------------------------------------


BAD_CALLS = [
    ("memory_recall", {"query": ""}, "invalid query: empty"),
    ("memory_recall", {"query": "deploy", "limit": "three"}, "invalid limit: expected an integer"),
    ("memory_recall", {"query": "deploy", "limit": True}, "invalid limit: expected an integer"),
    ("memory_recall", {"query": "deploy", "limit": 0}, "invalid limit"),
    ("memory_recall", {"query": "deploy", "as_of": "yesterday-ish"}, "invalid as_of"),
    ("memory_recall", {}, "invalid query: required"),
    ("memory_search", {"query": 42}, "invalid query: expected a string"),
    ("memory_show", {"id": "zzzzzzzzzzzz"}, "no memory matches 'zzzzzzzzzzzz'"),
    ("memory_history", {"id": "zzzzzzzzzzzz"}, "no memory matches"),
    ("memory_remember", {"content": "x" * 1_000_000, "kind": "fact"}, "1000000 characters; a claim holds 4-800"),
    ("memory_remember", {"content": "A claim of the wrong kind", "kind": "rumour"}, "invalid kind: unknown kind 'rumour'"),
    ("memory_remember", {"content": "A claim with bad aliases", "kind": "fact", "aliases": [1, 2]}, "invalid aliases"),
    ("memory_remember", {"content": "A claim correcting nothing", "kind": "fact", "corrects": ["zzzzzzzzzz"]},
     "no memory matches"),
    ("memory_remember", {"content": "A claim", "kind": "fact", "space": "other"}, "unknown argument 'space'"),
    ("memory_correct", {"id": "zzzzzzzzzz", "text": "Corrected text here"}, "no memory matches"),
    ("memory_relate", {"from_id": "zzzzzzzzzz", "role": "corrects", "to_id": "yyyyyyyyyy"}, "no memory matches"),
    ("memory_relate", {"from_id": "zzzzzzzzzz", "role": "likes", "to_id": "yyyyyyyyyy"}, "invalid role"),
    ("memory_feedback", {"id": "zzzzzzzzzz", "verdict": "useful", "source": "s1"}, "no memory matches"),
    ("memory_feedback", {"id": "zzzzzzzzzz", "verdict": "useful"}, "invalid source: required"),
    ("memory_feedback", {"id": "zzzzzzzzzz", "verdict": "great", "source": "s1"}, "invalid verdict: unknown verdict"),
    ("memory_pin", {"id": "zzzzzzzzzz"}, "no memory matches"),
    ("memory_forget", {"id": "zzzzzzzzzz", "purge": "yes"}, "invalid purge: expected true or false"),
    ("memory_forget", {"id": "zzzzzzzzzz"}, "no memory matches"),
    ("memory_undo", {"event": "zzzzzzzzzz"}, "no event matches"),
    ("memory_nonesuch", {}, "unknown tool 'memory_nonesuch'"),
]


def test_bad_input_is_a_tool_error_and_writes_nothing(connect, db_path, stderr_file):
    with engine(db_path) as cairn:
        cairn.remember("The staging database runs on port 5433", kind="fact")
    before = db_fingerprint(db_path)

    async def scenario():
        async with connect("--verbose") as c:
            results = [await c.call_tool(name, args) for name, args, _ in BAD_CALLS]
            after_all = await c.call_tool("memory_show", {"id": "zzzzzzzzzzzz"})
            return results, after_all, db_fingerprint(db_path)

    results, still_running, during = run(scenario)
    for (name, args, reason), result in zip(BAD_CALLS, results, strict=True):
        message = text(result)
        assert result.is_error, (name, args)
        assert reason in message, (name, message)
        assert message.startswith("cairn: ") and "\n" not in message and len(message) < 600
        assert result.structured_content is None
    assert still_running.is_error  # the server answered after every bad call
    assert during == before == db_fingerprint(db_path)
    logged = stderr_file.read_text()
    assert "Traceback" not in logged
    assert "memory_show refused: no memory matches" in logged  # --verbose logs to stderr, never stdout


def test_tool_errors_carry_the_clis_reason(connect, db_path, cli):
    async def scenario():
        async with connect() as c:
            return [text(await c.call_tool("memory_recall", {"query": ""})),
                    text(await c.call_tool("memory_show", {"id": "abcdefabcdef"})),
                    text(await c.call_tool("memory_remember", {"content": "abc", "kind": "fact"}))]

    recall, show, remember = run(scenario)
    assert recall == cli("recall", "").err.strip()
    assert show == cli("show", "abcdefabcdef").err.strip()
    assert remember == cli("remember", "abc", "--kind", "fact").err.strip()


# -- one space per server ---------------------------------------------------------------------


def test_a_server_serves_one_space(connect, db_path):
    with engine(db_path, "other") as other:
        hidden = other.remember("The secret launch codename is Bluebird", kind="fact").memory.id

    async def scenario():
        async with connect(space="work") as c:
            mine = ok(await c.call_tool("memory_remember", {"content": "The launch codename is Osprey", "kind": "fact"}))
            found = ok(await c.call_tool("memory_recall", {"query": "launch codename"}))
            show = await c.call_tool("memory_show", {"id": hidden})
            return mine, found, show

    mine, found, show = run(scenario)
    assert [r["id"] for r in found["results"]] == [mine["id"]]
    assert show.is_error and "no memory matches" in text(show)
    with engine(db_path, "work") as work:
        assert work.get(mine["id"]).space == "work"


# -- two clients at once ------------------------------------------------------------------------


def test_two_clients_write_and_read_one_database_at_once(connect, db_path):
    async def client(name: str, out: dict):
        async with connect() as c:
            ids = []
            for i in range(8):
                r = ok(await c.call_tool("memory_remember", {"content": f"Client {name} note number {i} about kiwis",
                                                             "kind": "fact"}))
                ids.append(r["id"])
            out[name] = ids
            out[name + "-search"] = ok(await c.call_tool("memory_search", {"query": "kiwis note", "limit": 10}))

    async def scenario():
        out: dict = {}
        async with anyio.create_task_group() as tg:
            tg.start_soon(client, "alpha", out)
            tg.start_soon(client, "beta", out)
        return out

    out = run(scenario)
    with engine(db_path) as cairn:
        assert cairn.list(per_page=100).total == 16
        assert {cairn.get(i).id for i in out["alpha"] + out["beta"]} == set(out["alpha"] + out["beta"])
    assert out["alpha-search"]["results"] and out["beta-search"]["results"]


# -- the wire itself --------------------------------------------------------------------------


def test_stdout_carries_only_protocol_messages(db_path, tmp_path):
    """Driven by hand, with stdout a file (so the server uses the SDK's own streams rather
    than its pipe transport): every line on stdout is a JSON-RPC message, logs go to stderr."""
    import subprocess
    import sys
    import time

    messages = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "memory_remember", "arguments": {"content": "A claim of no kind", "kind": "rumour"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "memory_remember", "arguments": {"content": "The wire carries only JSON", "kind": "fact"}}},
    ]
    out, err = tmp_path / "stdout.jsonl", tmp_path / "stderr.log"
    with open(out, "wb") as sink, open(err, "wb") as errors:
        proc = subprocess.Popen([sys.executable, "-m", "cairn", "--db", str(db_path), "mcp", "--verbose"],
                                stdin=subprocess.PIPE, stdout=sink, stderr=errors)
        assert proc.stdin is not None
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages).encode())
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        while out.read_text().count("\n") < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    replies = {m["id"]: m for m in map(json.loads, out.read_text().splitlines())}
    assert set(replies) == {0, 2, 3} and all(m["jsonrpc"] == "2.0" for m in replies.values())
    assert replies[2]["result"]["isError"] is True
    assert replies[3]["result"]["isError"] is False and replies[3]["result"]["structuredContent"]["status"] == "provisional"
    assert "memory_remember called" in err.read_text()


def test_a_server_on_sockets_answers(db_path):
    """Node-based clients (Claude Code among them) give the server socketpairs, not pipes."""
    import socket
    import subprocess
    import sys

    ours, theirs = socket.socketpair()
    with ours, theirs:
        proc = subprocess.Popen([sys.executable, "-m", "cairn", "--db", str(db_path), "mcp"],
                                stdin=theirs.fileno(), stdout=theirs.fileno(), stderr=subprocess.PIPE)
        theirs.close()
        hello = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                 "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "n", "version": "0"}}}
        ours.sendall((json.dumps(hello) + "\n").encode())
        reply = ours.makefile("rb").readline()
        ours.shutdown(socket.SHUT_WR)
        assert proc.wait(timeout=60) == 0
        assert proc.stderr is not None and b"Traceback" not in proc.stderr.read()
    assert json.loads(reply)["result"]["serverInfo"]["name"] == "cairn"


def test_an_agent_that_asks_gets_dormant_matches_labelled(connect, db_path):
    """Who asks decides dormancy: memory_recall is an explicit lookup, so a dormant match
    comes back labelled `dormant`; what a hook injects (``inject``) leaves it out, and the
    tool leaves it out too when told to, even with nothing current to offer."""
    from datetime import timedelta

    with Cairn(db_path, now=NOW - timedelta(days=900)) as old:
        old.remember("The office wifi network is called Fernweh", kind="fact")
    with engine(db_path) as cairn:
        assert cairn.recall("office wifi network", trace=False, inject=True).results == []

    async def scenario():
        async with connect() as client:
            asked = await client.call_tool("memory_recall", {"query": "office wifi network"})
            refused = await client.call_tool("memory_recall", {"query": "office wifi network", "include_dormant": False})
            return ok(asked), ok(refused)

    asked, refused = run(scenario)
    assert [r["content"] for r in asked["results"]] == ["The office wifi network is called Fernweh"]
    assert "dormant" in asked["results"][0]["markers"]
    assert refused["results"] == []
