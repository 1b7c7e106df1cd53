"""The OpenTelemetry GenAI semantic conventions of a run: span name, kind and attributes.

A model run (``chat_model``/``llm``) is a ``chat``/``text_completion`` operation named
``"chat gpt-4o-mini"``: provider, requested model and settings when it starts; token usage,
finish reasons, response model and id when it ends. A retriever run is a ``retrieval`` with
the number of documents found, a tool run an ``execute_tool``; other runs (chains, prompts,
parsers, lambdas) keep their name. Plain data in, plain data out (no OpenTelemetry import).

Example:
    >>> from ragkit.core.callbacks import Run
    >>> import uuid
    >>> run = Run(uuid.uuid4(), "ChatOpenAI", "chat_model", None, [], [], {},
    ...           invocation_params={"ls_provider": "openai", "ls_model_name": "gpt-4o-mini"})
    >>> span_name(run), start_attributes(run)["gen_ai.provider.name"]
    ('chat gpt-4o-mini', 'openai')
"""

from __future__ import annotations

from typing import Any

from ragkit.core.callbacks import Run

OPERATIONS = {
    "chat_model": "chat",
    "llm": "text_completion",
    "retriever": "retrieval",
    "tool": "execute_tool",
}
MODEL_RUNS = frozenset({"chat_model", "llm"})
# LangChain's provider names (``ls_provider``) as the conventions spell them.
PROVIDERS = {"google_genai": "gcp.gemini", "google_vertexai": "gcp.vertex_ai"}


def span_name(run: Run) -> str:
    """``"{operation} {model or tool or retriever}"`` for GenAI runs, else the run's name."""
    operation = OPERATIONS.get(run.run_type)
    if operation is None:
        return run.name
    if run.run_type in MODEL_RUNS:
        model = (run.invocation_params or {}).get("ls_model_name")
        return f"{operation} {model}" if model else operation
    return f"{operation} {run.name}"


def start_attributes(run: Run) -> dict[str, Any]:
    """What is known when ``run`` starts (no content: see :mod:`ragkit.tracing.redaction`)."""
    attrs: dict[str, Any] = {
        "ragkit.run.type": run.run_type,
        "ragkit.run.name": run.name,
        "ragkit.run.id": str(run.id),
    }
    if run.tags:
        attrs["ragkit.run.tags"] = [str(t) for t in run.tags]
    operation = OPERATIONS.get(run.run_type)
    if operation is not None:
        attrs["gen_ai.operation.name"] = operation
    if run.run_type == "tool":
        attrs["gen_ai.tool.name"] = run.name
    if run.run_type in MODEL_RUNS:
        attrs.update(_model_request(run.invocation_params or {}))
    return attrs


def _model_request(params: dict[str, Any]) -> dict[str, Any]:
    attrs: dict[str, Any] = {}
    provider = params.get("ls_provider")
    if isinstance(provider, str):
        name = PROVIDERS.get(provider, provider)
        attrs["gen_ai.provider.name"] = name
        attrs["gen_ai.system"] = name  # the attribute's name before the conventions 1.37
    pairs = (
        ("ls_model_name", "gen_ai.request.model"),
        ("ls_temperature", "gen_ai.request.temperature"),
        ("ls_max_tokens", "gen_ai.request.max_tokens"),
        ("ls_stop", "gen_ai.request.stop_sequences"),
    )
    for key, attr in pairs:
        if params.get(key) is not None:
            attrs[attr] = params[key]
    return attrs


def end_attributes(run: Run) -> dict[str, Any]:
    """What ``run``'s outputs tell: model usage and finish, or how many documents were found."""
    out = run.outputs
    if run.run_type == "retriever" and isinstance(out, (list, tuple)):
        return {"ragkit.retrieval.documents.count": len(out)}
    if run.run_type not in MODEL_RUNS:
        return {}
    attrs: dict[str, Any] = {}
    usage = getattr(out, "usage_metadata", None)
    if isinstance(usage, dict):
        for key in ("input_tokens", "output_tokens"):
            if isinstance(usage.get(key), int):
                attrs[f"gen_ai.usage.{key}"] = usage[key]
        cached = (usage.get("input_token_details") or {}).get("cache_read")
        if isinstance(cached, int):
            attrs["gen_ai.usage.cache_read.input_tokens"] = cached
        reasoning = (usage.get("output_token_details") or {}).get("reasoning")
        if isinstance(reasoning, int):
            attrs["gen_ai.usage.reasoning.output_tokens"] = reasoning
    meta = getattr(out, "response_metadata", None)
    if isinstance(meta, dict):
        reasons = finish_reasons(meta)
        if reasons:
            attrs["gen_ai.response.finish_reasons"] = reasons
        model = meta.get("model_name") or meta.get("model")
        if isinstance(model, str):
            attrs["gen_ai.response.model"] = model
    reply_id = getattr(out, "id", None)
    if isinstance(reply_id, str):
        attrs["gen_ai.response.id"] = reply_id
    return attrs


def finish_reasons(meta: dict[str, Any]) -> list[str]:
    """The finish reasons in a reply's ``response_metadata`` (OpenAI, Gemini, Anthropic names)."""
    for key in ("finish_reasons", "finish_reason", "stop_reason"):
        value = meta.get(key)
        if isinstance(value, str) and value:
            return [value.lower()]
        if isinstance(value, (list, tuple)):
            return [str(v).lower() for v in value if v]
    return []
