"""Message-list helpers with langchain-core's names and signatures: trim, filter, merge runs.

Each takes a list of messages (or anything ``convert_to_messages`` reads) and returns a new
list; called without messages, each returns a ``RunnableLambda`` with the other arguments
bound, so it fits in a chain (``trim_messages(max_tokens=..., token_counter=...) | model``).

- :func:`trim_messages` keeps the ``"last"`` (or ``"first"``) messages that fit in
  ``max_tokens``, optionally keeping the system message, starting on / ending on given
  message types and cutting one message partially;
- :func:`filter_messages` keeps or drops messages by name, type, id, and tool calls;
- :func:`merge_message_runs` merges consecutive messages of the same type;
- :func:`count_tokens_approximately` is the ``token_counter="approximate"`` estimate.

Example:
    >>> from ragkit.messages import AIMessage, HumanMessage, SystemMessage
    >>> history = [SystemMessage("Be brief."), HumanMessage("hi"), AIMessage("hello"),
    ...            HumanMessage("how are you?"), AIMessage("fine")]
    >>> kept = trim_messages(history, max_tokens=3, token_counter=len, include_system=True,
    ...                      start_on="human")
    >>> [m.content for m in kept]
    ['Be brief.', 'how are you?', 'fine']
    >>> [m.content for m in merge_message_runs([HumanMessage("a"), HumanMessage("b")])]
    ['a\\nb']
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial, wraps
from typing import Any, Literal, TypeVar

from ragkit.errors import ConfigurationError
from ragkit.messages import (
    AIMessage,
    BaseMessage,
    SystemMessage,
    ToolMessage,
    _merge_dicts,
    convert_to_messages,
)

MessageTypes = str | type[BaseMessage] | Sequence[str | type[BaseMessage]]
F = TypeVar("F", bound=Callable[..., list[BaseMessage]])


def _runnable_when_no_messages(func: F) -> F:
    """``func(messages, **options)``; ``func(**options)`` is a RunnableLambda doing the same."""

    @wraps(func)
    def wrapped(messages: Any = None, /, **options: Any) -> Any:
        if messages is not None:
            return func(messages, **options)
        from ragkit.core.lambdas import RunnableLambda

        return RunnableLambda(partial(func, **options), name=func.__name__)

    return wrapped  # type: ignore[return-value]


def _is_type(message: BaseMessage, types: MessageTypes) -> bool:
    wanted = [types] if isinstance(types, (str, type)) else list(types)
    names = {t for t in wanted if isinstance(t, str)}
    classes = tuple(t for t in wanted if isinstance(t, type))
    return message.type in names or isinstance(message, classes)


def _messages(value: Any) -> list[BaseMessage]:
    to_messages = getattr(value, "to_messages", None)  # a PromptValue
    return convert_to_messages(to_messages() if callable(to_messages) else list(value))


# -- filter ---------------------------------------------------------------------------------
@_runnable_when_no_messages
def filter_messages(
    messages: Iterable[Any],
    *,
    include_names: Sequence[str] | None = None,
    exclude_names: Sequence[str] | None = None,
    include_types: Sequence[str | type[BaseMessage]] | None = None,
    exclude_types: Sequence[str | type[BaseMessage]] | None = None,
    include_ids: Sequence[str] | None = None,
    exclude_ids: Sequence[str] | None = None,
    exclude_tool_calls: Sequence[str] | bool | None = None,
) -> list[BaseMessage]:
    """The messages that pass the filters (exclusions first; with no inclusion filter, all).

    ``exclude_tool_calls=True`` drops AI messages that call tools and every tool message; a
    list of tool-call ids drops just those calls (an AI message left with none is dropped)
    and their tool messages.
    """
    kept: list[BaseMessage] = []
    drop_calls = (
        set(exclude_tool_calls) if isinstance(exclude_tool_calls, (list, tuple, set)) else set()
    )
    for message in _messages(messages):
        if (
            (exclude_names and message.name in exclude_names)
            or (exclude_types and _is_type(message, exclude_types))
            or (exclude_ids and message.id in exclude_ids)
        ):
            continue
        calls = message.tool_calls if isinstance(message, AIMessage) else []
        if exclude_tool_calls is True and (calls or isinstance(message, ToolMessage)):
            continue
        if drop_calls:
            if isinstance(message, ToolMessage) and message.tool_call_id in drop_calls:
                continue
            if calls:
                remaining = [c for c in calls if c.get("id") not in drop_calls]
                if not remaining:
                    continue
                content = message.content
                if isinstance(content, list):  # Anthropic-style tool_use blocks
                    content = [
                        b
                        for b in content
                        if not (
                            isinstance(b, dict)
                            and b.get("type") == "tool_use"
                            and b.get("id") in drop_calls
                        )
                    ]
                message = message.model_copy(update={"tool_calls": remaining, "content": content})
        if not (include_names or include_types or include_ids) or (
            (include_names and message.name in include_names)
            or (include_types and _is_type(message, include_types))
            or (include_ids and message.id in include_ids)
        ):
            kept.append(message)
    return kept


# -- merge runs -------------------------------------------------------------------------------
def _joined(left: str | list[Any], right: str | list[Any]) -> str | list[Any]:
    """Contents joined as langchain-core's chunks join them: text to text, a string in front
    of a list as its first item, a string after a list onto its last text item, blocks with
    the same ``index`` merged."""
    if isinstance(left, str):
        return left + right if isinstance(right, str) else [left, *right] if left else list(right)
    out = list(left)
    if isinstance(right, str):
        if out and isinstance(out[-1], str):
            out[-1] += right
        elif right:
            out.append(right)
        return out
    for block in right:
        index = block.get("index") if isinstance(block, dict) else None
        same = next(
            (
                i
                for i, b in enumerate(out)
                if index is not None and isinstance(b, dict) and b.get("index") == index
            ),
            None,
        )
        if same is None:
            out.append(block)
        else:
            out[same] = _merge_dicts(out[same], {k: v for k, v in block.items() if k != "type"})
    return out


def _merged(first: BaseMessage, second: BaseMessage, separator: str) -> BaseMessage:
    left, right = first.content, second.content
    if isinstance(left, str) and isinstance(right, str) and left and right:
        left = left + separator
    content = _joined(left, right)
    update: dict[str, Any] = {
        "content": content,
        "name": first.name if first.name == second.name else None,
        "additional_kwargs": _merge_dicts(first.additional_kwargs, second.additional_kwargs),
    }
    if isinstance(first, AIMessage) and isinstance(second, AIMessage):
        update["tool_calls"] = [*first.tool_calls, *second.tool_calls]
        update["invalid_tool_calls"] = [*first.invalid_tool_calls, *second.invalid_tool_calls]
        usages: list[dict[str, Any]] = [
            dict(u) for u in (first.usage_metadata, second.usage_metadata) if u
        ]
        if usages:
            keys = ("input_tokens", "output_tokens", "total_tokens")
            update["usage_metadata"] = {k: sum(int(u.get(k, 0)) for u in usages) for k in keys}
    return first.model_copy(update=update, deep=True)


@_runnable_when_no_messages
def merge_message_runs(
    messages: Iterable[Any], *, chunk_separator: str = "\n"
) -> list[BaseMessage]:
    """Consecutive messages of the same type merged into one (tool messages never merge).

    Text contents are joined with ``chunk_separator``; the first message's id and response
    metadata are kept, and the name when every merged message has the same one (LangChain
    drops it always); AI messages also pool their tool calls and usage.
    """
    out: list[BaseMessage] = []
    for message in _messages(messages) if messages else []:
        last = out[-1] if out else None
        if last is None or isinstance(message, ToolMessage) or type(message) is not type(last):
            out.append(message)
        else:
            out[-1] = _merged(last, message, chunk_separator)
    return out


# -- counting and trimming ----------------------------------------------------------------------
_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}


def count_tokens_approximately(
    messages: Iterable[Any],
    *,
    chars_per_token: float = 4.0,
    extra_tokens_per_message: float = 3.0,
    count_name: bool = True,
    tokens_per_image: int = 85,
) -> int:
    """About ``characters / chars_per_token`` plus ``extra_tokens_per_message`` per message.

    Text, role, name, tool calls and tool-call ids count as characters; an image block
    counts ``tokens_per_image`` (langchain-core's estimate).
    """
    total = 0.0
    for message in _messages(messages):
        chars = 0
        blocks = [message.content] if isinstance(message.content, str) else message.content
        for block in blocks:
            if isinstance(block, str):
                chars += len(block)
            elif isinstance(block, dict) and block.get("type") in ("image", "image_url"):
                total += tokens_per_image
            elif isinstance(block, dict) and block.get("type") == "text":
                chars += len(str(block.get("text", "")))
            else:
                chars += len(repr(block))
        if (
            isinstance(message, AIMessage)
            and isinstance(message.content, str)
            and message.tool_calls
        ):
            chars += len(repr([dict(c) for c in message.tool_calls]))
        if isinstance(message, ToolMessage):
            chars += len(message.tool_call_id)
        chars += len(_ROLES.get(message.type, message.type))
        if message.name and count_name:
            chars += len(message.name)
        total += math.ceil(chars / chars_per_token) + extra_tokens_per_message
    return math.ceil(total)


def _list_counter(token_counter: Any) -> Callable[[list[BaseMessage]], int]:
    if token_counter == "approximate":
        return count_tokens_approximately
    if isinstance(token_counter, str):
        raise ConfigurationError(
            f"token_counter {token_counter!r} is not a known shortcut; use 'approximate', a "
            "chat model or a function"
        )
    by_model = getattr(token_counter, "get_num_tokens_from_messages", None)
    if callable(by_model):
        return by_model
    if not callable(token_counter):
        raise ConfigurationError(
            "token_counter must be a chat model (get_num_tokens_from_messages), a function of "
            f"a message list or of one message, or 'approximate'; got {type(token_counter).__name__}"
        )
    params = list(inspect.signature(token_counter).parameters.values())
    annotation = params[0].annotation if params else None
    per_message = (isinstance(annotation, type) and issubclass(annotation, BaseMessage)) or (
        isinstance(annotation, str) and annotation.rsplit(".", 1)[-1] == "BaseMessage"
    )
    if per_message:
        return lambda msgs: sum(token_counter(m) for m in msgs)
    return token_counter


def _default_text_splitter(text: str) -> list[str]:
    """Lines, each keeping its newline (so joining them gives the text back)."""
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + lines[-1:]


def _largest_fit(count: int, fits: Callable[[int], bool]) -> int:
    """The largest ``n`` in [0, count] with ``fits(n)``, for a monotone ``fits``."""
    low, high = 0, count
    while low < high:
        mid = (low + high + 1) // 2
        if fits(mid):
            low = mid
        else:
            high = mid - 1
    return low


@dataclass(frozen=True)
class _Fit:
    """What trimming fits messages into: ``budget`` tokens as ``counter`` counts them, cutting
    a partial message's text into ``splitter`` pieces."""

    budget: int
    counter: Callable[[list[BaseMessage]], int]
    splitter: Callable[[str], list[str]]


def _partial(
    kept: list[BaseMessage], message: BaseMessage, fit: _Fit, from_end: bool
) -> BaseMessage | None:
    """As much of ``message`` as fits after ``kept`` (its start, or its end when from_end)."""
    budget, counter, splitter = fit.budget, fit.counter, fit.splitter
    content = message.content
    if isinstance(content, list) and len(content) > 1:
        blocks = list(reversed(content)) if from_end else list(content)
        for size in range(len(blocks) - 1, 0, -1):
            part = blocks[:size]
            candidate = message.model_copy(
                update={"content": list(reversed(part)) if from_end else part}, deep=True
            )
            if counter([*kept, candidate]) <= budget:
                return candidate
    text = content if isinstance(content, str) else None
    if isinstance(content, list) and content:
        # the block left over once the others are cut: the first, or the last from the end
        block = content[-1] if from_end else content[0]
        if isinstance(block, str):
            text = block
        elif isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
    if not text:
        return None
    pieces = splitter(text)
    if from_end:
        pieces.reverse()
    base = counter(kept)

    def with_pieces(n: int) -> BaseMessage:
        chosen = pieces[:n]
        return message.model_copy(
            update={"content": "".join(reversed(chosen) if from_end else chosen)}, deep=True
        )

    n = _largest_fit(len(pieces), lambda n: base + counter([with_pieces(n)]) <= budget)
    return with_pieces(n) if n > 0 else None


def _keep_first(
    messages: list[BaseMessage],
    fit: _Fit,
    partial_from_end: bool | None,
    end_on: MessageTypes | None,
) -> list[BaseMessage]:
    if not messages:
        return []
    budget, counter = fit.budget, fit.counter
    if counter(messages) <= budget:
        kept = list(messages)
    else:
        n = _largest_fit(len(messages), lambda n: counter(messages[:n]) <= budget)
        kept = messages[:n]
        if partial_from_end is not None and n < len(messages):
            piece = _partial(kept, messages[n], fit, partial_from_end)
            if piece is not None:
                kept.append(piece)
    if end_on:
        while kept and not _is_type(kept[-1], end_on):
            kept.pop()
    return kept


@_runnable_when_no_messages
def trim_messages(
    messages: Iterable[Any],
    *,
    max_tokens: int,
    token_counter: Any,
    strategy: Literal["first", "last"] = "last",
    allow_partial: bool = False,
    end_on: MessageTypes | None = None,
    start_on: MessageTypes | None = None,
    include_system: bool = False,
    text_splitter: Callable[[str], list[str]] | Any | None = None,
) -> list[BaseMessage]:
    """The messages that fit in ``max_tokens``, counted by ``token_counter``.

    Args:
        max_tokens: the budget.
        token_counter: a chat model (its ``get_num_tokens_from_messages``), a function of a
            message list, a function of one message (annotated ``BaseMessage``), or
            ``"approximate"``.
        strategy: keep the ``"last"`` messages (chat history) or the ``"first"`` ones.
        allow_partial: cut the message at the boundary (by content blocks, else by
            ``text_splitter`` pieces, lines by default) instead of dropping it whole.
        end_on: drop messages from the end until one of these types is last.
        start_on: with ``"last"``, drop messages from the start until one of these types is
            first (after the system message).
        include_system: with ``"last"``, always keep a leading system message.
        text_splitter: a function ``text -> pieces`` or a ragkit/LangChain text splitter.
    """
    if strategy not in ("first", "last"):
        raise ConfigurationError(
            f"trim_messages: strategy must be 'first' or 'last', got {strategy!r}"
        )
    if strategy == "first" and (start_on or include_system):
        which = "start_on" if start_on else "include_system"
        raise ConfigurationError(f"trim_messages: {which} is only valid with strategy='last'")
    items = _messages(messages)
    counter = _list_counter(token_counter)
    split_text = getattr(text_splitter, "split_text", None)
    splitter: Callable[[str], list[str]] = (
        split_text if callable(split_text) else text_splitter or _default_text_splitter
    )
    if strategy == "first":
        return _keep_first(
            items, _Fit(max_tokens, counter, splitter), False if allow_partial else None, end_on
        )
    if end_on:
        while items and not _is_type(items[-1], end_on):
            items.pop()
    system = items[0] if include_system and items and isinstance(items[0], SystemMessage) else None
    rest = items[1:] if system is not None else items
    budget = max(0, max_tokens - counter([system])) if system is not None else max_tokens
    kept = _keep_first(
        rest[::-1], _Fit(budget, counter, splitter), True if allow_partial else None, start_on
    )[::-1]
    return [system, *kept] if system is not None else kept


__all__ = ["count_tokens_approximately", "filter_messages", "merge_message_runs", "trim_messages"]
