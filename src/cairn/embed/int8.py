"""Exact integer products of stored int8 vectors and an int8 query, on onnxruntime.

The semantic search reads every stored vector once per query. As a float32 matrix,
100k vectors are 150 MB, and one pass over them is bound by memory bandwidth (about
11 ms on the bench machine, whatever computes the product). As int8 they are 38 MB:
onnxruntime's ``MatMulInteger`` kernel multiplies them by an int8 query with exact
int32 sums in about 2 ms there (measured: docs/benchmarks.md, "Semantic extra").

:func:`products` returns ``codes · q`` as exact int32 sums, where ``codes`` are the
stored int8 vectors held *shifted* as uint8 (each byte + 128, a flip of its top bit:
the kernel's fast form is uint8 × int8) and ``q`` an int8 vector; the shift is taken
back exactly (``- 128 · sum(q)``). The kernel's graph (one node) is written here as
ONNX protobuf bytes by hand: the ``onnx`` package is not a dependency of the extra, and
onnxruntime reads a model from bytes. Without onnxruntime the same sums come from
numpy, exactly and several times slower; so do they on a CPU whose kernel saturates
(:func:`_saturates`: without 8-bit dot products, as AVX2 without VNNI, it sums two byte
products in 16 bits and clips them), where numpy is the faster of the two.
"""

from __future__ import annotations

from typing import Any

_ORT_UINT8, _ORT_INT8, _ORT_INT32 = 2, 3, 6  # ONNX TensorProto element types
_session: Any = None  # one per process: the graph has symbolic dimensions


def shifted(codes: Any) -> Any:
    """int8 vectors as the uint8 matrix :func:`products` reads (each byte + 128)."""
    import numpy as np

    out: Any = np.ascontiguousarray(codes).view(np.uint8) ^ np.uint8(0x80)
    return out


def unshifted(rows: Any) -> Any:
    """Rows of a :func:`shifted` matrix back as the stored int8 values."""
    import numpy as np

    return (rows ^ np.uint8(0x80)).view(np.int8)


def products(matrix: Any, query: Any) -> Any:
    """``unshifted(matrix) · query`` as exact int32 sums, one per row.

    ``matrix``: a :func:`shifted` uint8 matrix ``(n, d)``; ``query``: int8 of length ``d``."""
    import numpy as np

    q = np.ascontiguousarray(query, dtype=np.int8)
    session = _kernel()
    if session is None or _saturates(session):
        # numpy, on the shifted bytes as they are (no unshifted copy), in int32. Also where
        # the kernel sums two byte products in 16 bits with saturation (AVX2 without VNNI:
        # 255 x 127 twice overflows), which makes its sums wrong, not slow: there this
        # takes 19 ms at 100k against the kernel's 31 (one-core AMD EPYC, 2026-12-03).
        sums: Any = np.einsum("ij,j->i", matrix, q, dtype=np.int32, casting="unsafe")
    else:
        sums = session.run(None, {"A": matrix, "B": q.reshape(-1, 1)})[0].reshape(-1)
    sums -= np.int32(128 * int(q.sum(dtype=np.int64)))  # |sum| <= 255 * 128 * d: int32 for any d < 65k
    return sums


_SATURATES: bool | None = None  # whether this CPU's kernel saturates (checked once per process)


def _saturates(session: Any) -> bool:
    """Whether ``session`` sums two byte products in 16 bits with saturation: 255 x 127
    twice is 64,770, which such a kernel returns as 32,767."""
    global _SATURATES
    if _SATURATES is None:
        import numpy as np

        probe = session.run(None, {"A": np.full((1, 2), 255, dtype=np.uint8),
                                   "B": np.full((2, 1), 127, dtype=np.int8)})[0]
        _SATURATES = int(probe[0, 0]) != 2 * 255 * 127
    return _SATURATES


def _kernel() -> Any:
    """The ``MatMulInteger`` session (None without onnxruntime)."""
    global _session
    if _session is None:
        try:
            import onnxruntime  # type: ignore[import-untyped]  # ships no type information
        except ImportError:
            return None
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # one query at a time on a shared machine, as the embedder
        options.inter_op_num_threads = 1
        _session = onnxruntime.InferenceSession(_model(), options, providers=["CPUExecutionProvider"])
    return _session


# -- the one-node ONNX model, as protobuf bytes ---------------------------------------------


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number: int, payload: bytes | str) -> bytes:
    data = payload.encode() if isinstance(payload, str) else payload
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def _int(number: int, value: int) -> bytes:
    return _varint(number << 3) + _varint(value)


def _tensor(name: str, element: int, dims: tuple[str, ...]) -> bytes:
    """A ValueInfoProto: name, and a tensor type with symbolic dimensions."""
    shape = b"".join(_field(1, _field(2, d)) for d in dims)
    return _field(1, name) + _field(2, _field(1, _int(1, element) + _field(2, shape)))


def _model() -> bytes:
    """ModelProto of ``Y = MatMulInteger(A, B)``: A uint8 (n, d), B int8 (d, k), Y int32 (n, k)."""
    node = _field(1, "A") + _field(1, "B") + _field(2, "Y") + _field(3, "product") + _field(4, "MatMulInteger")
    graph = (_field(1, node) + _field(2, "int8-product") + _field(11, _tensor("A", _ORT_UINT8, ("n", "d")))
             + _field(11, _tensor("B", _ORT_INT8, ("d", "one"))) + _field(12, _tensor("Y", _ORT_INT32, ("n", "one"))))
    opset = _field(1, "") + _int(2, 13)
    return _int(1, 8) + _field(8, opset) + _field(7, graph)  # IR version 8, opset 13
