"""The redaction drill: every corpus secret must be gone, every near-miss unchanged."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...policy.redaction import redact
from .corpus import BENIGN, SECRETS


@dataclass
class RedactionResult:
    secrets: int
    caught: int
    benign: int
    altered: int
    missed: list[str] = field(default_factory=list)
    false_positives: list[str] = field(default_factory=list)

    @property
    def caught_share(self) -> float:
        return self.caught / self.secrets

    @property
    def false_positive_share(self) -> float:
        return self.altered / self.benign

    @property
    def ok(self) -> bool:
        return self.caught_share >= 0.98 and self.false_positive_share <= 0.02

    def lines(self) -> list[str]:
        out = [f"secrets caught: {self.caught}/{self.secrets} ({self.caught_share:.1%})",
               f"near-misses altered: {self.altered}/{self.benign} ({self.false_positive_share:.1%})"]
        out += [f"  missed: {text[:100]}" for text in self.missed]
        out += [f"  altered: {text[:100]}" for text in self.false_positives]
        return out


def run() -> RedactionResult:
    missed = [text for text, secret in SECRETS if secret in redact(text)[0]]
    altered = [text for text in BENIGN if redact(text)[0] != text]
    return RedactionResult(len(SECRETS), len(SECRETS) - len(missed), len(BENIGN), len(altered), missed, altered)
