"""Fixtures for store tests: deterministic random unit vectors and a small word corpus."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

WORDS = (
    "apple pear plum car bus train red green blue fast slow river lake sea hill "
    "stone paper glass metal wood fire water earth wind cloud"
).split()


def _unit_rows(n: int, d: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.fixture
def unit_rows() -> Callable[[int, int, int], np.ndarray]:
    """``unit_rows(n, d, seed)``: n random unit vectors of dimension d."""
    return _unit_rows


@pytest.fixture
def corpus() -> list[str]:
    rng = np.random.default_rng(7)
    return [" ".join(rng.choice(WORDS, size=6)) for _ in range(60)]
