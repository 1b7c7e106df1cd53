"""LLMChain: a chat model in a loop with tools, processors, retries and fallbacks.

One module per part: :mod:`~ragkit.chains.llm_chain.chain` (the class),
:mod:`~ragkit.chains.llm_chain.modes` (run until ...), :mod:`~ragkit.chains.llm_chain.state`
(what a run copies and fills in), :mod:`~ragkit.chains.llm_chain.processors` (checking replies),
:mod:`~ragkit.chains.llm_chain.tool_execution`, :mod:`~ragkit.chains.llm_chain.deltas`
(streamed chunks), :mod:`~ragkit.chains.llm_chain.handlers` (the chain's own callback
events) and :mod:`~ragkit.chains.llm_chain.run_support`.

Example:
    >>> from ragkit.chains.llm_chain import JsonProcessor, LLMChain
    >>> from ragkit.messages import HumanMessage
    >>> from ragkit.models import FakeChatModel
    >>> chain = LLMChain(FakeChatModel(['{"city": "Paris"}']), message_processors=[JsonProcessor()])
    >>> chain.add_message(HumanMessage("Where? Answer in JSON.")).run().last_message.processed_content
    {'city': 'Paris'}
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "JsonProcessor",
    "LLMChain",
    "MessageProcessor",
    "PydanticProcessor",
]

_LAZY = {
    "LLMChain": "ragkit.chains.llm_chain.chain",
    "JsonProcessor": "ragkit.chains.llm_chain.processors",
    "MessageProcessor": "ragkit.chains.llm_chain.processors",
    "PydanticProcessor": "ragkit.chains.llm_chain.processors",
}

if TYPE_CHECKING:
    from ragkit.chains.llm_chain.chain import LLMChain
    from ragkit.chains.llm_chain.processors import (
        JsonProcessor,
        MessageProcessor,
        PydanticProcessor,
    )
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
