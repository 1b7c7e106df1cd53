"""RemoteRunnable: a Runnable that runs on a server (ragkit's or LangServe's) over HTTP.

It speaks the routes :func:`ragkit.serve.add_routes` and LangServe's
``add_routes`` serve (``/invoke``, ``/batch``, ``/stream``, ``/stream_log``,
``/stream_events``), through httpx. Being a Runnable, it composes: ``prompt |
RemoteRunnable(url) | parser`` runs one step on another machine, traced and
streamed like the others. Documents and messages come back as ragkit objects.
A failed call raises :class:`~ragkit.errors.RemoteRunnableError` with the
server's message and status (LangServe's client raises ``httpx.HTTPStatusError``).

Example:
    >>> remote = RemoteRunnable("http://127.0.0.1:8000/retriever", api_key="k" * 16)
    >>> remote.url
    'http://127.0.0.1:8000/retriever/'
    >>> "k" * 16 in repr(remote)
    False
    >>> # docs = remote.invoke("reset the router")      # with `ragkit serve` running
    >>> # chain = remote | (lambda docs: docs[0].page_content)
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import httpx
from httpx_sse import ServerSentEvent, aconnect_sse, connect_sse

from ragkit.core.base import StreamingRunnable
from ragkit.core.chunks import add_chunks
from ragkit.core.config import RunnableConfig, ensure_config, get_config_list
from ragkit.errors import RemoteRunnableError
from ragkit.serve.wire import dumpd, loadd

_NOTHING: Any = object()
#: Config keys sent to the server (callbacks and run ids stay local).
_SENT_KEYS = ("tags", "metadata", "configurable")


def _json_safe(value: Any) -> Any:
    """``value`` without what JSON cannot carry (objects put in a config for local use)."""
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items() if isinstance(k, str) and _plain(v)}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value if _plain(v)]
    return value


def _plain(value: Any) -> bool:
    return isinstance(value, (dict, list, tuple, str, int, float, bool, type(None)))


def server_config(config: RunnableConfig | None) -> dict[str, Any]:
    """The part of ``config`` sent to the server."""
    full = ensure_config(config)
    out = {k: _json_safe(full[k]) for k in _SENT_KEYS if full.get(k)}  # type: ignore[literal-required]
    return out


def _message(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.text[:500] or response.reason_phrase
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        if "detail" in data:  # FastAPI / LangServe
            return str(data["detail"])[:500]
    return response.text[:500]


def _check(response: httpx.Response, url: str) -> None:
    if response.status_code >= 400:
        raise RemoteRunnableError(
            f"{url} answered {response.status_code}: {_message(response)}",
            status_code=response.status_code,
            url=url,
        )


def _transport_error(err: Exception, url: str) -> RemoteRunnableError:
    if isinstance(err, httpx.TimeoutException):
        reason = "timed out"
    elif isinstance(err, httpx.ConnectError):
        reason = "cannot connect (is the server running, and is the URL right?)"
    else:
        reason = type(err).__name__
    return RemoteRunnableError(f"{url}: {reason}", status_code=None, url=url)


def _error_event(sse: ServerSentEvent, url: str) -> RemoteRunnableError:
    try:
        data = loadd(sse.json())
        status, message = data.get("status_code"), data.get("message")
    except (ValueError, AttributeError):
        status, message = 500, sse.data[:500]
    return RemoteRunnableError(
        f"{url} failed mid-stream: {message}",
        status_code=status if isinstance(status, int) else 500,
        url=url,
    )


class RemoteRunnable(StreamingRunnable[Any, Any]):
    """A runnable served at ``url`` (the path given to ``add_routes``).

    Args:
        url: e.g. ``"http://127.0.0.1:8000/retriever"``.
        timeout: seconds per request (``None``: httpx's default of 5 s per operation).
        headers: sent with every request.
        api_key: sent as ``Authorization: Bearer KEY`` (never shown in reprs or errors).
        client_kwargs: more arguments for ``httpx.Client`` / ``httpx.AsyncClient``.
    """

    def __init__(
        self,
        url: str,
        *,
        timeout: float | None = None,
        headers: dict[str, str] | None = None,
        api_key: str | None = None,
        client_kwargs: dict[str, Any] | None = None,
    ) -> None:
        self.url = url if url.endswith("/") else url + "/"
        all_headers = dict(headers or {})
        if api_key:
            all_headers["authorization"] = f"Bearer {api_key}"
        self._kwargs: dict[str, Any] = {
            "base_url": self.url,
            "headers": all_headers,
            **({"timeout": timeout} if timeout is not None else {}),
            **(client_kwargs or {}),
        }
        self._sync: httpx.Client | None = None
        self._async: weakref.WeakKeyDictionary[Any, httpx.AsyncClient] = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        return f"RemoteRunnable({self.url!r})"

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        return super().get_name(suffix, name=name or self.name or "RemoteRunnable")

    # -- clients ----------------------------------------------------------------------------
    def _client(self) -> httpx.Client:
        if self._sync is None:
            self._sync = httpx.Client(**self._kwargs)
            weakref.finalize(self, self._sync.close)
        return self._sync

    def _aclient(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()  # an AsyncClient belongs to one event loop
        client = self._async.get(loop)
        if client is None:
            client = self._async[loop] = httpx.AsyncClient(**self._kwargs)
        return client

    def close(self) -> None:
        """Close the synchronous connection pool (async pools close with their event loop)."""
        if self._sync is not None:
            self._sync.close()
            self._sync = None

    def _post(self, route: str, body: dict[str, Any]) -> Any:
        try:
            response = self._client().post(route, json=body)
        except httpx.HTTPError as err:
            raise _transport_error(err, self.url + route) from None
        _check(response, self.url + route)
        return response.json()

    async def _apost(self, route: str, body: dict[str, Any]) -> Any:
        try:
            response = await self._aclient().post(route, json=body)
        except httpx.HTTPError as err:
            raise _transport_error(err, self.url + route) from None
        _check(response, self.url + route)
        return response.json()

    # -- invoke and batch -------------------------------------------------------------------
    def _payload(self, input: Any, config: RunnableConfig | None) -> dict[str, Any]:
        return {"input": dumpd(input), "config": server_config(config), "kwargs": {}}

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        def call(value: Any, cfg: RunnableConfig) -> Any:
            return loadd(self._post("invoke", self._payload(value, cfg))["output"])

        return self._call_with_config(call, input, config)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        async def call(value: Any, cfg: RunnableConfig) -> Any:
            return loadd((await self._apost("invoke", self._payload(value, cfg)))["output"])

        return await self._acall_with_config(call, input, config)

    def _batch_body(self, inputs: Sequence[Any], config: Any) -> dict[str, Any]:
        configs = get_config_list(config, len(inputs))
        return {
            "inputs": dumpd(list(inputs)),
            "config": [server_config(c) for c in configs],
            "kwargs": {},
        }

    def batch(
        self,
        inputs: Sequence[Any],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        """One ``/batch`` request (with ``return_exceptions``: one ``/invoke`` per input)."""
        if not inputs:
            return []
        if return_exceptions:
            return super().batch(inputs, config, return_exceptions=True)
        return list(loadd(self._post("batch", self._batch_body(inputs, config))["output"]))

    async def abatch(
        self,
        inputs: Sequence[Any],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        if not inputs:
            return []
        if return_exceptions:
            return await super().abatch(inputs, config, return_exceptions=True)
        body = self._batch_body(inputs, config)
        return list(loadd((await self._apost("batch", body))["output"]))

    # -- streams ----------------------------------------------------------------------------
    @contextmanager
    def _sse(self, route: str, body: dict[str, Any]) -> Iterator[Iterator[ServerSentEvent]]:
        url = self.url + route
        try:
            with connect_sse(self._client(), "POST", route, json=body) as source:
                if source.response.status_code >= 400:
                    source.response.read()
                    _check(source.response, url)
                yield source.iter_sse()
        except httpx.HTTPError as err:
            raise _transport_error(err, url) from None

    @asynccontextmanager
    async def _asse(
        self, route: str, body: dict[str, Any]
    ) -> AsyncIterator[AsyncIterator[ServerSentEvent]]:
        url = self.url + route
        try:
            async with aconnect_sse(self._aclient(), "POST", route, json=body) as source:
                if source.response.status_code >= 400:
                    await source.response.aread()
                    _check(source.response, url)
                yield source.aiter_sse()
        except httpx.HTTPError as err:
            raise _transport_error(err, url) from None

    def _data(self, sse: ServerSentEvent, route: str) -> Any:
        """The decoded data of a ``data`` event; raises on ``error``; None for the others."""
        if sse.event == "error":
            raise _error_event(sse, self.url + route)
        if sse.event == "data":
            return loadd(sse.json())
        return _NOTHING

    @staticmethod
    def _whole(inputs: Iterator[Any]) -> Any:
        whole: Any = _NOTHING
        for chunk in inputs:
            whole = chunk if whole is _NOTHING else add_chunks(whole, chunk)
        return whole

    def _transform(self, inputs: Iterator[Any], config: RunnableConfig) -> Iterator[Any]:
        whole = self._whole(inputs)
        if whole is _NOTHING:
            return
        with self._sse("stream", self._payload(whole, config)) as events:
            for sse in events:
                if sse.event == "end":
                    return
                data = self._data(sse, "stream")
                if data is not _NOTHING:
                    yield data

    async def _atransform(
        self, inputs: AsyncIterator[Any], config: RunnableConfig
    ) -> AsyncIterator[Any]:
        whole: Any = _NOTHING
        async for chunk in inputs:
            whole = chunk if whole is _NOTHING else add_chunks(whole, chunk)
        if whole is _NOTHING:
            return
        async with self._asse("stream", self._payload(whole, config)) as events:
            async for sse in events:
                if sse.event == "end":
                    return
                data = self._data(sse, "stream")
                if data is not _NOTHING:
                    yield data

    async def _aiter_route(
        self, route: str, input: Any, config: RunnableConfig | None, kwargs: dict[str, Any]
    ) -> AsyncIterator[Any]:
        from ragkit.serve.payloads import FILTER_KEYS

        body = self._payload(input, config)
        body.update({k: kwargs.get(k) for k in FILTER_KEYS})
        async with self._asse(route, body) as events:
            async for sse in events:
                if sse.event == "end":
                    return
                data = self._data(sse, route)
                if data is not _NOTHING:
                    yield data

    async def astream_log(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """The server's run log as :class:`~ragkit.core.RunLogPatch` objects (``diff=True``)."""
        from ragkit.core.log import RunLogPatch

        async for data in self._aiter_route("stream_log", input, config, kwargs):
            yield RunLogPatch(*data["ops"])

    async def astream_events(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        version: str = "v2",
        **kwargs: Any,
    ) -> AsyncIterator[dict[str, Any]]:
        """The server's v2 events, as it sends them (``version`` is the server's choice)."""
        async for data in self._aiter_route("stream_events", input, config, kwargs):
            yield data
