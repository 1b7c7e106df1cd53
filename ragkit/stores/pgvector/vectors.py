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

from typing import Any

import numpy as np

from ragkit.errors import StoreInputError
from ragkit.stores.matrix import check_matrix as _check


def check_matrix(
    vectors: Any, dimension: int | None, *, what: str = "embeddings", unit: bool = False
) -> np.ndarray:
    """``vectors`` as a C-contiguous float32 ``(n, d)`` matrix; StoreInputError naming what is
    wrong (:func:`ragkit.stores.matrix.check_matrix`)."""
    return _check(vectors, dimension, what=what, unit=unit)


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
