"""The tokenizer's ASCII shortcut: an ASCII text is split with an ASCII-only pattern, and
the pattern with the CJK classes is compiled only when a text that is not ASCII needs it
(compiling it is about 2 ms of a recall process). The tokens are the general pattern's."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

from cairn.text import _TOKEN_SOURCE, STOPWORDS, Token, index_text, stem, tokenize

GOLDEN = Path(__file__).resolve().parents[1] / "recall" / "golden" / "corpus.json"


def _general(text: str) -> list[Token]:
    """The tokens the general pattern gives (what tokenize did for every text)."""
    from cairn.text import normalize

    tokens: list[Token] = []
    for match in re.finditer(_TOKEN_SOURCE, normalize(text)):
        chunk = match.group(0)
        if match.lastindex == 1:
            grams = [chunk] if len(chunk) == 1 else [chunk[i : i + 2] for i in range(len(chunk) - 1)]
            for gram in grams:
                tokens.append(Token(gram, gram, len(tokens), gram in STOPWORDS, True))
        else:
            tokens.append(Token(chunk, stem(chunk), len(tokens), chunk in STOPWORDS, False))
    return tokens


def _texts() -> list[str]:
    rng = random.Random(3)
    pieces = ["deploy", "the", "_", "-", ".", " ", "v1.2", "DB_PASSWORD", "caching", "it's", "42", "\t", "/usr/bin",
              "Größe", "café", "東京", "会議", "x"]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 12))) for _ in range(2000)]
    corpus = json.loads(GOLDEN.read_text(encoding="utf-8"))
    texts += [json.dumps(corpus, ensure_ascii=False)[i : i + 300] for i in range(0, 60000, 300)]
    return texts


def test_tokens_are_the_general_patterns_on_every_text():
    texts = _texts()
    assert sum(t.isascii() for t in texts) > 500 and sum(not t.isascii() for t in texts) > 500
    for text in texts:
        assert tokenize(text) == _general(text), text
        assert index_text(text) == " ".join(t.term for t in _general(text)), text
    # Control: the two kinds of token both occur, and CJK runs become bigrams.
    assert [t.term for t in tokenize("东京会议 deploys")] == ["东京", "京会", "会议", "deploy"]


_PROBE = """
import json, sys
from cairn import text
text.tokenize(sys.argv[1])
print(json.dumps(text._token_re.cache_info().currsize))
"""


def _compiled_after(sample: str) -> int:
    done = subprocess.run([sys.executable, "-c", _PROBE, sample], capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout)


def test_an_ascii_text_never_compiles_the_cjk_pattern():
    assert _compiled_after("what runs billing?") == 0
    assert _compiled_after("München office") == 0  # ASCII once its accent is folded off
    assert _compiled_after("東京 office") == 1  # not ASCII: the general pattern
