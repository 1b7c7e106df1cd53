"""Fixtures for the evaluation tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.eval import BeirDataset, load_beir

DATASET = Path(__file__).resolve().parents[2] / "datasets" / "bicycle-care"


@pytest.fixture(scope="session")
def bikes() -> BeirDataset:
    return load_beir(DATASET)
