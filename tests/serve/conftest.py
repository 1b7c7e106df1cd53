"""Fixtures: one small index (the bicycle-care documents, hash embeddings) per session, and a
`ragkit serve` subprocess on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.serve.helpers import build_index, cli_server


@pytest.fixture(scope="session")
def bike(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(documents folder, index folder)."""
    return build_index(tmp_path_factory.mktemp("bike"))


@pytest.fixture(scope="module")
def served(bike: tuple[Path, Path]):
    """URL of `ragkit serve` on the bike index (no chat model)."""
    with cli_server(bike[1]) as (url, _proc):
        yield url
