"""The chat model behind ``ragkit ask`` and ``ragkit query --retriever multi-query``.

The options mirror :class:`ragkit.models.ChatGoogleGenerativeAI`'s: ``--model``
is its ``model``, ``--endpoint`` its ``client_options={"api_endpoint": ...}``
(any server speaking the Generative Language REST API, e.g. a proxy or a local
emulator; write ``http://`` for plain HTTP), ``--timeout`` its ``timeout``. The
key comes from ``GOOGLE_API_KEY`` (or ``GEMINI_API_KEY``) as in the class, and is
never printed. Each option can also come from the environment (``RAGKIT_MODEL``,
``RAGKIT_ENDPOINT``) or from the ``[defaults]`` table of the index's ``ragkit.toml``
(``model``, ``endpoint``).

Example:
    >>> has_key({"GEMINI_API_KEY": "k"}), has_key({})
    (True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import click

DEFAULT_MODEL = "gemini-2.0-flash"


def has_key(environ: Mapping[str, str] | None = None) -> bool:
    """Whether a Google API key is set (``GOOGLE_API_KEY`` or ``GEMINI_API_KEY``), by the rule
    every Google class follows (:func:`ragkit._google.keys.key_from_environment`): a value of
    only whitespace is not a key, and a malformed one raises a ConfigurationError (not shown)."""
    from ragkit._google.keys import key_from_environment

    return key_from_environment(environ) is not None


def make_chat_model(model: str, endpoint: str | None = None, timeout: float | None = None) -> Any:
    """A :class:`ragkit.models.ChatGoogleGenerativeAI` for ``model`` (at ``endpoint`` if given)."""
    from ragkit.models import ChatGoogleGenerativeAI

    kwargs: dict[str, Any] = {"model": model}
    if endpoint:
        kwargs["client_options"] = {"api_endpoint": endpoint}
    if timeout is not None:
        kwargs["timeout"] = timeout
    return ChatGoogleGenerativeAI(**kwargs)


def count_option(name: str, default: int, help: str) -> Callable[..., Any]:
    """A whole-number option of at least 1 (``--passages``, ``--size``, ``--max-concurrency``)."""
    return click.option(
        name, default=default, show_default=True, type=click.IntRange(min=1), help=help
    )


def model_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Adds ``--model``, ``--endpoint`` and ``--timeout`` to a command."""
    fn = click.option(
        "--timeout",
        type=click.FloatRange(min=0, min_open=True),
        envvar="RAGKIT_MODEL_TIMEOUT",
        help="Seconds each model request may take [60].",
    )(fn)
    fn = click.option(
        "--endpoint",
        envvar="RAGKIT_ENDPOINT",
        help="Base URL of the Gemini API to call instead of Google's, e.g. a proxy or "
        "http://127.0.0.1:8080 (ChatGoogleGenerativeAI's client_options api_endpoint).",
    )(fn)
    fn = click.option(
        "--model",
        "model_name",
        envvar=["RAGKIT_MODEL", "RAGKIT_GEMINI_MODEL"],
        help=f"Gemini chat model [{DEFAULT_MODEL}]; needs GOOGLE_API_KEY.",
    )(fn)
    return fn
