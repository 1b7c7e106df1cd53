"""Pooling: one vector per text from a model's token vectors, as sentence-transformers' ``Pooling`` does.

Modes (the names of ``1_Pooling/config.json``): ``cls`` (the first token), ``mean``
(average over the attention mask), ``max``, ``mean_sqrt_len_tokens`` (sum divided
by the square root of the length), ``weightedmean`` (positions weighted 1, 2, 3 ...)
and ``lasttoken`` (the last real token). Several modes are concatenated in that
order, as sentence-transformers does.

Example:
    >>> import numpy as np
    >>> hidden = np.array([[[1.0, 0.0], [3.0, 2.0], [9.0, 9.0]]], dtype=np.float32)
    >>> mask = np.array([[1, 1, 0]])
    >>> pool(hidden, mask, ("mean",)).tolist(), pool(hidden, mask, ("lasttoken",)).tolist()
    ([[2.0, 1.0]], [[3.0, 2.0]])
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragkit.errors import ConfigurationError

MODES = ("cls", "max", "mean", "mean_sqrt_len_tokens", "weightedmean", "lasttoken")


def pool(hidden: np.ndarray, mask: np.ndarray, modes: Sequence[str]) -> np.ndarray:
    """``(batch, dim * len(modes))`` float32 from ``hidden`` ``(batch, seq, dim)`` and ``mask``."""
    weights = mask.astype(np.float32)
    parts: list[np.ndarray] = []
    for mode in modes:
        if mode == "cls":
            parts.append(hidden[:, 0, :])
        elif mode == "max":
            masked = np.where(weights[:, :, None] > 0, hidden, -1e9)
            parts.append(masked.max(axis=1))
        elif mode in ("mean", "mean_sqrt_len_tokens"):
            summed = np.einsum("bld,bl->bd", hidden, weights)
            count = np.maximum(weights.sum(axis=1, keepdims=True), 1e-9)
            parts.append(summed / (count if mode == "mean" else np.sqrt(count)))
        elif mode == "weightedmean":
            positions = weights * np.arange(1, weights.shape[1] + 1, dtype=np.float32)[None, :]
            summed = np.einsum("bld,bl->bd", hidden, positions)
            parts.append(summed / np.maximum(positions.sum(axis=1, keepdims=True), 1e-9))
        elif mode == "lasttoken":
            last = np.maximum(mask.sum(axis=1).astype(np.int64) - 1, 0)
            parts.append(hidden[np.arange(hidden.shape[0]), last, :])
        else:  # the config reader only lets known modes through
            raise AssertionError(f"unknown pooling mode {mode!r}")
    out = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)
    return np.asarray(out, dtype=np.float32)


def normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)


def pooling_modes(pooling: str | Sequence[str]) -> tuple[str, ...]:
    """``pooling=`` as a tuple of known modes (ConfigurationError otherwise)."""
    modes = (pooling,) if isinstance(pooling, str) else tuple(pooling)
    bad = [m for m in modes if m not in MODES]
    if not modes or bad:
        raise ConfigurationError(
            f"pooling must be one or more of {', '.join(MODES)}; got {pooling!r}"
        )
    return modes
