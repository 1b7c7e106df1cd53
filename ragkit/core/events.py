"""``astream_events(version="v2")``: every run's start, stream and end as events.

Example:
    >>> import asyncio
    >>> from ragkit import RunnableLambda
    >>> async def names():
    ...     chain = RunnableLambda(lambda x: x + 1) | RunnableLambda(lambda x: x * 2)
    ...     return [e["event"] async for e in chain.astream_events(1, version="v2")]
    >>> asyncio.run(names())[:2]
    ['on_chain_start', 'on_chain_start']
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

from ragkit.core.callbacks import Run
from ragkit.core.config import RunnableConfig, ensure_config
from ragkit.core.tracing import QueueHandler, RunFilter, add_handler
from ragkit.errors import ConfigurationError


class EventStreamHandler(QueueHandler):
    """Turns run callbacks into LangChain v2 stream events."""

    def __init__(self, keep: RunFilter) -> None:
        super().__init__()
        self.keep = keep
        self.known: dict[uuid.UUID, Run] = {}

    def _parent_ids(self, run: Run) -> list[str]:
        known = {str(k) for k in self.known}
        return [p for p in run.parent_ids if p in known]

    def _send(self, run: Run, phase: str, data: dict[str, Any]) -> None:
        if not self.keep(run.name, run.run_type, run.tags):
            return
        self.post(
            {
                "event": f"on_{run.run_type}_{phase}",
                "data": data,
                "name": run.name,
                "tags": list(run.tags),
                "run_id": str(run.id),
                "metadata": dict(run.metadata),
                "parent_ids": self._parent_ids(run),
            }
        )

    @staticmethod
    def _input(run: Run) -> Any:
        if run.run_type == "chat_model":
            return {"messages": [run.inputs]}
        if run.run_type == "llm":
            return {"prompts": [run.inputs]}
        if run.run_type == "retriever":
            return {"query": run.inputs}
        return run.inputs

    def on_run_start(self, run: Run) -> None:
        self.known[run.id] = run
        data = {"input": self._input(run)} if run.input_known else {}
        self._send(run, "start", data)

    def on_run_stream(self, run: Run, chunk: Any) -> None:
        self._send(run, "stream", {"chunk": chunk})

    def on_run_end(self, run: Run) -> None:
        self._send(run, "end", {"output": run.outputs, "input": self._input(run)})

    def on_run_error(self, run: Run) -> None:
        if run.run_type == "tool":
            self._send(run, "error", {"error": run.error, "input": run.inputs})

    def on_custom_event(
        self,
        name: str,
        data: Any,
        *,
        run_id: uuid.UUID,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        parent = self.known.get(run_id)
        parent_ids = [*self._parent_ids(parent), str(run_id)] if parent else []
        self.post(
            {
                "event": "on_custom_event",
                "run_id": str(run_id),
                "name": name,
                "tags": list(tags or []),
                "metadata": dict(metadata or {}),
                "data": data,
                "parent_ids": parent_ids[:-1] if parent else [],
            }
        )


async def astream_events(
    runnable: Any,
    input: Any,
    config: RunnableConfig | None = None,
    *,
    version: str = "v2",
    **kwargs: Any,
) -> AsyncIterator[dict[str, Any]]:
    """Run ``runnable.astream`` and yield the v2 events of every run it makes.

    ``include_names``/``include_types``/``include_tags`` and ``exclude_*`` choose the runs
    (see :class:`~ragkit.core.tracing.RunFilter`); other keyword arguments go to ``astream``.
    """
    if version != "v2":
        raise ConfigurationError(
            f"astream_events supports version='v2' only, got version={version!r}"
        )
    handler = EventStreamHandler(RunFilter.pop_from(kwargs))
    cfg: dict[str, Any] = dict(ensure_config(config))
    cfg.setdefault("run_id", uuid.uuid4())
    cfg["callbacks"] = add_handler(cfg.get("callbacks"), handler)

    async def consume() -> None:
        async for _ in runnable.astream(input, cfg, **kwargs):
            pass

    root_id: str | None = None
    async with handler.pump(consume) as events:
        async for event in events:
            if root_id is None:
                root_id = event["run_id"]
                event["data"]["input"] = input
            elif event["run_id"] == root_id and event["event"].endswith("_end"):
                event["data"].pop("input", None)
            yield event
