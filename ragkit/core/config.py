"""RunnableConfig: the settings that travel down a tree of runnables.

Example:
    >>> from ragkit.core.config import ensure_config
    >>> ensure_config({"tags": ["a"]})["recursion_limit"]
    25
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Sequence
from typing import Any, TypedDict

from ragkit.errors import ConfigurationError

DEFAULT_RECURSION_LIMIT = 25


class RunnableConfig(TypedDict, total=False):
    """Settings for one call of a runnable; children inherit them.

    ``tags`` and ``metadata`` are inherited by every nested run; ``run_name`` and
    ``run_id`` apply to the call they are passed to only; ``max_concurrency``
    bounds ``batch`` and parallel branches; ``configurable`` carries values for
    configurable fields and for session-scoped helpers (``session_id``).
    """

    tags: list[str]
    metadata: dict[str, Any]
    callbacks: Any
    run_name: str
    run_id: Any
    max_concurrency: int | None
    recursion_limit: int
    configurable: dict[str, Any]


# The config of the run that is executing user code right now (a function in a
# RunnableLambda, a tool, ...): runnables invoked from there without a config
# become its children.
current_config: contextvars.ContextVar[RunnableConfig | None] = contextvars.ContextVar(
    "ragkit_current_config", default=None
)

_DEFAULTS: dict[str, Any] = {
    "tags": [],
    "metadata": {},
    "callbacks": None,
    "recursion_limit": DEFAULT_RECURSION_LIMIT,
    "configurable": {},
}


def ensure_config(config: RunnableConfig | None = None) -> RunnableConfig:
    """Return a complete config: defaults, then the enclosing run's config, then ``config``."""
    out: dict[str, Any] = dict(_DEFAULTS)
    parent = current_config.get()
    if parent:
        out.update(parent)
    if config:
        for key, value in config.items():
            if value is not None:
                out[key] = value
    return out  # type: ignore[return-value]


def merge_configs(*configs: RunnableConfig | None) -> RunnableConfig:
    """Merge configs left to right: tags are concatenated, metadata and
    configurable merged, callbacks combined, other keys overridden."""
    out: dict[str, Any] = {}
    for config in configs:
        if not config:
            continue
        items: dict[str, Any] = dict(config)
        for key, value in items.items():
            if value is None:
                continue
            if key == "tags":
                out["tags"] = list(dict.fromkeys([*out.get("tags", []), *value]))
            elif key in ("metadata", "configurable"):
                out[key] = {**out.get(key, {}), **value}
            elif key == "callbacks":
                out["callbacks"] = _merge_callbacks(out.get("callbacks"), value)
            else:
                out[key] = value
    return out  # type: ignore[return-value]


def _merge_callbacks(left: Any, right: Any) -> Any:
    from ragkit.core.callbacks import CallbackManager

    if left is None:
        return right
    if right is None:
        return left
    if isinstance(left, CallbackManager):
        return left.with_handlers(_as_list(right))
    if isinstance(right, CallbackManager):
        return right.with_handlers(_as_list(left), prepend=True)
    return [*_as_list(left), *_as_list(right)]


def _as_list(callbacks: Any) -> list[Any]:
    from ragkit.core.callbacks import CallbackManager

    if callbacks is None:
        return []
    if isinstance(callbacks, CallbackManager):
        return list(callbacks.handlers)
    if isinstance(callbacks, (list, tuple)):
        return list(callbacks)
    return [callbacks]


def patch_config(
    config: RunnableConfig,
    *,
    callbacks: Any = None,
    recursion_limit: int | None = None,
    max_concurrency: int | None = None,
    run_name: str | None = None,
    configurable: dict[str, Any] | None = None,
) -> RunnableConfig:
    """Return a copy of ``config`` with some keys replaced.

    Replacing ``callbacks`` drops ``run_name`` and ``run_id``, which belong to
    the run the config was first given to.
    """
    out: dict[str, Any] = dict(config)
    if callbacks is not None:
        out["callbacks"] = callbacks
        out.pop("run_name", None)
        out.pop("run_id", None)
    if recursion_limit is not None:
        out["recursion_limit"] = recursion_limit
    if max_concurrency is not None:
        out["max_concurrency"] = max_concurrency
    if run_name is not None:
        out["run_name"] = run_name
    if configurable is not None:
        out["configurable"] = {**out.get("configurable", {}), **configurable}
    return out  # type: ignore[return-value]


def child_config(config: RunnableConfig) -> RunnableConfig:
    """The config a child receives when no callback handler is active."""
    if "run_name" in config or "run_id" in config:
        out = dict(config)
        out.pop("run_name", None)
        out.pop("run_id", None)
        return out  # type: ignore[return-value]
    return config


def get_config_list(
    config: RunnableConfig | Sequence[RunnableConfig] | None, n: int
) -> list[RunnableConfig]:
    """One config per input of a batch: a list is used as is, a single config is shared."""
    if n < 0:
        raise ConfigurationError(f"n must be >= 0, got {n}")
    if isinstance(config, Sequence) and not isinstance(config, dict):
        if len(config) != n:
            raise ConfigurationError(
                f"config must be a single config or a list of {n} configs (one per input), "
                f"got a list of {len(config)}"
            )
        return [ensure_config(c) for c in config]
    base = ensure_config(config)  # type: ignore[arg-type]
    if n > 1 and base.get("run_id") is not None:
        base = dict(base)  # type: ignore[assignment]
        base.pop("run_id", None)  # a run id names one run, not n
    return [base] * n


def call_with_config_arg(
    func: Callable[..., Any], accepts_config: bool, input: Any, config: RunnableConfig
) -> Any:
    """Call ``func(input)`` or ``func(input, config=config)`` with ``config`` current."""
    token = current_config.set(config)
    try:
        if accepts_config:
            return func(input, config=config)
        return func(input)
    finally:
        current_config.reset(token)
