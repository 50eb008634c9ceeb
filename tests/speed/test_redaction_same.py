"""The cheap prechecks in ``cairn.policy.redaction`` change the cost of :func:`redact`,
never its output: the current function is compared with a frozen copy of the one before
them (``redaction_before.py``) on every corpus the project has — the unit tests' secret
shapes and near-misses, the drill corpus, the bulk benchmark's synthetic turns, LoCoMo's
turns — and on generated texts built from the fragments the rules look for."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn.bench.drills.corpus import BENIGN, SECRETS
from cairn.bench.scale import Conversations
from cairn.policy import redaction

HERE = Path(__file__).parent
LOCOMO = Path("/work/shared/data/locomo10.json")


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


before = _load("redaction_before_oracle", HERE / "redaction_before.py")
_unit = _load("redaction_unit_cases", HERE.parent / "foundation" / "test_redaction.py")


def _unit_texts() -> list[str]:
    return [text for text, _, _ in _unit.SECRETS] + list(_unit.NEAR_MISSES)


def _corpus_texts() -> list[str]:
    return [text for text, _ in SECRETS] + list(BENIGN)


def _bench_turns(n: int = 12_000) -> list[str]:
    turns = []
    for origin, lines in Conversations(n).conversations():
        turns.append(origin)
        for line in lines:
            turn = json.loads(line)
            turns += [turn["text"], turn["speaker"]]
    return turns


def _locomo_turns() -> list[str]:
    if not LOCOMO.exists():
        pytest.skip("LoCoMo data not on this machine")
    turns = []
    for sample in json.loads(LOCOMO.read_text()):
        for key, session in sample["conversation"].items():
            if key.startswith("session_") and isinstance(session, list):
                turns += [turn.get("text", "") for turn in session]
    return turns


_NAMES = ["password", "Password", "PASSWORD", "passwd", "pass word", "passphrase", "passcode", "pwd", "secret",
          "client_secret", "api key", "API_KEY", "apiKey", "token", "authToken", "pin", "credentials", "DB_PASSWORD",
          "aws secret key", "okta token", "bearer", "Authorization: Basic", "ſecret", "KEY"]
_CONNECTORS = ["", " ", " is ", " IS ", " was ", " Was ", " for prod was ", " of root is ", " is now ", " was changed to ",
               "=", " = ", "==", ":", ": ", ":=", " => ", "\t", "\nis ", " is: ", "\u00a0is "]
_VALUES = ["hunter2", "S3cr3t-Val9", "correcthorse99", "xK9#mPw7Lr4Tn8Zq", "'quoted secret'", '"Hx9-long"', "field",
           "expired", "os.environ['X']", "${TOKEN}", "settings.SECRET_KEY", "4096", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
           "Zq9xK2mPw7Lr4Tn8Zq9xK2mPw7Lr4Tn8"]
_ENDS = ["", ".", ". Next", ", then", "!", " and more"]


def _shaped_texts() -> list[str]:
    """Every combination of a secret word, what joins it to a value, a value and an ending:
    the shapes the assignment and statement rules (the prechecked ones) look for."""
    return [f"the {name}{joint}{value}{end}" for name in _NAMES for joint in _CONNECTORS
            for value in _VALUES for end in _ENDS]


def _differences(texts: list[str]) -> list[str]:
    return [text for text in texts if redaction.redact(text) != before.redact(text)]


def test_the_corpora_are_as_large_as_promised():
    assert len(_unit.SECRETS) + len(SECRETS) >= 100 and len(_unit.NEAR_MISSES) + len(BENIGN) >= 60


@pytest.mark.parametrize("texts", [_unit_texts, _corpus_texts, _shaped_texts, _bench_turns, _locomo_turns],
                         ids=["unit", "drill-corpus", "shaped", "bench-turns", "locomo"])
def test_redact_is_unchanged_on_every_corpus(texts):
    chosen = texts()
    assert len(chosen) >= 20
    assert _differences(chosen) == []


def test_the_corpora_exercise_the_prechecked_rules():
    """Each precheck both skips (a text with the rule's keyword but not what it needs) and
    lets through (a text the rule then redacts), so the comparison above covers both."""
    texts = _unit_texts() + _corpus_texts() + _shaped_texts()[::7] + _bench_turns(3_000)
    for index, pattern in enumerate(redaction.PATTERNS):
        if not pattern.needs:
            continue
        need = redaction._compiled(pattern.needs, 0)
        lowered = [(t, t.lower()) for t in texts]
        keyed = [t for t, low in lowered if not pattern.keywords or any(k in low for k in pattern.keywords)]
        assert any(not need.search(t) for t in keyed), pattern.label
        assert any(pattern.regex.search(t) and need.search(t) for t in keyed), pattern.label
        # A necessary condition: wherever the rule matches, what it needs is there.
        assert all(need.search(m.group(0)) for t in texts for m in pattern.regex.finditer(t)), (index, pattern.label)


def test_a_wrong_precheck_is_caught(monkeypatch):
    """Negative control: a precheck that is not a necessary condition (the assignment rule
    needing "=" only, when ":" also separates) changes the output, and the comparison sees it."""
    patterns = list(redaction.PATTERNS)
    index = next(i for i, p in enumerate(patterns) if p.needs == r"[:=]")
    patterns[index] = patterns[index]._replace(needs="=")
    monkeypatch.setattr(redaction, "PATTERNS", tuple(patterns))
    assert _differences(_unit_texts() + _corpus_texts() + _shaped_texts())


_FRAGMENTS = [
    "password", "Password", "PASSWORD", "passwd", "passphrase", "pwd", "secret", "client_secret", "api_key",
    "apiKey", "token", "authToken", "key", "pin", "credentials", "DB_PASSWORD", "aws", "okta", "bearer", "Bearer",
    " is ", " IS ", " was ", " for ", " of ", " now ", " set to ", "=", "==", ":", ":=", "=>", " ", "\t", "\n", ".",
    ",", ";", "!", "?", "'", '"', "`", "(", ")", "$", "{", "}", "<", ">", "*", "-", "_", "/", "+", "@", "://",
    "hunter2", "S3cr3t-Val9", "correcthorse99", "xK9#mPw7Lr4Tn8Zq", "field", "expired", "os.environ", "ſ", "İ", "ı",
    "K", "MTIzNDU2Nzg5MDEyMzQ1Njc4", "abcdef", "sk-", "ghp_", "AKIA", "eyJ", "mysql", "curl -u", "sig=", "?token=",
]


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=12)), max_size=16))
def test_redact_is_unchanged_on_generated_texts(parts):
    text = "".join(parts)
    assert redaction.redact(text) == before.redact(text)
