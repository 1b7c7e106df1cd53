"""Tool: a named, described, schema-checked function a chat model can call.

Invoked with plain arguments a tool returns the function's result and
raises on bad input. Invoked with a ``ToolCall`` (what a model sends) it
always returns a :class:`~ragkit.messages.ToolMessage`: a failure (bad
arguments, an exception, a timeout) becomes a ``status="error"`` message the
model can read and act on.

Example:
    >>> t = Tool(name="echo", description="Echo text.", func=lambda text: text)
    >>> t.invoke({"text": "hi"})
    'hi'
    >>> t.invoke({"name": "echo", "args": {}, "id": "c1", "type": "tool_call"}).status
    'error'
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import inspect
import json
import re
import threading
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ValidationError

from ragkit._schema import function_args_model, tool_schema
from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig, current_config, ensure_config
from ragkit.errors import ConfigurationError, ToolException, ToolTimeoutError
from ragkit.messages import ToolMessage
from ragkit.tools.docstrings import split_docstring, with_descriptions


def _is_tool_call(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    return value.get("type") == "tool_call" or set(value) == {"name", "args", "id"}


def _validation_summary(err: ValidationError) -> str:
    parts = []
    for e in err.errors():
        where = ".".join(str(p) for p in e.get("loc", ())) or "(arguments)"
        parts.append(f"{where}: {e.get('msg')}")
    return "; ".join(parts)


def _to_content(result: Any) -> str:
    if isinstance(result, str):
        return result
    if isinstance(result, BaseModel):
        return result.model_dump_json()
    try:
        return json.dumps(
            result, default=lambda o: o.model_dump() if isinstance(o, BaseModel) else str(o)
        )
    except (TypeError, ValueError):
        return str(result)


def _run_in_daemon_thread(thunk: Callable[[], Any]) -> concurrent.futures.Future[Any]:
    """Run ``thunk`` in a daemon thread (a hung tool can then never block interpreter exit)."""
    future: concurrent.futures.Future[Any] = concurrent.futures.Future()
    ctx = contextvars.copy_context()

    def target() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(ctx.run(thunk))
        except BaseException as e:  # noqa: BLE001 - handed to the waiter
            future.set_exception(e)

    threading.Thread(target=target, name="ragkit-tool", daemon=True).start()
    return future


def _in_running_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class Tool(Runnable[Any, Any]):
    """A named, described, schema-checked function a model can call.

    ``func`` (sync) and/or ``coroutine`` (async) receive the validated
    arguments as keyword arguments, plus ``custom_context=`` and ``config=``
    when their signature asks for them. ``timeout`` (seconds) bounds every
    call; a call may also pass ``timeout=`` to ``invoke``.

    Example:
        >>> t = Tool(name="echo", description="Echo text.", func=lambda text: text)
        >>> t.invoke("hi")
        'hi'
    """

    name: str

    def __init__(
        self,
        name: str,
        description: str,
        func: Callable[..., Any] | None = None,
        coroutine: Callable[..., Any] | None = None,
        args_schema: type[BaseModel] | None = None,
        *,
        timeout: float | None = None,
        returns_model: bool = False,
        return_direct: bool = False,
    ) -> None:
        if func is None and coroutine is None and not returns_model:
            raise ConfigurationError(f"Tool {name!r} needs func= or coroutine= (the code to run)")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.\-]{0,63}", name):
            raise ConfigurationError(
                f"Tool name {name!r} is not usable by chat models: use letters, digits, '_', '.' or '-' "
                "(at most 64 characters, starting with a letter or '_')"
            )
        self.name = name
        self.description = description
        self.func = func
        self.coroutine = coroutine
        target = func or coroutine
        self.args_schema: type[BaseModel] = args_schema or (
            function_args_model(target) if target is not None else _empty_model()
        )
        self.timeout = timeout
        self.returns_model = returns_model
        self.return_direct = return_direct
        """Whether an agent stops and answers with this tool's result (LangChain's flag)."""
        params = inspect.signature(target).parameters if target is not None else {}
        self._wants_context = "custom_context" in params
        self._wants_config = "config" in params

    # -- construction -------------------------------------------------------------
    @classmethod
    def from_function(
        cls,
        func: Callable[..., Any],
        name: str | None = None,
        description: str | None = None,
        *,
        args_schema: type[BaseModel] | None = None,
        timeout: float | None = None,
        parse_docstring: bool = False,
        return_direct: bool = False,
    ) -> Tool:
        """A tool from a typed function (``async def`` functions become ``coroutine``).

        The argument schema is titled with the tool's name and described by the function's
        docstring (as LangChain's); ``Annotated[int, "..."]`` describes a parameter.
        """
        doc = inspect.cleandoc(func.__doc__ or "")
        arg_docs: dict[str, str] = {}
        if parse_docstring:
            doc, arg_docs = split_docstring(doc)
        desc = description if description is not None else doc
        fname = name or func.__name__
        if not desc:
            raise ConfigurationError(
                f"Tool {fname!r} has no description: give the function a docstring or pass description=..."
            )
        schema = args_schema or function_args_model(func, name=fname, description=doc)
        if arg_docs:
            schema = with_descriptions(schema, arg_docs)
        is_async = inspect.iscoroutinefunction(func)
        return cls(
            name=fname,
            description=desc,
            func=None if is_async else func,
            coroutine=func if is_async else None,
            args_schema=schema,
            timeout=timeout,
            return_direct=return_direct,
        )

    @classmethod
    def from_model(
        cls,
        model: type[BaseModel],
        func: Callable[..., Any] | None = None,
        *,
        name: str | None = None,
        description: str | None = None,
        timeout: float | None = None,
    ) -> Tool:
        """A tool whose arguments are ``model``'s fields.

        Without ``func`` the tool returns the validated model instance (handy as
        the "final answer" tool of :meth:`LLMChain.run_until_tool_used`);
        with ``func`` it returns ``func(instance)``.
        """
        spec = tool_schema(model)
        desc = description if description is not None else spec["description"]
        if not desc:
            raise ConfigurationError(
                f"Tool from model {model.__name__!r} has no description: add a docstring or pass description=..."
            )
        wrapped: Callable[..., Any] | None = None
        if func is not None:
            target = func

            def wrapped(**fields: Any) -> Any:
                return target(model(**fields))

        return cls(
            name=name or spec["name"],
            description=desc,
            func=wrapped,
            args_schema=model,
            timeout=timeout,
            returns_model=func is None,
        )

    # -- schema ------------------------------------------------------------------
    def tool_schema(self) -> dict[str, Any]:
        """``{"name", "description", "parameters"}`` for ``bind_tools``."""
        params = tool_schema(self.args_schema)["parameters"]
        return {"name": self.name, "description": self.description, "parameters": params}

    @property
    def args(self) -> dict[str, Any]:
        """The JSON-schema properties of the arguments (with their titles, as LangChain's)."""
        return dict(self.args_schema.model_json_schema().get("properties", {}))

    @property
    def is_async(self) -> bool:
        return self.func is None and self.coroutine is not None

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        return self.args_schema

    def __repr__(self) -> str:
        return f"Tool(name={self.name!r})"

    # -- arguments ---------------------------------------------------------------
    def _raw_args(self, value: Any) -> dict[str, Any]:
        if isinstance(value, BaseModel):
            return value.model_dump()
        if isinstance(value, dict):
            return value
        if isinstance(value, str):
            fields = list(self.args_schema.model_fields)
            if len(fields) == 1:
                return {fields[0]: value}
            try:
                parsed = json.loads(value)
            except json.JSONDecodeError as e:
                raise ToolException(
                    f"Tool {self.name!r}: arguments are not valid JSON ({e.msg} at position {e.pos}); "
                    f"send a JSON object with keys {fields}"
                ) from e
            if isinstance(parsed, dict):
                return parsed
        raise ToolException(
            f"Tool {self.name!r}: arguments must be a JSON object with keys "
            f"{list(self.args_schema.model_fields)}, got {type(value).__name__}: {value!r:.80}"
        )

    def validate_args(self, value: Any) -> BaseModel:
        """The arguments checked against the schema; :class:`ToolException` names the bad fields."""
        raw = self._raw_args(value)
        try:
            return self.args_schema.model_validate(raw)
        except ValidationError as e:
            props = sorted(self.args)
            raise ToolException(
                f"Tool {self.name!r}: invalid arguments: {_validation_summary(e)}. "
                f"Expected the parameters {props} as described in the tool schema."
            ) from e

    # -- running -----------------------------------------------------------------
    def _kwargs(
        self, args: BaseModel, custom_context: Any, config: RunnableConfig
    ) -> dict[str, Any]:
        kwargs = {k: getattr(args, k) for k in type(args).model_fields}
        if self._wants_context:
            kwargs["custom_context"] = custom_context
        if self._wants_config:
            kwargs["config"] = config
        return kwargs

    def _call_sync(self, args: BaseModel, custom_context: Any, config: RunnableConfig) -> Any:
        if self.returns_model:
            return args
        kwargs = self._kwargs(args, custom_context, config)
        token = current_config.set(config)
        try:
            if self.func is not None:
                return self.func(**kwargs)
            assert self.coroutine is not None
            coro = self.coroutine(**kwargs)
            if _in_running_loop():  # cannot nest asyncio.run in this thread
                return _run_in_daemon_thread(lambda: asyncio.run(coro)).result()
            return asyncio.run(coro)
        finally:
            current_config.reset(token)

    async def _call_async(
        self, args: BaseModel, custom_context: Any, config: RunnableConfig
    ) -> Any:
        if self.returns_model:
            return args
        if self.coroutine is None:
            return await asyncio.wrap_future(
                _run_in_daemon_thread(lambda: self._call_sync(args, custom_context, config))
            )
        token = current_config.set(config)
        try:
            return await self.coroutine(**self._kwargs(args, custom_context, config))
        finally:
            current_config.reset(token)

    def _timeout_error(self, seconds: float) -> ToolTimeoutError:
        return ToolTimeoutError(
            f"Tool {self.name!r} did not finish within {seconds:g} s and was abandoned; "
            "try simpler arguments or another tool (callers can raise the timeout)"
        )

    def _execute(
        self, value: Any, config: RunnableConfig, custom_context: Any, timeout: float | None
    ) -> Any:
        args = self.validate_args(value)
        if timeout is None:
            return self._call_sync(args, custom_context, config)
        future = _run_in_daemon_thread(lambda: self._call_sync(args, custom_context, config))
        try:
            return future.result(timeout=timeout)
        except concurrent.futures.TimeoutError:
            raise self._timeout_error(timeout) from None

    async def _aexecute(
        self, value: Any, config: RunnableConfig, custom_context: Any, timeout: float | None
    ) -> Any:
        args = self.validate_args(value)
        try:
            return await asyncio.wait_for(self._call_async(args, custom_context, config), timeout)
        except asyncio.TimeoutError:
            raise self._timeout_error(timeout or 0.0) from None

    def _context(self, config: RunnableConfig | None, custom_context: Any) -> Any:
        if custom_context is not None:
            return custom_context
        return ensure_config(config).get("configurable", {}).get("custom_context")

    def invoke(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        custom_context: Any = None,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> Any:
        """Run the tool on ``input`` (arguments dict, JSON text, or a ``ToolCall``)."""
        ctx = self._context(config, custom_context)
        limit = timeout if timeout is not None else self.timeout
        if _is_tool_call(input):
            return self._call_with_config(
                lambda call, cfg: self._answer(
                    call, lambda: self._execute(call["args"], cfg, ctx, limit)
                ),
                input,
                config,
                run_type="tool",
            )
        return self._call_with_config(
            lambda v, cfg: self._execute(v, cfg, ctx, limit),
            input,
            config,
            run_type="tool",
        )

    async def ainvoke(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        custom_context: Any = None,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> Any:
        ctx = self._context(config, custom_context)
        limit = timeout if timeout is not None else self.timeout

        async def run(value: Any, cfg: RunnableConfig) -> Any:
            if not _is_tool_call(value):
                return await self._aexecute(value, cfg, ctx, limit)
            try:
                result = await self._aexecute(value["args"], cfg, ctx, limit)
            except Exception as e:  # noqa: BLE001 - becomes a message to the model
                return self.error_message(value, e)
            return self.result_message(value, result)

        return await self._acall_with_config(run, input, config, run_type="tool")

    def _answer(self, call: dict[str, Any], thunk: Callable[[], Any]) -> ToolMessage:
        try:
            result = thunk()
        except Exception as e:  # noqa: BLE001 - becomes a message to the model
            return self.error_message(call, e)
        return self.result_message(call, result)

    # -- messages ----------------------------------------------------------------
    def result_message(self, call: dict[str, Any], result: Any) -> ToolMessage:
        """The ToolMessage answering ``call`` with ``result``."""
        if isinstance(result, ToolMessage):
            return result.model_copy(
                update={"tool_call_id": call.get("id") or "", "name": self.name}
            )
        return ToolMessage(
            content=_to_content(result),
            tool_call_id=call.get("id") or "",
            name=self.name,
            artifact=result,
            status="success",
        )

    def error_message(self, call: dict[str, Any], error: BaseException) -> ToolMessage:
        """An error ToolMessage telling the model what went wrong with ``call``."""
        if isinstance(error, ToolException):
            text = f"ERROR: {error}"
        else:
            text = f"ERROR: tool {self.name!r} raised {type(error).__name__}: {error}"
        return ToolMessage(
            content=text,
            tool_call_id=call.get("id") or "",
            name=self.name,
            status="error",
            artifact=error,
        )


def _empty_model() -> type[BaseModel]:
    return function_args_model(lambda: None)
