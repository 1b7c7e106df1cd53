"""A local OpenAI-compatible API for the tests: chat completions (streamed as SSE, with usage,
tool calls and response formats), legacy completions and embeddings, with injected faults and
a log of every request body.

Example:
    >>> with OpenAIEmulator() as emu:
    ...     emu.base_url.endswith("/v1")
    True
"""

from .faults import Fault
from .server import LoggedRequest, OpenAIEmulator

__all__ = ["Fault", "LoggedRequest", "OpenAIEmulator"]
