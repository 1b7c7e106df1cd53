"""Small helpers shared by the retrievers: argument checks and scored copies of documents.

Example:
    >>> check_k(3, "k")
    3
    >>> require_methods(object(), "HybridRetriever: dense", "invoke")
    Traceback (most recent call last):
    ...
    ragkit.errors.ConfigurationError: HybridRetriever: dense (object) has no invoke()
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, ClassVar

from typing_extensions import Self

from ragkit.documents import Document
from ragkit.errors import ConfigurationError, InvalidQueryError
from ragkit.stores.search_args import check_k, check_lambda_mult, check_query

if TYPE_CHECKING:
    from ragkit.core.base import Runnable
    from ragkit.prompts import BasePromptTemplate

__all__ = [
    "check_k",
    "check_query",
    "doc_key",
    "reject_unknown",
    "with_score",
]


def reject_unknown(kwargs: dict[str, Any], owner: str, accepted: tuple[str, ...]) -> None:
    """Raise InvalidQueryError if ``kwargs`` holds options this retriever does not understand."""
    unknown = sorted(set(kwargs) - set(accepted))
    if unknown:
        raise InvalidQueryError(
            f"{owner} got unknown search option(s) {unknown}; it accepts {list(accepted) or 'none'}"
        )


def require_methods(obj: Any, what: str, *methods: str, hint: str = "") -> None:
    """ConfigurationError unless ``obj`` has every one of ``methods`` (``what`` names the argument)."""
    for method in methods:
        if not callable(getattr(obj, method, None)):
            raise ConfigurationError(f"{what} ({type(obj).__name__}) has no {method}(){hint}")


def question_context_prompt(prompt: Any, default: Any, owner: str) -> Any:
    """``prompt`` (else ``default``), refused unless it takes ``question`` and ``context``."""
    prompt = prompt or default
    missing = {"question", "context"} - set(prompt.input_variables)
    if missing:
        raise ConfigurationError(f"{owner} prompt lacks the variables {sorted(missing)}")
    return prompt


class ModelCompressorFromLLM:
    """``from_llm`` of the compressors that ask a model about each document: the class is built
    on ``prompt | llm | reply_parser()``, the prompt taking ``question`` and ``context``.

    Example: ``class Judge(ModelCompressorFromLLM, BaseDocumentCompressor): default_prompt = ...``.
    """

    default_prompt: ClassVar[Any]
    reply_parser: ClassVar[Callable[[], Any]]

    @classmethod
    def from_llm(
        cls, llm: Runnable[Any, Any], prompt: BasePromptTemplate | None = None, **kwargs: Any
    ) -> Self:
        """``cls(prompt | llm | reply_parser(), **kwargs)`` (default: ``default_prompt``)."""
        checked = question_context_prompt(prompt, cls.default_prompt, cls.__name__)
        build: Callable[..., Self] = cls
        return build(checked | llm | cls.reply_parser(), **kwargs)


def check_c(c: Any, owner: str) -> float:
    """The rank-fusion constant ``c``: a number >= 0, or ConfigurationError naming the retriever."""
    if isinstance(c, bool) or not isinstance(c, (int, float)) or c < 0:
        raise ConfigurationError(f"{owner}: c must be a number >= 0, got {c!r}")
    return c


def check_choice(value: Any, choices: tuple[str, ...], what: str) -> Any:
    """``value`` when it is one of ``choices``, else ConfigurationError naming ``what``.

    Example:
        >>> check_choice("rrf", ("union", "rrf"), "fusion")
        'rrf'
        >>> check_choice("max", ("union", "rrf"), "fusion")
        Traceback (most recent call last):
        ...
        ragkit.errors.ConfigurationError: fusion must be one of ('union', 'rrf'), got 'max'
    """
    if value not in choices:
        raise ConfigurationError(f"{what} must be one of {choices}, got {value!r}")
    return value


SEARCH_TYPES = ("similarity", "mmr", "similarity_score_threshold")


def check_search(search_type: str, search_kwargs: dict[str, Any] | None) -> dict[str, Any]:
    """A copy of ``search_kwargs`` after checking ``search_type``, its ``score_threshold`` and
    ``k``, ``fetch_k``, ``lambda_mult`` (see :mod:`ragkit.stores.search_args`)."""
    check_choice(search_type, SEARCH_TYPES, "search_type")
    search_kwargs = dict(search_kwargs or {})
    threshold = search_kwargs.get("score_threshold")
    if search_type == "similarity_score_threshold" and (
        isinstance(threshold, bool)
        or not isinstance(threshold, (int, float))
        or not math.isfinite(threshold)
    ):
        raise ConfigurationError(
            "search_type='similarity_score_threshold' needs a numeric search_kwargs['score_threshold']"
        )
    for name in ("k", "fetch_k"):  # checked now, not at the first query
        if name in search_kwargs:
            check_k(search_kwargs[name], name)
    if "lambda_mult" in search_kwargs:
        check_lambda_mult(search_kwargs["lambda_mult"])
    return search_kwargs


def with_score(doc: Document, score: float, key: str = "score") -> Document:
    """A copy of ``doc`` with ``metadata[key] = score`` (the original is left alone).

    Equivalent to ``doc.model_copy(update={"metadata": {...}})``, several times cheaper:
    retrievers call it for every result.
    """
    if type(doc) is Document:
        return Document._trusted(doc.page_content, {**doc.metadata, key: float(score)}, doc.id)
    new = doc.__copy__()  # a subclass: pydantic's shallow copy keeps its extra fields
    new.__dict__["metadata"] = {**doc.metadata, key: float(score)}
    new.__pydantic_fields_set__.add("metadata")
    return new


def doc_key(doc: Document, id_key: str | None = None) -> Hashable:
    """Identity used for de-duplication: ``metadata[id_key]`` if given, else ``Document.id``, else the text."""
    if id_key is not None:
        if id_key not in doc.metadata:
            raise InvalidQueryError(
                f"id_key={id_key!r} is missing from the metadata of a result document "
                f"({doc.page_content[:40]!r}); set it on every document or use id_key=None"
            )
        value = doc.metadata[id_key]
        return ("meta", value if isinstance(value, Hashable) else repr(value))
    if doc.id is not None:
        return ("id", doc.id)
    return ("text", doc.page_content)
