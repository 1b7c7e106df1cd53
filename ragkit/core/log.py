"""``astream_log``: the run tree as a stream of JSONPatch operations.

Applying every patch in order (``patch1 + patch2 + ...``) builds a
:class:`RunState`: ``streamed_output``, ``final_output`` and one ``logs`` entry
per nested run (``name``, ``name:2``, ... when names repeat).

Example:
    >>> import asyncio
    >>> from ragkit import RunnableLambda
    >>> async def final():
    ...     state = None
    ...     async for patch in RunnableLambda(lambda x: x * 2).astream_log(21):
    ...         state = patch if state is None else state + patch
    ...     return state.state["final_output"]
    >>> asyncio.run(final())
    42
"""

from __future__ import annotations

import copy
import datetime as dt
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator, Sequence
from typing import Any

from ragkit.core.callbacks import Run
from ragkit.core.config import RunnableConfig, ensure_config
from ragkit.core.tracing import QueueHandler, RunFilter, add_handler

RunState = dict[str, Any]


# -- JSONPatch (the subset astream_log emits) --------------------------------
def _split(path: str) -> list[str]:
    if path == "":
        return []
    return [p.replace("~1", "/").replace("~0", "~") for p in path.lstrip("/").split("/")]


def apply_patch(doc: Any, ops: Sequence[dict[str, Any]]) -> Any:
    """Apply JSONPatch ``add``/``replace``/``remove`` ops to a copy of ``doc``."""
    doc = copy.deepcopy(doc)
    for op in ops:
        parts = _split(op["path"])
        if not parts:
            if op["op"] in ("add", "replace"):
                doc = copy.deepcopy(op["value"])
            else:
                doc = None
            continue
        target = doc
        for part in parts[:-1]:
            target = target[int(part)] if isinstance(target, list) else target[part]
        last = parts[-1]
        if isinstance(target, list):
            if op["op"] == "add":
                target.append(copy.deepcopy(op["value"])) if last == "-" else target.insert(
                    int(last), copy.deepcopy(op["value"])
                )
            elif op["op"] == "replace":
                target[int(last)] = copy.deepcopy(op["value"])
            else:
                del target[int(last)]
        else:
            if op["op"] in ("add", "replace"):
                target[last] = copy.deepcopy(op["value"])
            else:
                del target[last]
    return doc


def diff(prev: Any, new: Any, path: str = "") -> list[dict[str, Any]]:
    """JSONPatch ops that turn ``prev`` into ``new`` (dicts by key, lists by appended items)."""
    if isinstance(prev, dict) and isinstance(new, dict):
        ops: list[dict[str, Any]] = []
        for key in prev:
            if key not in new:
                ops.append({"op": "remove", "path": f"{path}/{key}"})
        for key, value in new.items():
            if key not in prev:
                ops.append({"op": "add", "path": f"{path}/{key}", "value": value})
            elif prev[key] != value:
                ops.extend(diff(prev[key], value, f"{path}/{key}"))
        return ops
    if (
        isinstance(prev, list)
        and isinstance(new, list)
        and len(new) >= len(prev)
        and new[: len(prev)] == prev
    ):
        return [{"op": "add", "path": f"{path}/-", "value": v} for v in new[len(prev) :]]
    if prev == new and type(prev) is type(new):
        return []
    return [{"op": "replace", "path": path, "value": new}]


class RunLogPatch:
    """A list of JSONPatch operations; ``patch + patch`` gives a :class:`RunLog`."""

    def __init__(self, *ops: dict[str, Any]) -> None:
        self.ops = list(ops)

    def __add__(self, other: RunLogPatch) -> RunLog:
        ops = self.ops + other.ops
        return RunLog(*ops, state=apply_patch(None, ops))

    def __repr__(self) -> str:
        return f"RunLogPatch({self.ops!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunLogPatch) and self.ops == other.ops


class RunLog(RunLogPatch):
    """Patches applied so far plus the resulting ``state`` (a RunState dict)."""

    def __init__(self, *ops: dict[str, Any], state: RunState | None) -> None:
        super().__init__(*ops)
        self.state = state

    def __add__(self, other: RunLogPatch) -> RunLog:
        return RunLog(*self.ops, *other.ops, state=apply_patch(self.state, other.ops))

    def __repr__(self) -> str:
        return f"RunLog({self.state!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunLog) and self.state == other.state


def _logged_output(run: Run) -> Any:
    """A run's output as LangChain's run log records it."""
    out = copy.deepcopy(run.outputs)
    if run.run_type == "retriever":
        return {"documents": out}
    if isinstance(out, dict) and run.run_type != "chat_model":
        return out
    return {"output": out}


def _ts(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).isoformat(timespec="milliseconds")


class LogStreamHandler(QueueHandler):
    """Turns run callbacks into RunLogPatch operations."""

    def __init__(self, keep: RunFilter, root_id: uuid.UUID) -> None:
        super().__init__()
        self.keep = keep
        self.root_id = root_id
        self.keys: dict[uuid.UUID, str] = {}
        self.counts: defaultdict[str, int] = defaultdict(int)

    def on_run_start(self, run: Run) -> None:
        if run.id == self.root_id:
            state: dict[str, Any] = {
                "id": str(run.id),
                "streamed_output": [],
                "final_output": None,
                "logs": {},
                "name": run.name,
                "type": run.run_type,
            }
            self.post(RunLogPatch({"op": "replace", "path": "", "value": state}))
            return
        if not self.keep(run.name, run.run_type, run.tags):
            return
        self.counts[run.name] += 1
        n = self.counts[run.name]
        key = run.name if n == 1 else f"{run.name}:{n}"
        self.keys[run.id] = key
        entry = {
            "id": str(run.id),
            "name": run.name,
            "type": run.run_type,
            "tags": list(run.tags),
            "metadata": dict(run.metadata),
            "start_time": _ts(run.start_time),
            "streamed_output": [],
            "streamed_output_str": [],
            "final_output": None,
            "end_time": None,
        }
        self.post(RunLogPatch({"op": "add", "path": f"/logs/{key}", "value": entry}))

    def on_run_stream(self, run: Run, chunk: Any) -> None:
        key = self.keys.get(run.id)
        if key is None:
            return
        ops = []
        if run.run_type == "chat_model":
            text = getattr(chunk, "text", chunk)
            ops.append({"op": "add", "path": f"/logs/{key}/streamed_output_str/-", "value": text})
        ops.append(
            {"op": "add", "path": f"/logs/{key}/streamed_output/-", "value": copy.deepcopy(chunk)}
        )
        self.post(RunLogPatch(*ops))

    def on_run_end(self, run: Run) -> None:
        self._finish(run, _logged_output(run))

    def on_run_error(self, run: Run) -> None:
        self._finish(run, {})  # as LangChain records a failed run

    def _finish(self, run: Run, final_output: Any) -> None:
        key = self.keys.get(run.id)
        if key is None:
            return
        self.post(
            RunLogPatch(
                {"op": "add", "path": f"/logs/{key}/final_output", "value": final_output},
                {"op": "add", "path": f"/logs/{key}/end_time", "value": _ts(run.end_time)},
            )
        )


async def astream_log(
    runnable: Any,
    input: Any,
    config: RunnableConfig | None = None,
    *,
    diff: bool = True,
    with_streamed_output_list: bool = True,
    **kwargs: Any,
) -> AsyncIterator[RunLogPatch]:
    """Yield RunLogPatch objects (or, with ``diff=False``, the growing RunLog).

    ``include_names``/``include_types``/``include_tags`` and ``exclude_*`` choose the runs
    (see :class:`~ragkit.core.tracing.RunFilter`); other keyword arguments go to ``astream``.
    """
    cfg: dict[str, Any] = dict(ensure_config(config))
    root_id = cfg.get("run_id") or uuid.uuid4()
    if not isinstance(root_id, uuid.UUID):
        root_id = uuid.UUID(str(root_id))
    cfg["run_id"] = root_id
    handler = LogStreamHandler(RunFilter.pop_from(kwargs), root_id)
    cfg["callbacks"] = add_handler(cfg.get("callbacks"), handler)

    async def consume() -> None:
        final: Any = None
        async for chunk in runnable.astream(input, cfg, **kwargs):
            prev = final
            if final is None:
                final = chunk
            else:
                try:
                    final = final + chunk
                except TypeError:
                    prev, final = None, chunk
            ops: list[dict[str, Any]] = []
            if with_streamed_output_list:
                ops.append(
                    {"op": "add", "path": "/streamed_output/-", "value": copy.deepcopy(chunk)}
                )
            ops.extend(
                {**op, "path": f"/final_output{op['path']}"} for op in _diff_final(prev, final)
            )
            handler.post(RunLogPatch(*ops))

    state: RunLog | None = None
    async with handler.pump(consume) as patches:
        async for patch in patches:
            if diff:
                yield patch
            else:
                state = (
                    RunLog(*patch.ops, state=apply_patch(None, patch.ops))
                    if state is None
                    else state + patch
                )
                yield state


def _diff_final(prev: Any, new: Any) -> list[dict[str, Any]]:
    if isinstance(prev, dict) and isinstance(new, dict):
        return diff(prev, new)
    return [{"op": "replace", "path": "", "value": copy.deepcopy(new)}]
