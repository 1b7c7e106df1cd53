"""Vector checks and the binary forms PostgreSQL reads in ``COPY ... (FORMAT BINARY)``.

Vectors are checked with numpy only (the PostgreSQL store does not need FAISS): a float32
``(n, d)`` matrix, no NaN/infinity, the store's dimension, L2-normalised for cosine.
:func:`binary_rows` turns a matrix into pgvector's binary ``vector``/``halfvec`` format in one
numpy pass (``uint16`` dimension, ``uint16`` zero, big-endian float32/float16 values).

Example:
    >>> import numpy as np
    >>> m = check_matrix([[3.0, 4.0]], None, unit=True)
    >>> m.tolist()
    [[0.6000000238418579, 0.800000011920929]]
    >>> bytes(binary_rows(m, "vector")[0])[:4]
    b'\\x00\\x02\\x00\\x00'
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ragkit.errors import EmbeddingMismatchError, StoreInputError


def check_matrix(
    vectors: Any, dimension: int | None, *, what: str = "embeddings", unit: bool = False
) -> np.ndarray:
    """``vectors`` as a C-contiguous float32 ``(n, d)`` matrix; ValueError naming what is wrong."""
    try:
        matrix = np.asarray(vectors, dtype=np.float32)
    except (ValueError, TypeError) as err:
        raise StoreInputError(f"{what} must be equal-length lists of numbers: {err}") from None
    if matrix.ndim == 1 and matrix.size == 0:
        matrix = matrix.reshape(0, dimension or 0)
    if matrix.ndim != 2:
        raise StoreInputError(
            f"{what} must be a 2-D array (one row per vector), got shape {matrix.shape}"
        )
    if dimension is not None and matrix.shape[0] and matrix.shape[1] != dimension:
        raise EmbeddingMismatchError(
            f"{what} have dimension {matrix.shape[1]}, but the store holds vectors of dimension "
            f"{dimension}; use the embedding model the store was built with"
        )
    if matrix.shape[0] == 0:
        return matrix
    if matrix.shape[1] == 0:
        raise StoreInputError(f"{what} are empty (dimension 0)")
    if matrix.shape[0] == 1:  # one query: plain floats are cheaper than array passes
        with np.errstate(over="ignore", invalid="ignore"):
            norm2 = float(matrix[0] @ matrix[0])
        if math.isfinite(norm2):
            matrix = np.ascontiguousarray(matrix)
            if unit and norm2 > 0 and abs(norm2 - 1.0) >= 1e-5:
                return matrix / np.float32(math.sqrt(norm2))
            return matrix
    with np.errstate(over="ignore", invalid="ignore"):
        sq = np.einsum("ij,ij->i", matrix, matrix, dtype=np.float32)
    if not np.isfinite(sq).all():
        rows = np.flatnonzero(~np.isfinite(matrix).all(axis=1))
        if rows.size:
            raise StoreInputError(
                f"{what} contain NaN or infinite values at rows {rows[:10].tolist()}"
                f"{' ...' if rows.size > 10 else ''}; the embedding model produced invalid output"
            )
        bad = np.flatnonzero(~np.isfinite(sq))
        raise StoreInputError(
            f"{what} at rows {bad[:10].tolist()} are too large (their norm overflows float32)"
        )
    matrix = np.ascontiguousarray(matrix)
    if unit and float(np.abs(sq - 1.0).max()) >= 1e-5:
        scale = np.zeros_like(sq)
        np.divide(1.0, np.sqrt(sq), out=scale, where=sq > 0)
        matrix = matrix * scale[:, None]
    return matrix


def binary_rows(matrix: np.ndarray, vector_type: str) -> list[memoryview]:
    """One pgvector binary value per row of ``matrix`` (views into one buffer)."""
    n, d = matrix.shape
    value = ">f2" if vector_type == "halfvec" else ">f4"
    if vector_type == "halfvec" and n and float(np.abs(matrix).max()) > 65504.0:
        raise StoreInputError(
            "vectors hold values beyond half precision's range (65504); use vector_type='vector'"
        )
    record = np.dtype([("dim", ">u2"), ("unused", ">u2"), ("v", value, (d,))])
    out = np.empty(n, dtype=record)
    out["dim"] = d
    out["unused"] = 0
    out["v"] = matrix
    buffer = memoryview(out.tobytes())
    size = record.itemsize
    return [buffer[i * size : (i + 1) * size] for i in range(n)]


def query_param(vector: np.ndarray) -> Any:
    """A query vector as a parameter (dumped by pgvector's binary dumper as ``vector``)."""
    return np.ascontiguousarray(vector, dtype=np.float32)
