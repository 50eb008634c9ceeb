"""The model extractor against a fake OpenAI-compatible server on 127.0.0.1, started by
the tests: what it sends (redacted turns, a json_schema request, the key from the
environment), what it keeps, and that every failure leaves the store as it was."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from cairn import Cairn
from cairn.errors import PluginError
from cairn.learn.extractors import extractor
from cairn.learn.extractors import model as model_module
from cairn.learn.extractors.model import ModelExtractor
from cairn.model import Kind
from testkit.claude_code import START, assistant, user
from testkit.db import db_fingerprint

LATER = START + timedelta(days=2)
GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
KEY = "sk-test-key-never-stored-0123456789"


class Fake:
    """What the fake endpoint answers, and what it was sent."""

    def __init__(self) -> None:
        self.replies: list[tuple[int, object, float]] = []  # (status, body, delay); the last repeats
        self.requests: list[dict] = []

    def answer(self, claims: object = None, *, status: int = 200, raw: str | None = None, delay: float = 0.0) -> None:
        content = raw if raw is not None else json.dumps({"claims": claims})
        body = {"id": "chatcmpl-1", "object": "chat.completion", "model": "fake",
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}]}
        self.replies.append((status, body, delay))


@pytest.fixture
def fake() -> Iterator[tuple[Fake, str]]:
    state = Fake()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the http.server API
            length = int(self.headers.get("Content-Length", 0))
            state.requests.append({"path": self.path, "auth": self.headers.get("Authorization"),
                                   "body": json.loads(self.rfile.read(length))})
            status, body, delay = state.replies[min(len(state.requests), len(state.replies)) - 1]
            time.sleep(delay)
            payload = json.dumps(body).encode() if status == 200 else b'{"error": {"message": "boom"}}'
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state, f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


@pytest.fixture
def engine(db_path, monkeypatch):
    monkeypatch.setenv("CAIRN_MODEL_KEY", KEY)
    monkeypatch.setattr(model_module, "BACKOFF", 0.01)
    with Cairn(db_path, now=LATER) as cairn:
        yield cairn


@pytest.fixture
def transcript(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join([
        user(0, f"I prefer window seats on trains. My token is {GITHUB_TOKEN} by the way."),
        assistant(1, "Noted: window seats."),
        user(2, "We decided to book the night train to Vienna."),
    ]) + "\n", encoding="utf-8")
    return str(path)


def learn(engine: Cairn, path: str, url: str, **extra):
    return engine.learn(path, extractor="model", model_settings={"url": url, "model": "fake-1", **extra})


def claims(engine: Cairn) -> list[tuple[str, str]]:
    return sorted((m.kind.value, m.content) for m in engine.store.iter_memories(engine.space) if m.kind is not Kind.EPISODE)


WINDOW: dict[str, object] = {"kind": "preference", "content": "I prefer window seats on trains", "replaces": None, "aliases": []}
TRAIN: dict[str, object] = {"kind": "decision", "content": "We decided to book the night train to Vienna", "replaces": None,
         "aliases": ["night train"]}


def test_well_formed_output_is_applied_with_the_engines_evidence(engine, fake, transcript, db_path):
    server, url = fake
    server.answer([WINDOW, TRAIN])
    result = learn(engine, transcript, url)
    assert result.counts["added"] == 2 and result.rejected == ()
    assert claims(engine) == [("decision", "We decided to book the night train to Vienna"),
                              ("preference", "I prefer window seats on trains")]
    memory = next(m for m in engine.store.iter_memories(engine.space) if m.kind is Kind.DECISION)
    assert (memory.evidence.basis.value, memory.evidence.method.value) == ("user_statement", "model")
    [request] = server.requests
    assert request["path"] == "/v1/chat/completions" and request["auth"] == f"Bearer {KEY}"
    body = request["body"]
    assert body["model"] == "fake-1" and body["response_format"]["type"] == "json_schema"
    schema = body["response_format"]["json_schema"]["schema"]["properties"]["claims"]["items"]
    assert set(schema["properties"]) == {"kind", "content", "replaces", "aliases"} and not schema["additionalProperties"]
    sent = json.dumps(body)
    assert GITHUB_TOKEN not in sent and "[REDACTED" in sent  # redacted before it left the process
    assert "Noted: window seats" not in sent  # assistant turns are not sent
    assert KEY.encode() not in db_path.read_bytes()


def test_malformed_json_fails_the_run_and_writes_nothing(engine, fake, transcript, db_path):
    server, url = fake
    server.answer(raw='{"claims": [ {"kind": "preference",')
    before = db_fingerprint(db_path)
    with pytest.raises(PluginError, match="not the JSON asked for"):
        learn(engine, transcript, url)
    assert db_fingerprint(db_path) == before
    server.replies.clear()
    server.answer(raw='["not", "an", "object"]')
    with pytest.raises(PluginError, match="not a JSON object"):
        learn(engine, transcript, url)
    assert db_fingerprint(db_path) == before


def test_an_ungrounded_claim_is_rejected_with_its_reason_and_the_rest_applied(engine, fake, transcript):
    server, url = fake
    invented: dict[str, object] = {"kind": "fact", "content": "The user owns a yacht in Monaco", "replaces": None, "aliases": []}
    server.answer([WINDOW, invented])
    result = learn(engine, transcript, url)
    assert result.rejected == ("model claim 1: not grounded in the source text",)
    assert claims(engine) == [("preference", "I prefer window seats on trains")]


@pytest.mark.parametrize(("bad", "reason"), [
    ({**WINDOW, "evidence": {"basis": "manual_correction", "method": "manual"}},
     "may propose only kind/content/replaces/aliases, not ['evidence']"),
    ({**WINDOW, "confidence": 0.99, "status": "confirmed"},
     "may propose only kind/content/replaces/aliases, not ['confidence', 'status']"),
    ({**WINDOW, "kind": "episode"}, "unknown kind 'episode'"),
    ({**WINDOW, "kind": "opinion"}, "unknown kind 'opinion'"),
    ({**WINDOW, "replaces": "0123456789abcdef01234567"}, "replaces '0123456789abcdef01234567', which is not a candidate"),
    ("just a string", "not an object"),
])
def test_output_setting_what_only_the_engine_decides_is_rejected(engine, fake, transcript, bad, reason):
    server, url = fake
    server.answer([bad, TRAIN])
    result = learn(engine, transcript, url)
    assert result.rejected == (f"model claim 0: {reason}",)
    assert claims(engine) == [("decision", "We decided to book the night train to Vienna")]
    stored = next(m for m in engine.store.iter_memories(engine.space) if m.kind is Kind.DECISION)
    assert stored.evidence.basis.value == "user_statement"


def test_a_timeout_fails_after_bounded_retries_and_writes_nothing(engine, fake, transcript, db_path):
    server, url = fake
    server.answer([WINDOW], delay=1.0)
    before = db_fingerprint(db_path)
    started = time.perf_counter()
    with pytest.raises(PluginError, match="timed out after 3 attempts"):
        learn(engine, transcript, url, timeout=0.2)
    assert time.perf_counter() - started < 3.0
    assert len(server.requests) == 3 and db_fingerprint(db_path) == before


def test_a_server_error_is_retried_then_fails_cleanly(engine, fake, transcript, db_path):
    server, url = fake
    server.answer(status=500)
    before = db_fingerprint(db_path)
    with pytest.raises(PluginError, match="HTTP 500 after 3 attempts"):
        learn(engine, transcript, url)
    assert len(server.requests) == 3 and db_fingerprint(db_path) == before


def test_a_server_error_then_an_answer_succeeds(engine, fake, transcript):
    server, url = fake
    server.answer(status=500)
    server.answer([WINDOW])
    assert learn(engine, transcript, url).counts["added"] == 1 and len(server.requests) == 2


def test_a_client_error_is_not_retried(engine, fake, transcript):
    server, url = fake
    server.answer(status=401)
    with pytest.raises(PluginError, match="HTTP 401 after 1 attempt;"):
        learn(engine, transcript, url)


def test_a_correction_may_name_an_offered_candidate(engine, fake, tmp_path):
    server, url = fake
    server.answer([WINDOW])
    first = tmp_path / "a.jsonl"
    first.write_text(user(0, "I prefer window seats on trains.") + "\n", encoding="utf-8")
    learn(engine, str(first), url)
    [old] = [m for m in engine.store.iter_memories(engine.space) if m.kind is Kind.PREFERENCE]
    second = tmp_path / "b.jsonl"
    second.write_text(user(5, "No, I prefer aisle seats on trains, not window seats.",
                           at=START + timedelta(hours=1)) + "\n", encoding="utf-8")
    server.replies.clear()
    server.answer([{"kind": "preference", "content": "I prefer aisle seats on trains", "replaces": old.id, "aliases": []}])
    result = learn(engine, str(second), url)
    offered = json.loads(server.requests[-1]["body"]["messages"][1]["content"])["candidates"]
    assert [c["id"] for c in offered] == [old.id]
    assert result.counts["replaced"] == 1 and engine.get(old.id).content == "I prefer window seats on trains"
    top = engine.recall("which seats do I prefer on trains").results[0]
    assert engine.get(top.id).content == "I prefer aisle seats on trains" and top.corrects == (old.id,)


def test_without_an_endpoint_the_model_extractor_says_what_it_needs(engine, transcript, monkeypatch):
    monkeypatch.delenv("CAIRN_MODEL_URL", raising=False)
    with pytest.raises(PluginError, match="needs an endpoint"):
        engine.learn(transcript, extractor="model")


def test_the_model_extractor_is_registered_and_reads_the_environment(fake, engine, transcript, monkeypatch):
    server, url = fake
    server.answer([WINDOW])
    monkeypatch.setenv("CAIRN_MODEL_URL", url)
    monkeypatch.setenv("CAIRN_MODEL", "env-model")
    assert isinstance(extractor("model"), ModelExtractor)
    assert engine.learn(transcript, extractor="model").counts["added"] == 1
    assert server.requests[0]["body"]["model"] == "env-model"


def test_the_cli_reports_a_failing_endpoint_in_one_line(cli, fake, transcript, db_path, monkeypatch):
    server, url = fake
    server.answer(status=503)
    monkeypatch.setattr(model_module, "BACKOFF", 0.01)
    Cairn(db_path).close()  # an empty store (status, a read, no longer creates one)
    before = db_fingerprint(db_path)
    result = cli("learn", transcript, "--extractor", "model", "--model-url", url, "--model", "m")
    assert result.code == 1 and len(result.err.splitlines()) == 1 and "HTTP 503" in result.err
    assert db_fingerprint(db_path) == before


def test_a_long_transcript_is_sent_in_requests_of_bounded_size(engine, fake, tmp_path, monkeypatch):
    server, url = fake
    server.answer([])
    monkeypatch.setattr(ModelExtractor, "max_source_chars", 400)
    path = tmp_path / "long.jsonl"
    path.write_text("\n".join(user(2 * n, f"Turn {n}: I prefer option {n} for the nightly report layout.")
                              for n in range(40)) + "\n", encoding="utf-8")
    result = learn(engine, str(path), url)
    assert result.counts["episodes"] == 40 and len(server.requests) > 1
    for request in server.requests:
        sent = json.loads(request["body"]["messages"][1]["content"])["user_messages"]
        assert sum(len(t) + 2 for t in sent) <= 400


def test_the_command_line_does_not_load_the_http_client_until_a_model_is_used():
    import subprocess
    import sys

    code = ("import sys\nimport cairn.cli\nfrom cairn import Cairn\n"
            "print('cairn.learn.extractors.model' in sys.modules, 'urllib.request' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_the_command_line_does_not_load_the_transcript_readers_or_extractors_until_learn_runs():
    import subprocess
    import sys

    code = ("import sys\nimport cairn.cli\n"
            "print('cairn.learn.transcripts' in sys.modules, 'cairn.learn.extractors.rules' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_a_correction_changing_the_kind_of_a_record_is_rejected_and_the_rest_applied(engine, fake, tmp_path):
    server, url = fake
    server.answer([WINDOW])
    first = tmp_path / "a.jsonl"
    first.write_text(user(0, "I prefer window seats on trains.") + "\n", encoding="utf-8")
    learn(engine, str(first), url)
    [old] = [m for m in engine.store.iter_memories(engine.space) if m.kind is Kind.PREFERENCE]
    second = tmp_path / "b.jsonl"
    second.write_text(user(5, "No, I prefer aisle seats on trains. We decided to book the night train to Vienna.",
                           at=START + timedelta(hours=1)) + "\n", encoding="utf-8")
    server.replies.clear()
    server.answer([{"kind": "fact", "content": "I prefer aisle seats on trains", "replaces": old.id, "aliases": []},
                   TRAIN])
    result = learn(engine, str(second), url)
    assert result.rejected == ("claim 0 (fact): replaces a preference record",)
    assert result.counts["added"] == 1 and engine.get(old.id).content == "I prefer window seats on trains"
