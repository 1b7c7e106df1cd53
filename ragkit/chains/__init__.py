"""Chains: LLMChain (tool loop, processors, fallbacks), the RAG chain and chat history."""

from ragkit.chains.llm_chain import LLMChain
from ragkit.chains.processors import JsonProcessor, PydanticProcessor

__all__ = ["JsonProcessor", "LLMChain", "PydanticProcessor"]
