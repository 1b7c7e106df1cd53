"""The check every vector goes through before a store keeps or searches it, written once.

FaissStore and PGVectorStore both take vectors as lists, tuples or arrays; :func:`check_matrix`
turns them into a C-contiguous float32 ``(n, d)`` matrix and refuses, naming the rows, ragged
input, NaN/infinity, norms that overflow float32 and the wrong width. With ``unit=True`` rows
are scaled to length 1 (zero rows stay zero; rows already of unit length are not copied). A
store may pass its own way to compute the squared norms of many rows (FAISS has a faster one).

Example:
    >>> check_matrix([[3.0, 4.0]], None, unit=True).tolist()
    [[0.6000000238418579, 0.800000011920929]]
    >>> check_matrix([[1.0, 2.0]], 3)
    Traceback (most recent call last):
    ...
    ragkit.errors.EmbeddingMismatchError: vectors have dimension 2, but the store holds ...
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ragkit.errors import EmbeddingMismatchError, StoreInputError


def squared_norms(matrix: np.ndarray) -> np.ndarray:
    """The squared L2 norm of each row of a float32 matrix (numpy's, in float32; an overflow
    is no warning: :func:`check_matrix` reports it as "too large")."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.einsum("ij,ij->i", matrix, matrix, dtype=np.float32)


def check_matrix(
    vectors: Any,
    dimension: int | None,
    *,
    what: str = "vectors",
    unit: bool = False,
    norms: Callable[[np.ndarray], np.ndarray] = squared_norms,
) -> np.ndarray:
    """``vectors`` as a C-contiguous float32 ``(n, d)`` matrix of width ``dimension`` (any when
    ``None``); :class:`~ragkit.errors.StoreInputError` naming what is wrong, or
    :class:`~ragkit.errors.EmbeddingMismatchError` for the wrong width."""
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
    matrix = np.ascontiguousarray(matrix)
    if matrix.shape[0] == 1:  # one query: plain floats are cheaper than array passes
        with np.errstate(over="ignore", invalid="ignore"):  # reported below as "too large"
            norm2 = float(matrix[0] @ matrix[0])
        if math.isfinite(norm2):
            if unit and norm2 > 0 and abs(norm2 - 1.0) >= 1e-5:
                return matrix / np.float32(math.sqrt(norm2))
            return matrix
    sq = norms(matrix)
    # NaN/inf anywhere in a row makes its squared norm non-finite: one cheap pass finds both.
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
    if unit and float(np.abs(sq - 1.0).max()) >= 1e-5:
        scale = np.zeros_like(sq)
        np.divide(1.0, np.sqrt(sq), out=scale, where=sq > 0)
        matrix = matrix * scale[:, None]
    return matrix
