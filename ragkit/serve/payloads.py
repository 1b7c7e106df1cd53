"""Reading LangServe's request payloads: ``input``/``inputs``, ``config`` and the run filters.

A request body is ``{"input": ..., "config": {...}, "kwargs": {...}}`` (``inputs``
and a config or a list of configs for ``/batch``). The input is checked
against the runnable's input schema (422 naming the field otherwise) and
well-known objects (documents, messages) are rebuilt. Of the config, only the
keys the route allows (``config_keys``, by default ``configurable``) are kept,
as LangServe does; ``configurable`` values sent to a route that does not allow
them are a 422. ``kwargs`` are ignored, as in LangServe.

Example:
    >>> from ragkit import RunnableLambda
    >>> read_input(input_schema(RunnableLambda(lambda x: x)), {"input": {"a": 1}})
    {'a': 1}
    >>> read_config({"configurable": {"user": "u1"}, "tags": ["t"]}, ("configurable",))
    {'configurable': {'user': 'u1'}}
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, RootModel, ValidationError

from ragkit.core.config import RunnableConfig
from ragkit.errors import RequestError
from ragkit.serve.responses import validation_message
from ragkit.serve.wire import loadd

#: Config keys a route may accept from clients, with the JSON type each must have.
CONFIG_TYPES: dict[str, type | tuple[type, ...]] = {
    "configurable": dict,
    "tags": list,
    "metadata": dict,
    "run_name": str,
    "recursion_limit": int,
    "max_concurrency": (int, type(None)),
}
FILTER_KEYS = (
    "include_names",
    "include_types",
    "include_tags",
    "exclude_names",
    "exclude_types",
    "exclude_tags",
)


def check_config_keys(config_keys: Sequence[str]) -> tuple[str, ...]:
    from ragkit.errors import ConfigurationError

    unknown = [k for k in config_keys if k not in CONFIG_TYPES]
    if unknown:
        raise ConfigurationError(
            f"add_routes(config_keys=...): {unknown} cannot come from clients; "
            f"choose among {sorted(CONFIG_TYPES)}"
        )
    return tuple(config_keys)


def read_config(raw: Any, config_keys: Sequence[str], field: str = "config") -> RunnableConfig:
    """The allowed part of a client's config (422 for a wrong type or a disallowed configurable)."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise RequestError(
            f"{field} must be a JSON object, got {type(raw).__name__}", status_code=422, field=field
        )
    if raw.get("configurable") and "configurable" not in config_keys:
        raise RequestError(
            "this route does not accept config.configurable; the server can allow it with "
            "add_routes(..., config_keys=('configurable',))",
            status_code=422,
            field=f"{field}.configurable",
        )
    out: dict[str, Any] = {}
    for key in config_keys:
        if key not in raw or (key == "configurable" and not raw[key]):
            continue
        value: Any = raw[key]
        expected = CONFIG_TYPES[key]
        if not _has_type(value, expected):
            names = (
                " or ".join(t.__name__ for t in expected)
                if isinstance(expected, tuple)
                else expected.__name__
            )
            raise RequestError(
                f"{field}.{key} must be {names.replace('NoneType', 'null')}",
                status_code=422,
                field=f"{field}.{key}",
            )
        if key == "tags" and not all(isinstance(t, str) for t in value):
            raise RequestError(
                f"{field}.tags must be a list of strings", status_code=422, field=f"{field}.tags"
            )
        if key in ("recursion_limit", "max_concurrency") and value is not None and value < 1:
            raise RequestError(
                f"{field}.{key} must be at least 1", status_code=422, field=f"{field}.{key}"
            )
        out[key] = value
    return out  # type: ignore[return-value]


def _has_type(value: Any, expected: type | tuple[type, ...]) -> bool:
    return not isinstance(value, bool) and isinstance(value, expected)


def with_run_id(config: RunnableConfig) -> RunnableConfig:
    """``config`` plus a fresh ``run_id`` (returned to the client in the response metadata)."""
    return {**config, "run_id": uuid.uuid4()}


def _unwrap(value: Any) -> Any:
    from ragkit.documents import Document
    from ragkit.messages import BaseMessage
    from ragkit.prompt_values import PromptValue

    if isinstance(value, RootModel):
        value = value.root
    if isinstance(value, BaseModel) and not isinstance(value, (Document, BaseMessage, PromptValue)):
        return (
            value.model_dump()
        )  # a model pydantic built from the schema: the runnable takes dicts
    return value


def input_schema(runnable: Any) -> Any:
    """``runnable``'s input schema (None when pydantic cannot describe its types: any JSON goes)."""
    try:
        return runnable.get_input_schema()
    except Exception:
        return None


def validate_input(schema: Any, value: Any, field: str = "input") -> Any:
    """``value`` checked against an input ``schema`` (see :func:`input_schema`; None: anything),
    with well-known objects rebuilt."""
    if schema is not None:
        try:
            value = _unwrap(schema.model_validate(value))
        except ValidationError as err:
            message, at = validation_message(err, prefix=field)
            raise RequestError(message, status_code=422, field=at) from None
    return loadd(value)


def read_input(schema: Any, body: dict[str, Any]) -> Any:
    if "input" not in body:
        raise RequestError(
            'the body needs "input" (the runnable\'s input), e.g. {"input": "hello"}',
            status_code=422,
            field="input",
        )
    return validate_input(schema, body["input"])


def read_batch(
    schema: Any, body: dict[str, Any], config_keys: Sequence[str], max_batch: int
) -> tuple[list[Any], list[RunnableConfig]]:
    inputs = body.get("inputs")
    if not isinstance(inputs, list):
        raise RequestError(
            'the body needs "inputs", a list of inputs, e.g. {"inputs": ["a", "b"]}',
            status_code=422,
            field="inputs",
        )
    if len(inputs) > max_batch:
        raise RequestError(
            f"a batch holds at most {max_batch} inputs on this server, got {len(inputs)}",
            status_code=422,
            field="inputs",
        )
    raw = body.get("config")
    if isinstance(raw, list):
        if len(raw) != len(inputs):
            raise RequestError(
                f"config is a list of {len(raw)} configs for {len(inputs)} inputs; "
                "send one config per input, or one config for all",
                status_code=422,
                field="config",
            )
        configs = [read_config(c, config_keys, f"config.{i}") for i, c in enumerate(raw)]
    else:
        configs = [read_config(raw, config_keys)] * len(inputs)
    values = [validate_input(schema, v, f"inputs.{i}") for i, v in enumerate(inputs)]
    return values, [with_run_id(c) for c in configs]


def read_filters(body: dict[str, Any]) -> dict[str, Any]:
    """``include_names`` ... ``exclude_tags`` of a stream_log / stream_events request."""
    out: dict[str, Any] = {}
    for key in FILTER_KEYS:
        value = body.get(key)
        if value is None:
            continue
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise RequestError(
                f"{key} must be a list of strings or null", status_code=422, field=key
            )
        out[key] = value
    return out
