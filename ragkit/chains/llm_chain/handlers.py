"""LLMChain callbacks: the events a chain fires while it runs.

A handler is a dict from event name to a function, or any object with methods
of those names. Every function receives the chain (as it is at that moment)
first, then the event's data:

- ``on_llm_new_delta(chain, delta)``: a streamed ``AIMessageChunk`` arrived.
- ``on_message_processed(chain, message)``: a reply (or a tool result) was accepted.
- ``on_message_processing_error(chain, message)``: a processor rejected a reply.
- ``on_error_message_created(chain, message)``: the error message sent back to the model.
- ``on_tool_response_created(chain, tool_messages)``: the results of one round of tool calls.
- ``on_retries_exceeded(chain)``: ``max_retry_count`` failures in a row; the run stops.
- ``on_llm_token_usage(chain, usage)``: token counts of a reply, when the model reports them.

Example:
    >>> seen = []
    >>> handler = {"on_message_processed": lambda chain, message: seen.append(message.text)}
    >>> check_handler(handler) is handler
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragkit.errors import ConfigurationError

CHAIN_EVENTS = (
    "on_llm_new_delta",
    "on_message_processed",
    "on_message_processing_error",
    "on_error_message_created",
    "on_tool_response_created",
    "on_retries_exceeded",
    "on_llm_token_usage",
)


def check_handler(handler: Any) -> Any:
    """Reject handlers that would never fire (unknown names, non-callables)."""
    if isinstance(handler, dict):
        unknown = sorted(set(handler) - set(CHAIN_EVENTS))
        if unknown:
            raise ConfigurationError(
                f"Unknown LLMChain callback(s) {unknown}; the events are {list(CHAIN_EVENTS)}"
            )
        for name, fn in handler.items():
            if not callable(fn):
                raise ConfigurationError(
                    f"LLMChain callback {name!r} must be callable, got {type(fn).__name__}"
                )
        return handler
    if not any(callable(getattr(handler, name, None)) for name in CHAIN_EVENTS):
        raise ConfigurationError(
            f"A callback handler needs at least one of the methods {list(CHAIN_EVENTS)}; "
            f"{type(handler).__name__} has none"
        )
    return handler


def fire(handlers: Sequence[Any], event: str, chain: Any, *args: Any) -> None:
    """Call ``event`` on every handler that has it (errors in a handler propagate)."""
    for handler in handlers:
        fn = handler.get(event) if isinstance(handler, dict) else getattr(handler, event, None)
        if fn is not None:
            fn(chain, *args)
