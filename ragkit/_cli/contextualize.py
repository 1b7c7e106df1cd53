"""``ragkit index --contextualize SPEC``: the contextual-retrieval step and where its cache lives.

Contexts are cached in ``contexts.sqlite`` inside a folder index (beside its embedding cache),
or in ``RAGKIT_CONTEXT_CACHE`` (a file path) when set, which a PostgreSQL index needs. The
model's server is ``ragkit index --base-url`` (or ``RAGKIT_BASE_URL``); its key comes from
``--model-key-file`` or the environment, as for every command.

Example:
    >>> cache_path("my-index", {}).name
    'contexts.sqlite'
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigurationError


def cache_path(index: str, environ: Mapping[str, str] | None = None) -> Path:
    """Where the contexts of ``index`` are cached."""
    env = os.environ if environ is None else environ
    if env.get("RAGKIT_CONTEXT_CACHE"):
        return Path(env["RAGKIT_CONTEXT_CACHE"])
    from ragkit.indexing.open import is_url

    if is_url(index):
        raise ConfigurationError(
            "--contextualize with a PostgreSQL index: set RAGKIT_CONTEXT_CACHE to a file "
            "where the contexts are cached"
        )
    return Path(index) / "contexts.sqlite"


def with_contexts(options: Any, spec: str, index: str) -> Any:
    """``options`` with a Contextualizer for the model ``spec`` names."""
    from ragkit._cli.model_spec import ModelSettings, chat_model_from_spec
    from ragkit.caches import SQLiteCache
    from ragkit.indexing.contextual import Contextualizer

    model = chat_model_from_spec(spec, ModelSettings(endpoint=os.environ.get("RAGKIT_BASE_URL")))
    cache = SQLiteCache(str(cache_path(index)))
    return replace(options, contextualize=Contextualizer(model, cache=cache))


__all__ = ["cache_path", "with_contexts"]
