"""Secrets are replaced by typed placeholders before anything is written; near-misses
(ordinary hex ids, UUIDs, git SHAs, base64 in prose) stay untouched."""

from __future__ import annotations

import sqlite3

import pytest

from cairn.bench.drills.corpus import BENIGN
from cairn.bench.drills.corpus import SECRETS as CORPUS
from cairn.policy.redaction import entropy, redact

# Built from parts so that this file itself does not trip secret scanners.
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
GH = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
GH_PAT = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMN"
GL = "glpat-" + "x1y2z3A4B5C6D7E8F9G0"
SLACK = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
NPM = "npm_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
GOOGLE = "AIza" + "SyA1B2C3D4E5F6G7H8I9J0K1L2M3N4O5P6Q"
JWT = "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
KEY = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq\nabcdef==\n-----END RSA PRIVATE KEY-----"

SECRETS = [
    (f"aws key {AWS} in config", AWS, "aws-key"),
    (
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "aws-secret",
    ),
    (f"token {GH} for ci", GH, "github-token"),
    (f"fine-grained {GH_PAT}", GH_PAT, "github-token"),
    (f"gitlab {GL} here", GL, "gitlab-token"),
    (f"slack {SLACK} bot", SLACK, "slack-token"),
    (f"publish with {NPM}", NPM, "npm-token"),
    (f"maps key {GOOGLE}", GOOGLE, "google-api-key"),
    (f"session {JWT}", JWT, "jwt"),
    (f"key:\n{KEY}\nend", "MIIEowIBAAKCAQEA7bq", "private-key"),
    ("Authorization: Bearer abcDEF0123456789ghiJKL", "abcDEF0123456789ghiJKL", "bearer-token"),
    ("db password=hunter2-very-secret", "hunter2-very-secret", "password"),
    ("client_secret: 'Zq9-long-value'", "Zq9-long-value", "password"),
    ("export API_KEY=sk_live_0123456789abcdef", "sk_live_0123456789abcdef", "stripe-key"),
    ("export DB_PASSWORD=Vq7-long-value", "Vq7-long-value", "password"),
]

NEAR_MISSES = [
    "memory 3f2a9c0b1d4e5f6a7b8c9d0e is useful",  # Cairn's own 24-hex ids
    "request id 123e4567-e89b-12d3-a456-426614174000 failed",  # UUID
    "fixed in 3f786850e387550fdab836ed7e6dc881de23001b",  # git SHA-1
    "the image is data like aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQ= in prose",  # base64 in prose
    "AKIA is the prefix AWS access keys use",  # prefix alone
    "the password reset flow needs two steps",  # the word without an assignment
    "we use bearer tokens for the api",  # the word bearer without a token
    "eyJ is how a JWT starts",
    "ghp_ tokens are GitHub personal tokens",
    "port 8080 and version 1.2.3",
]


@pytest.mark.parametrize("text, secret, label", SECRETS, ids=[s[2] + str(i) for i, s in enumerate(SECRETS)])
def test_every_secret_shape_is_redacted(text, secret, label):
    cleaned, found = redact(text)
    assert secret not in cleaned
    assert f"[REDACTED:{label}]" in cleaned
    assert label in found


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_misses_stay_untouched(text):
    assert redact(text) == (text, [])


def test_redaction_happens_before_record_index_and_event(cairn, db_path):
    m = cairn.remember(f"deploy with {GH} please", kind="fact", aliases=[f"tok {NPM}"], source=f"{AWS}").memory
    conn = sqlite3.connect(db_path)
    dump = "\n".join(
        repr(row) for table in ("memories", "events", "memories_fts") for row in conn.execute(f"SELECT * FROM {table}")
    )
    for secret in (GH, NPM, AWS):
        assert secret not in dump
    assert "[REDACTED:github-token]" in cairn.get(m.id).content


# -- the corpus: issued tokens, credentials in context, assignments; and near-misses ----



def test_the_corpus_is_as_large_as_promised():
    assert len(CORPUS) >= 100 and len(BENIGN) >= 60
    assert len({text for text, _ in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("text, secret", CORPUS, ids=[f"secret{i}" for i in range(len(CORPUS))])
def test_every_corpus_secret_is_redacted(text, secret):
    cleaned, found = redact(text)
    assert secret not in cleaned and found


@pytest.mark.parametrize("text", BENIGN, ids=[f"benign{i}" for i in range(len(BENIGN))])
def test_every_corpus_near_miss_is_left_as_it_is(text):
    assert redact(text) == (text, [])


def test_redaction_is_stable_when_run_twice():
    for text, _ in CORPUS[:40]:
        once = redact(text)[0]
        assert redact(once)[0] == once


def test_entropy_separates_random_from_repeated():
    assert entropy("aaaaaaaaaaaaaaaa") == 0.0
    assert entropy("Zq9xK2mPw7Lr4Tn8") > 3.5


@pytest.mark.parametrize("value", ["getpass.getpass()", "os.environ['X']", "$(pwd)", "<your key>", "${TOKEN}", "****",
                                   "field", "expired", "settings.SECRET_KEY"])
def test_code_placeholders_and_state_words_are_not_secrets(value):
    assert redact(f"password = {value}")[0] == f"password = {value}"
    # The same value after a real secret word in quotes-free prose stays too ...
    assert redact(f"the token: {value}")[0] == f"the token: {value}"


@pytest.mark.parametrize("value", ["Hx9-long-value", "'quoted secret'", "S3cr3tValue"])
def test_a_secret_looking_value_is_redacted_in_the_same_places(value):
    # ... while a value that looks like a credential is redacted (the negative control).
    assert value.strip("'") not in redact(f"password = {value}")[0]


# -- every stored field: origins included ----------------------------------------------

def _dump(db_path) -> str:
    conn = sqlite3.connect(db_path)
    try:
        return "\n".join(
            repr(row)
            for table in ("memories", "events", "memories_fts", "sources")
            for row in conn.execute(f"SELECT * FROM {table}")
        )
    finally:
        conn.close()


ORIGIN_SECRET = "Pg" + "Pass9xQ2wE7r"
ORIGIN = f"postgres://ci:{ORIGIN_SECRET}@db.internal/app"


def test_remember_redacts_its_origin(cairn, db_path):
    memory = cairn.remember("The billing service reads from the replica", kind="fact", origin=ORIGIN).memory
    assert ORIGIN_SECRET not in _dump(db_path)
    assert "[REDACTED:url-password]" in memory.origin
    # Negative control: an origin without a secret is kept exactly.
    assert cairn.remember("The worker runs nightly", kind="fact", origin="repo/billing").memory.origin == "repo/billing"


def test_a_batch_source_origin_is_redacted(cairn, db_path):
    from testkit.batches import batch, claim, source

    cairn.apply(batch(source("notes from the ops sync", origin=ORIGIN), claim("The cache layer uses Redis 7")))
    assert ORIGIN_SECRET not in _dump(db_path)


def test_ingest_origin_is_redacted(cairn, db_path, tmp_path):
    path = tmp_path / "talk.jsonl"
    path.write_text('{"id": "t1", "speaker": "ana", "text": "we deploy on fridays", "time": "2026-10-01T10:00:00Z"}\n')
    cairn.ingest(str(path), origin=ORIGIN)
    assert ORIGIN_SECRET not in _dump(db_path)


def _patterns_by_plain_search(lowered: str) -> list[int]:
    from cairn.policy.redaction import PATTERNS

    return [i for i, p in enumerate(PATTERNS) if not p.keywords or any(k in lowered for k in p.keywords)]


@pytest.mark.parametrize("seed", range(4))
def test_the_keyword_scan_selects_exactly_the_patterns_a_plain_search_selects(seed):
    """The prefix-tree scan that picks which rules run must find every keyword, including
    keywords inside or overlapping others (``sk`` in ``sk_live_``, ``key`` in ``accountkey``)."""
    import random

    from cairn.policy.redaction import _KEYWORDS, _todo

    rng = random.Random(seed)
    pieces = [*_KEYWORDS, " ", "x", "a", "-", "_"]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 10))) for _ in range(3000)]
    texts += [s.lower() for s, *_ in SECRETS] + [b.lower() for b in BENIGN]
    for text in texts:
        assert _todo(text, -1) == _patterns_by_plain_search(text), text
    assert _todo("nothing to see here", -1) != _patterns_by_plain_search("a token here")  # control: the text matters


@pytest.mark.parametrize("cheap", [0, 10**9], ids=["scan", "word-by-word"])
def test_both_ways_of_finding_keywords_select_the_same_patterns(monkeypatch, cheap):
    """A process's first short texts are searched keyword by keyword, the rest with the
    scan: either way the patterns selected are those of a plain search."""
    import random

    from cairn.policy import redaction

    monkeypatch.setattr(redaction, "_cheap_left", [cheap])
    rng = random.Random(5)
    pieces = [*redaction._KEYWORDS, " ", "x", "a", "-", "_"]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 6))) for _ in range(2000)]
    texts += [s.lower() for s, *_ in SECRETS] + [b.lower() for b in BENIGN] + [t.lower() for t in NEAR_MISSES]
    for text in texts:
        assert redaction._todo(text, -1) == _patterns_by_plain_search(text), text
    for text, secret, _ in SECRETS:
        assert secret not in redact(text)[0]


_BUILT_AFTER = """
import json
from cairn.policy import redaction
built = []
for text in json.loads(input()):
    redaction.redact(text)
    built.append(redaction._keyword_scan.cache_info().currsize)
print(json.dumps(built))
"""


def _scan_built_after(texts: list[str]) -> list[int]:
    """In a fresh interpreter: after each text is redacted, whether the scan is built."""
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _BUILT_AFTER], input=json.dumps(texts), capture_output=True,
                          text=True, timeout=60, check=True)
    return json.loads(done.stdout)


def test_a_short_text_is_redacted_without_building_the_scan():
    from cairn.policy.redaction import _CHEAP_TEXTS

    # A recall's query, with or without a keyword ("?" and "password" are keywords).
    assert _scan_built_after(["the staging deploy", "what runs billing?", "the db password is Vq7-long-value"]) == [0, 0, 0]
    # Bounded: past the first short texts, the scan is built for the rest, as for a long text.
    many = _scan_built_after(["a plain note"] * (_CHEAP_TEXTS + 2))
    assert many[_CHEAP_TEXTS - 1] == 0 and many[_CHEAP_TEXTS] == 1
    assert _scan_built_after(["plain words " * 40]) == [1]
