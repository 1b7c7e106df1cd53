"""Fixtures for the retriever tests: the shipped bicycle-care dataset."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.embeddings import HashEmbeddings
from ragkit.eval import BeirDataset, load_beir
from tests.retrievers.retr_helpers import BruteForceStore

DATASET = Path(__file__).resolve().parents[2] / "datasets" / "bicycle-care"


@pytest.fixture(scope="session")
def bikes() -> BeirDataset:
    return load_beir(DATASET)


@pytest.fixture
def bike_store(bikes) -> BruteForceStore:
    return BruteForceStore.from_documents(bikes.documents, HashEmbeddings(256))
