"""The chat model behind ``ragkit ask``, ``ragkit serve``, ``ragkit eval`` and
``ragkit query --retriever multi-query``.

``--model`` names it: ``openai:NAME`` (any OpenAI-compatible server: OpenAI, Ollama, vLLM,
llama.cpp's server, LM Studio, a gateway) or ``gemini:NAME`` (or a bare Gemini name, as
before); ``--base-url`` is the server (``http://127.0.0.1:11434/v1``; for Gemini the same as
``--endpoint``); ``--timeout`` the seconds a request may take. The key is never an argument:
it comes from the environment (``OPENAI_API_KEY``; ``GOOGLE_API_KEY`` or ``GEMINI_API_KEY``)
or from ``--model-key-file FILE``, read when the model is built and never printed. Each option
can also come from the environment (``RAGKIT_MODEL``, ``RAGKIT_BASE_URL``, ``RAGKIT_ENDPOINT``,
``RAGKIT_MODEL_KEY_FILE``) or from the ``[defaults]`` table of the index's ``ragkit.toml``
(``model``, ``endpoint``). (``ragkit serve`` has its own ``--api-key-file``: the keys its
clients must send, hence ``--model-key-file`` for the model's.)

``--base-url`` and ``--model-key-file`` travel in the command's click context (they do not
change the commands' signatures); :func:`model_choice` reads them.

Example:
    >>> has_key({"GEMINI_API_KEY": "k"}), has_key({})
    (True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import click

from ragkit.models.choice import ModelChoice

DEFAULT_MODEL = "gemini-2.0-flash"
_META = "ragkit.model_connection"


def has_key(environ: Mapping[str, str] | None = None) -> bool:
    """Whether a Google API key is set (``GOOGLE_API_KEY`` or ``GEMINI_API_KEY``), by the rule
    every Google class follows (:func:`ragkit._google.keys.key_from_environment`): a value of
    only whitespace is not a key, and a malformed one raises a ConfigurationError (not shown)."""
    from ragkit._google.keys import key_from_environment

    return key_from_environment(environ) is not None


def model_choice(
    model: str, endpoint: str | None = None, timeout: float | None = None
) -> ModelChoice:
    """The :class:`ModelChoice` of ``model`` with this command's ``--base-url`` (else
    ``endpoint``), ``--model-key-file`` and ``timeout``."""
    ctx = click.get_current_context(silent=True)
    given = ctx.find_root().meta.get(_META, {}) if ctx is not None else {}
    return ModelChoice(
        model=model,
        base_url=given.get("base_url") or endpoint,
        key_file=given.get("key_file"),
        timeout=timeout,
    )


def make_chat_model(model: str, endpoint: str | None = None, timeout: float | None = None) -> Any:
    """The chat model ``model`` names (``openai:NAME``, ``gemini:NAME`` or a Gemini name)."""
    return model_choice(model, endpoint, timeout).build()


def _remember(name: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    def store(ctx: click.Context, _param: click.Parameter, value: Any) -> Any:
        if value:
            ctx.find_root().meta.setdefault(_META, {})[name] = value
        return value

    return store


def count_option(name: str, default: int, help: str) -> Callable[..., Any]:
    """A whole-number option of at least 1 (``--passages``, ``--size``, ``--max-concurrency``)."""
    return click.option(
        name, default=default, show_default=True, type=click.IntRange(min=1), help=help
    )


def connection_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Adds ``--base-url`` and ``--model-key-file`` (kept in the click context, read by
    :func:`model_choice`): what ``ragkit index --contextualize`` takes besides its spec."""
    fn = click.option(
        "--model-key-file",
        envvar="RAGKIT_MODEL_KEY_FILE",
        type=click.Path(dir_okay=False),
        expose_value=False,
        callback=_remember("key_file"),
        help="A file holding the model's API key (else OPENAI_API_KEY, GOOGLE_API_KEY).",
    )(fn)
    return click.option(
        "--base-url",
        envvar="RAGKIT_BASE_URL",
        expose_value=False,
        callback=_remember("base_url"),
        help="The model's server, e.g. http://127.0.0.1:11434/v1 for Ollama with "
        "openai:llama3.1 (for Gemini, as --endpoint).",
    )(fn)


def model_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Adds ``--model``, ``--base-url``, ``--model-key-file``, ``--endpoint`` and ``--timeout``."""
    fn = click.option(
        "--timeout",
        type=click.FloatRange(min=0, min_open=True),
        envvar="RAGKIT_MODEL_TIMEOUT",
        help="Seconds each model request may take [60 for Gemini; the SDK's 600 for OpenAI].",
    )(fn)
    fn = click.option(
        "--endpoint",
        envvar="RAGKIT_ENDPOINT",
        help="Base URL of the Gemini API to call instead of Google's, e.g. a proxy or "
        "http://127.0.0.1:8080 (ChatGoogleGenerativeAI's client_options api_endpoint).",
    )(fn)
    fn = connection_options(fn)
    fn = click.option(
        "--model",
        "model_name",
        envvar=["RAGKIT_MODEL", "RAGKIT_GEMINI_MODEL"],
        help=f"openai:NAME (with --base-url for a local server) or gemini:NAME [{DEFAULT_MODEL}]; "
        "the key from OPENAI_API_KEY / GOOGLE_API_KEY or --model-key-file.",
    )(fn)
    return fn
