"""evaluate: run a retriever over a dataset's queries and score the rankings.

Accepts a retriever (anything with ``invoke(query, **search_kwargs)``, LangChain's
included) or a plain function ``query -> list``; results may be Documents (matched to
the judgements by ``Document.id``, or by ``metadata[id_key]``) or document ids.
Queries run one after another so the latency figures are per query.

Example:
    >>> # from ragkit.eval import load_beir, evaluate
    >>> # result = evaluate(BM25Retriever.from_documents(data.documents, k=100), data)
    >>> # result.scores["ndcg@10"], result.latency_ms["p50"]
    >>> # print(result.to_markdown())
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from ragkit.errors import ConfigurationError
from ragkit.eval.beir import BeirDataset
from ragkit.eval.metrics import METRICS, score_run
from ragkit.eval.result import EvalResult, EvalScope

DEFAULT_K_VALUES = (1, 3, 5, 10, 100)
DEFAULT_METRICS = ("ndcg", "recall", "mrr", "map", "precision")


def evaluate(
    retriever_or_fn: Any,
    dataset: BeirDataset,
    k_values: Sequence[int] = DEFAULT_K_VALUES,
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    id_key: str | None = None,
    search_kwargs: dict[str, Any] | None = None,
    name: str | None = None,
    progress: bool = False,
) -> EvalResult:
    """Score ``retriever_or_fn`` on every judged query of ``dataset``.

    Args:
        retriever_or_fn: A retriever/runnable (``invoke``) or a callable ``query -> list``.
        dataset: From :func:`ragkit.eval.load_beir`.
        k_values: Cut-offs; set the retriever's ``k`` to at least ``max(k_values)``.
        metrics: Any of ``ndcg``, ``recall``, ``mrr``, ``map``, ``precision``.
        id_key: Match results by ``metadata[id_key]`` instead of ``Document.id`` (e.g. chunks
            carrying their source document's id). Repeated ids count once, at their best rank.
        search_kwargs: Passed to ``invoke`` on every call (e.g. ``{"k": 100}``).
        name: Label for tables (default: the retriever's class name).
        progress: Print a dot every 50 queries.

    Queries judged in the dataset with no relevant document (all grades 0) are skipped;
    a query for which the retriever returns nothing scores 0.
    """
    k_values = _check_k_values(k_values)
    metrics = _check_metrics(metrics)
    call = _as_callable(retriever_or_fn, search_kwargs or {})
    qrels = {
        q: judged for q, judged in dataset.qrels.items() if any(g >= 1 for g in judged.values())
    }
    queries = [(q, dataset.queries[q]) for q in qrels]
    run: dict[str, list[str]] = {}
    latencies: list[float] = []
    for n, (qid, text) in enumerate(queries, start=1):
        started = time.perf_counter()
        results = call(text)
        latencies.append((time.perf_counter() - started) * 1000.0)
        run[qid] = _ranked_ids(results, id_key, qid)
        if progress and n % 50 == 0:
            print(".", end="", flush=True)
    if progress:
        print()
    per_query = score_run(run, qrels, k_values, metrics)
    label = name or getattr(retriever_or_fn, "name", None) or type(retriever_or_fn).__name__
    if label == "function":
        label = getattr(retriever_or_fn, "__name__", label)
    return EvalResult.from_per_query(
        str(label), per_query, latencies, run, EvalScope(dataset.name, k_values, metrics)
    )


def _check_k_values(k_values: Sequence[int]) -> tuple[int, ...]:
    values = tuple(k_values)
    if not values or any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in values):
        raise ConfigurationError(f"evaluate: k_values must be positive integers, got {k_values!r}")
    return tuple(sorted(set(values)))


def _check_metrics(metrics: Sequence[str]) -> tuple[str, ...]:
    if isinstance(metrics, str):
        metrics = (metrics,)
    unknown = [m for m in metrics if m not in METRICS]
    if unknown or not metrics:
        raise ConfigurationError(
            f"evaluate: unknown metrics {unknown or metrics!r}; choose from {METRICS}"
        )
    return tuple(dict.fromkeys(metrics))


def _as_callable(target: Any, search_kwargs: dict[str, Any]) -> Callable[[str], Any]:
    invoke = getattr(target, "invoke", None)
    if callable(invoke):
        return lambda q: invoke(q, **search_kwargs)
    if callable(target):
        return lambda q: target(q, **search_kwargs)
    raise ConfigurationError(
        f"evaluate needs a retriever (with .invoke) or a function query -> results, got {type(target).__name__}"
    )


def _ranked_ids(results: Any, id_key: str | None, qid: str) -> list[str]:
    if results is None:
        return []
    seen: dict[str, None] = {}
    for item in results:
        if isinstance(item, str):
            doc_id: Any = item
        elif isinstance(item, tuple) and item:  # (document, score) pairs
            return _ranked_ids([item[0] for item in results], id_key, qid)
        elif id_key is not None:
            doc_id = (getattr(item, "metadata", None) or {}).get(id_key)
        else:
            doc_id = getattr(item, "id", None)
        if doc_id is None:
            where = f"metadata[{id_key!r}]" if id_key else "Document.id"
            raise ConfigurationError(
                f"evaluate: a result for query {qid!r} has no {where}; build the retriever from "
                "load_beir documents (their id is the BEIR _id) or pass id_key="
            )
        seen.setdefault(str(doc_id), None)
    return list(seen)
