"""`ragkit ask`'s answer step through the real google-generativeai SDK against the local Gemini emulator."""

from __future__ import annotations

from ragkit._cli.ask import answer
from ragkit.documents import Document
from ragkit.models import ChatGoogleGenerativeAI
from tests.google.gemini_emulator import Emulator
from tests.google.gemini_testing import API_KEY, FAST_RETRY


def test_answer_with_gemini_over_loopback():
    emu = Emulator(api_key=API_KEY).start()
    try:
        model = ChatGoogleGenerativeAI(
            model="gemini-1.5-flash",
            google_api_key=API_KEY,
            client_options=emu.client_options,
            timeout=5.0,
            **FAST_RETRY,
        )
        docs = [
            Document(
                "Top up tubeless sealant every three months.", metadata={"source": "manual.pdf"}
            )
        ]
        text = answer("How often is sealant topped up?", docs, model=model)
        # the emulator echoes the last user turn: our prompt reached Gemini with the numbered passage
        assert text is not None and text.startswith("echo:")
        assert "[1] (manual.pdf)" in text and "How often is sealant topped up?" in text
        assert {r.rpc for r in emu.requests()} == {"generateContent"}
    finally:
        emu.stop()
