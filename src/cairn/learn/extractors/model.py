"""The model extractor (``model``): claims proposed by any OpenAI-compatible
chat-completions endpoint (Ollama, llama.cpp, vLLM, or a hosted one), checked before use.

Configuration (flags of ``cairn learn``, else the environment)::

    CAIRN_MODEL_URL      base URL, e.g. http://127.0.0.1:11434/v1 (``/chat/completions`` is appended)
    CAIRN_MODEL          model name
    CAIRN_MODEL_KEY_ENV  name of the environment variable holding the API key (default CAIRN_MODEL_KEY)

The key is read from the environment when a request is sent, sent as a bearer token, and
never stored or printed.

What leaves the process: the user turns only, each redacted first
(:func:`cairn.policy.redaction.redact`), and the candidates' ids, kinds and (redacted)
texts. Structured output is requested with ``response_format`` ``json_schema`` (strict):
``{"claims": [{"kind", "content", "replaces", "aliases"}]}``.

What is kept, claim by claim — anything else is rejected with a reason the run reports:

* exactly the keys kind/content/replaces/aliases (a claim trying to set ``evidence``,
  ``confidence``, ``status`` or anything else is rejected whole: the engine decides those);
* a kind of fact, preference, decision, project_state;
* content grounded in the turns: at least :data:`GROUNDED` of its content terms occur in
  the text that was sent (a model's invention is not the user's statement);
* ``replaces`` null or one of the candidates offered.

A reply that is not the JSON asked for fails the run (:class:`~cairn.errors.PluginError`),
as does an endpoint that times out or answers an error after the retries: extraction runs
before anything is written, so a failing endpoint leaves the store as it was.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass

from ...errors import PluginError
from ...model import Kind
from ...policy.redaction import redact
from ...text import content_terms
from ..batch import CLAIM_KEYS, CLAIM_KINDS, Batch, ClaimSpec, SourceSpec
from . import GROUP, Candidate, Proposal

GROUNDED = 0.8  # share of a claim's content terms that must occur in the text sent
MAX_SOURCE_CHARS = 24_000  # user text per request: about 6k tokens, within a small local model's context
TIMEOUT = 30.0  # seconds per request
RETRIES = 2  # further attempts after a timeout, a connection error or a 5xx answer
BACKOFF = 0.5  # seconds before the first retry, doubled after each
DEFAULT_KEY_ENV = "CAIRN_MODEL_KEY"

SYSTEM_PROMPT = """\
You extract durable memories from a user's messages: explicit preferences, decisions,
facts about the user and their work, requests to remember, and corrections. Use the
user's own words. Ignore questions, hypotheticals, quoted or pasted text, what other
people said, and anything the user asks not to remember. For a correction, set
"replaces" to the id of the one candidate it corrects, else null. Propose nothing you
are unsure of; an empty list is a good answer."""

SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["claims"],
    "properties": {
        "claims": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["kind", "content", "replaces", "aliases"],
                "properties": {
                    "kind": {"type": "string", "enum": [k.value for k in CLAIM_KINDS]},
                    "content": {"type": "string"},
                    "replaces": {"type": ["string", "null"]},
                    "aliases": {"type": "array", "items": {"type": "string"}},
                },
            },
        }
    },
}


@dataclass(frozen=True, slots=True)
class Endpoint:
    url: str
    model: str
    key_env: str = DEFAULT_KEY_ENV
    timeout: float = TIMEOUT
    retries: int = RETRIES

    @classmethod
    def from_env(cls, url: str | None = None, model: str | None = None, key_env: str | None = None,
                 timeout: float | None = None) -> Endpoint:
        found_url = url or os.environ.get("CAIRN_MODEL_URL", "")
        found_model = model or os.environ.get("CAIRN_MODEL", "")
        if not found_url or not found_model:
            raise PluginError(GROUP, "model", "needs an endpoint: --model-url and --model (or CAIRN_MODEL_URL, CAIRN_MODEL)")
        if not found_url.startswith(("http://", "https://")):
            raise PluginError(GROUP, "model", f"the endpoint URL must start with http:// or https://: {found_url!r}")
        return cls(found_url.rstrip("/"), found_model, key_env or os.environ.get("CAIRN_MODEL_KEY_ENV", DEFAULT_KEY_ENV),
                   TIMEOUT if timeout is None else timeout)


def redacted(text: str) -> str:
    return redact(text)[0]


class ModelExtractor:
    """The OpenAI-compatible extractor (see the module docstring). Built with no
    arguments (as the entry point builds it) it reads its endpoint from the environment
    when it runs; :meth:`configured` gives one with explicit settings."""

    name = "model"
    method = "model"  # the evidence method of its claims
    max_source_chars = MAX_SOURCE_CHARS  # `cairn learn` sends a long transcript in requests of this size

    def __init__(self, endpoint: Endpoint | None = None) -> None:
        self.endpoint = endpoint

    @classmethod
    def configured(cls, **settings) -> ModelExtractor:
        return cls(Endpoint.from_env(**settings))

    def extract(self, source: SourceSpec) -> Batch:
        proposal = self.extract_turns(source, [source.text], ())
        return proposal.batch

    def extract_turns(self, source: SourceSpec, turns: Sequence[str], candidates: Sequence[Candidate]) -> Proposal:
        endpoint = self.endpoint or Endpoint.from_env()
        sent = [redacted(t) for t in turns]
        offered = [{"id": c.ref, "kind": c.kind.value, "content": redacted(c.content)} for c in candidates]
        reply = self._ask(endpoint, sent, offered)
        raw_claims = _claims_of(reply)
        said = set(content_terms("\n".join(sent)))
        refs = {c.ref for c in candidates}
        claims: list[ClaimSpec] = []
        rejected: list[str] = []
        for n, raw in enumerate(raw_claims):
            reason = _rejection(raw, said, refs)
            if reason:
                rejected.append(f"model claim {n}: {reason}")
                continue
            claims.append(ClaimSpec(len(claims), Kind(raw["kind"]), raw["content"], raw.get("replaces"),
                                    tuple(raw.get("aliases") or ())))
        return Proposal(Batch(source, tuple(claims)), tuple(rejected))

    # -- the request ------------------------------------------------------------------

    def _ask(self, endpoint: Endpoint, turns: list[str], candidates: list[dict]) -> dict:
        user = json.dumps({"user_messages": turns, "candidates": candidates}, ensure_ascii=False)
        body = {
            "model": endpoint.model,
            "messages": [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}],
            "temperature": 0,
            "response_format": {"type": "json_schema",
                                "json_schema": {"name": "cairn_claims", "strict": True, "schema": SCHEMA}},
        }
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(endpoint.key_env)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        request = urllib.request.Request(f"{endpoint.url}/chat/completions", json.dumps(body).encode("utf-8"), headers)
        delay, last = BACKOFF, ""
        for attempt in range(endpoint.retries + 1):
            if attempt:
                time.sleep(delay)
                delay *= 2
            try:
                with urllib.request.urlopen(request, timeout=endpoint.timeout) as response:  # noqa: S310 - http(s) checked
                    payload = response.read()
            except urllib.error.HTTPError as err:
                last = f"HTTP {err.code}"
                if err.code < 500 and err.code != 429:
                    break  # a client error does not improve by asking again
                continue
            except (urllib.error.URLError, TimeoutError, OSError) as err:
                reason = getattr(err, "reason", err)
                timed_out = isinstance(reason, TimeoutError) or "timed out" in str(reason)
                last = "timed out" if timed_out else f"unreachable ({reason})"
                continue
            return _message_json(payload)
        tries = attempt + 1
        attempts = f"{tries} attempt{'s' if tries > 1 else ''}"
        raise PluginError(GROUP, "model", f"the endpoint failed: {last} after {attempts}; nothing was written")


def _message_json(payload: bytes) -> dict:
    """The JSON object in the first choice's message content; PluginError otherwise."""
    try:
        doc = json.loads(payload)
        content = doc["choices"][0]["message"]["content"]
        reply = json.loads(content)
    except (ValueError, KeyError, IndexError, TypeError) as err:
        what = type(err).__name__
        raise PluginError(GROUP, "model", f"the reply is not the JSON asked for ({what}); nothing was written") from None
    if not isinstance(reply, dict):
        raise PluginError(GROUP, "model", "the endpoint's reply is not a JSON object; nothing was written")
    return reply


def _claims_of(reply: dict) -> list:
    claims = reply.get("claims")
    if not isinstance(claims, list):
        raise PluginError(GROUP, "model", 'the endpoint\'s reply has no "claims" list; nothing was written')
    return claims


def _rejection(raw: object, said: set[str], refs: set[str]) -> str | None:
    """Why one proposed claim is rejected, or None when it is kept."""
    if not isinstance(raw, dict):
        return "not an object"
    extra = sorted(set(raw) - CLAIM_KEYS)
    if extra:
        return f"may propose only kind/content/replaces/aliases, not {extra}"
    if raw.get("kind") not in {k.value for k in CLAIM_KINDS}:
        return f"unknown kind {raw.get('kind')!r}"
    content = raw.get("content")
    if not isinstance(content, str) or not content.strip():
        return "empty content"
    replaces = raw.get("replaces")
    if replaces is not None and replaces not in refs:
        return f"replaces {replaces!r}, which is not a candidate"
    aliases = raw.get("aliases", [])
    if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        return "aliases must be a list of strings"
    terms = set(content_terms(content))
    if not terms or len(terms & said) / len(terms) < GROUNDED:
        return "not grounded in the source text"
    return None
