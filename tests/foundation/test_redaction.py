"""Secrets are replaced by typed placeholders before anything is written; near-misses
(ordinary hex ids, UUIDs, git SHAs, base64 in prose) stay untouched."""

from __future__ import annotations

import sqlite3

import pytest

from cairn.policy.redaction import redact

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
    ("export API_KEY=sk_live_0123456789abcdef", "sk_live_0123456789abcdef", "password"),
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
