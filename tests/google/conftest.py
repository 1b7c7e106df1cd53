"""Fixtures of the Google tests: a running emulator and clients pointed at it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.google.gemini_emulator import Emulator
from tests.google.gemini_testing import API_KEY, FAST_RETRY


@pytest.fixture
def emulator() -> Iterator[Emulator]:
    emu = Emulator(api_key=API_KEY).start()
    try:
        yield emu
    finally:
        emu.stop()


@pytest.fixture
def google_kwargs(emulator: Emulator) -> dict:
    """Keyword arguments that point any ragkit Google class at the emulator."""
    return {
        "google_api_key": API_KEY,
        "client_options": emulator.client_options,
        "timeout": 5.0,
        **FAST_RETRY,
    }


@pytest.fixture(autouse=True)
def _no_ambient_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests see only the keys they set themselves."""
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
