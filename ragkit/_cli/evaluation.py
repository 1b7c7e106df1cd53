"""``ragkit eval``: score retrievers on a BEIR-format dataset and print the table.

Example:
    >>> # table, results = run_eval("datasets/bicycle-care", ["bm25", "hybrid"], (1, 3, 5, 10), "hash")
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigurationError

EVAL_RETRIEVERS = ("bm25", "dense", "mmr", "hybrid")


def _build(name: str, docs: list[Any], embedding: Any, depth: int, cache: dict[str, Any]) -> Any:
    def store() -> Any:
        if "store" not in cache:
            from ragkit.stores.faiss import FaissStore

            cache["store"] = FaissStore.from_documents(docs, embedding)
        return cache["store"]

    def bm25() -> Any:
        if "bm25" not in cache:
            from ragkit.retrievers.bm25 import BM25Retriever

            cache["bm25"] = BM25Retriever.from_documents(docs, k=depth)
        return cache["bm25"]

    if name == "bm25":
        return bm25()
    if name == "dense":
        return store().as_retriever(search_kwargs={"k": depth})
    if name == "mmr":
        return store().as_retriever(
            search_type="mmr", search_kwargs={"k": depth, "fetch_k": max(50, 2 * depth)}
        )
    if name == "hybrid":
        from ragkit.retrievers.hybrid import HybridRetriever

        fetch_k = max(20, depth)
        return HybridRetriever(
            bm25=bm25(),
            dense=store().as_retriever(search_kwargs={"k": fetch_k}),
            k=depth,
            fetch_k=fetch_k,
        )
    raise ConfigurationError(
        f"--retrievers: unknown retriever {name!r}; choose from {', '.join(EVAL_RETRIEVERS)}"
    )


def run_eval(
    dataset_path: str,
    names: Sequence[str],
    k_values: Sequence[int],
    embedding_name: str,
    split: str = "test",
) -> tuple[str, list[Any]]:
    """Evaluate each retriever in ``names``; returns the Markdown table and the results."""
    from ragkit.eval import evaluate, load_beir
    from ragkit.eval.result import compare
    from ragkit.indexing.embedding_choice import make_embeddings

    for name in names:
        if name not in EVAL_RETRIEVERS:
            raise ConfigurationError(
                f"--retrievers: unknown retriever {name!r}; choose from "
                f"{', '.join(EVAL_RETRIEVERS)}"
            )
    if not Path(dataset_path).exists():
        raise ConfigurationError(
            f"--dataset {dataset_path}: no such folder; pass a BEIR-format dataset "
            "(corpus.jsonl, queries.jsonl, qrels/test.tsv)"
        )
    data = load_beir(dataset_path, split=split)
    embedding = make_embeddings(embedding_name) if any(n != "bm25" for n in names) else None
    depth = max(k_values)
    cache: dict[str, Any] = {}
    docs = data.documents
    results = [
        evaluate(_build(n, docs, embedding, depth, cache), data, k_values=k_values, name=n)
        for n in names
    ]
    columns = [f"ndcg@{k}" for k in k_values] + [f"recall@{k}" for k in k_values]
    return compare(results, columns=columns), results


def plot(results: Sequence[Any], k_values: Sequence[int], path: Path) -> None:
    """Recall@k curves of ``results`` into a PNG at ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for r in results:
        ax.plot(
            list(k_values), [r.scores[f"recall@{k}"] for k in k_values], marker="o", label=r.name
        )
    ax.set_xlabel("k")
    ax.set_ylabel("recall@k")
    ax.set_xscale("log")
    ax.legend()
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
