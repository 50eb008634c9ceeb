"""Secret redaction before storage.

Every text Cairn writes (record content, aliases, event reasons, sources) passes through
:func:`redact` first, so a secret never reaches the record, the full-text index or an
event snapshot. A match is replaced by a typed placeholder such as ``[REDACTED:aws-key]``.

The patterns are anchored on the shapes the issuers document (fixed prefixes, lengths,
alphabets) rather than on entropy, so ordinary hex ids, UUIDs, git SHAs and base64 in
prose stay untouched; the tests hold a list of such near-misses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pattern:
    label: str
    regex: re.Pattern[str]
    group: int = 0  # which group is the secret (0: the whole match)


def _p(label: str, pattern: str, group: int = 0, flags: int = 0) -> Pattern:
    return Pattern(label, re.compile(pattern, flags), group)


PATTERNS: tuple[Pattern, ...] = (
    _p(
        "private-key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        flags=re.DOTALL,
    ),
    _p("aws-key", r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])"),
    _p(
        "aws-secret",
        r"(?i:aws_?secret_?access_?key|aws_?secret)\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        group=1,
    ),
    _p("github-token", r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})"),
    _p("gitlab-token", r"(?<![A-Za-z0-9_])glpat-[A-Za-z0-9_\-]{20,}"),
    _p("slack-token", r"(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10,}"),
    _p("slack-webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}"),
    _p("npm-token", r"(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
    _p("google-api-key", r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])"),
    _p("google-oauth-token", r"(?<![A-Za-z0-9_-])ya29\.[0-9A-Za-z_-]{20,}"),
    _p("jwt", r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    _p("bearer-token", r"(?i:\bbearer)\s+([A-Za-z0-9\-._~+/]{16,}=*)", group=1),
    _p(
        "password",
        r"(?i:\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|token))"
        r"[\"']?\s*[:=]\s*(\"[^\"\s]{4,}\"|'[^'\s]{4,}'|[^\s\"',;]{4,})",
        group=1,
    ),
)


def placeholder(label: str) -> str:
    return f"[REDACTED:{label}]"


def redact(text: str) -> tuple[str, list[str]]:
    """Return ``text`` with every secret replaced, and the labels of what was found."""
    found: list[str] = []
    for pattern in PATTERNS:

        def swap(match: re.Match[str], pattern: Pattern = pattern) -> str:
            secret = match.group(pattern.group)
            if secret.startswith("[REDACTED:"):
                return match.group(0)  # already redacted by an earlier, more specific pattern
            found.append(pattern.label)
            if pattern.group == 0:
                return placeholder(pattern.label)
            start, end = match.span(pattern.group)
            offset = match.start()
            whole = match.group(0)
            return whole[: start - offset] + placeholder(pattern.label) + whole[end - offset :]

        text = pattern.regex.sub(swap, text)
    return text, found
