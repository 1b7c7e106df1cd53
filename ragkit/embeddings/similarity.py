"""cosine_similarity: the row-by-row cosine similarities of two lists of vectors (LangChain's).

As ``langchain_community.utils.math.cosine_similarity``: an ``len(x)`` by ``len(y)`` array; an
empty side gives an empty array; rows of zeros give 0 (not NaN); a different number of
columns raises.

Example:
    >>> cosine_similarity([[1, 0], [0, 0]], [[1, 0], [1, 1]]).round(3).tolist()
    [[1.0, 0.707], [0.0, 0.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ragkit.errors import InvalidInputError


def cosine_similarity(x: Any, y: Any) -> np.ndarray:
    """The matrix of cosine similarities between the rows of ``x`` and of ``y`` (0 for zero rows)."""
    if len(x) == 0 or len(y) == 0:
        return np.array([])
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if a.shape[1] != b.shape[1]:
        raise InvalidInputError(
            f"Number of columns in X and Y must be the same. X has shape {a.shape} "
            f"and Y has shape {b.shape}."
        )
    norms = np.linalg.norm(a, axis=1)[:, None] * np.linalg.norm(b, axis=1)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        sims = (a @ b.T) / norms
    return np.nan_to_num(sims, nan=0.0, posinf=0.0, neginf=0.0)
