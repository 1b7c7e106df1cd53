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
INDEX_RETRIEVERS = ("bm25", "dense", "mmr", "hybrid", "parent")
#: Chunks fetched per document cut-off when evaluating an index (chunks of one source count once).
CHUNKS_PER_DOCUMENT = 5


def retriever_names(names: Sequence[str], choices: Sequence[str], where: str = "") -> list[str]:
    """``--retrievers``, checked against ``choices`` (``similarity`` is ``dense``).

    Example:
        >>> retriever_names(["bm25", "similarity"], EVAL_RETRIEVERS)
        ['bm25', 'dense']
    """
    names = ["dense" if n == "similarity" else n for n in names]
    for name in names:
        if name not in choices:
            raise ConfigurationError(
                f"--retrievers: unknown retriever {name!r}{where}; choose from {', '.join(choices)}"
            )
    return names


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

    if name == "similarity":
        name = "dense"
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

    names = retriever_names(names, EVAL_RETRIEVERS)
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


def judgements(dataset_path: str | None, queries: str | None, qrels: str | None, split: str) -> Any:
    """The queries and judgements to score an index with: files, or a BEIR dataset's."""
    from ragkit.eval.beir import load_judgements

    if queries or qrels:
        if not (queries and qrels):
            raise ConfigurationError(
                "--queries and --qrels go together: a queries.jsonl and a qrels TSV file"
            )
        return load_judgements(queries, qrels)
    if dataset_path:
        root = Path(dataset_path)
        found = [root / n for n in ("queries.jsonl", "queries.jsonl.gz") if (root / n).is_file()]
        if not found:
            raise ConfigurationError(
                f"--dataset {dataset_path}: no queries.jsonl there; pass a BEIR-format folder or "
                "--queries FILE --qrels FILE"
            )
        return load_judgements(found[0], root / "qrels" / f"{split}.tsv", name=root.name)
    raise ConfigurationError(
        "--index needs judgements: --queries queries.jsonl --qrels qrels.tsv (BEIR format), or "
        "--dataset FOLDER holding queries.jsonl and qrels/SPLIT.tsv"
    )


def run_index_eval(
    index_dir: str, data: Any, names: Sequence[str], k_values: Sequence[int]
) -> tuple[str, list[Any], Any]:
    """Evaluate retrievers over an index built with ``ragkit index``.

    The judged document ids are matched to the index's sources by
    :func:`ragkit.eval.match_sources`; each retriever's chunks are mapped to their
    documents, and a document ranks where its best chunk does. Returns the table, the
    results and the :class:`ragkit.eval.SourceMatch`.
    """
    from ragkit.errors import DatasetError
    from ragkit.eval import evaluate
    from ragkit.eval.result import compare
    from ragkit.eval.source_ids import match_sources
    from ragkit.indexing.index_dir import Index

    names = retriever_names(names, INDEX_RETRIEVERS, " for an index")
    idx = Index.open(index_dir)
    sources = idx.sources()
    judged = {d for grades in data.qrels.values() for d in grades}
    match = match_sources(sorted(judged), sources)
    if judged and len(match.unmatched) == len(judged):
        example = sources[0] if sources else "(the index is empty)"
        raise DatasetError(
            f"none of the {len(judged)} judged document ids (e.g. {sorted(judged)[0]!r}) names a "
            f"source of {idx.path}, whose sources look like {example!r}. A qrels corpus-id "
            "names a file by the end of its path, with or without the extension (e.g. 'bc02' or "
            "'docs/bc02.md' for .../docs/bc02.md)"
        )
    depth = max(k_values)
    results = []
    for name in names:
        kind = "similarity" if name == "dense" else name
        chunks = depth if kind == "parent" else depth * CHUNKS_PER_DOCUMENT
        retriever = idx.retriever(kind, k=chunks)

        def ranked(query: str, retriever: Any = retriever) -> list[str]:
            return [
                match.doc_id(str(d.metadata.get("source", ""))) for d in retriever.invoke(query)
            ]

        results.append(evaluate(ranked, data, k_values=k_values, name=name))
    columns = [f"ndcg@{k}" for k in k_values] + [f"recall@{k}" for k in k_values]
    return compare(results, columns=columns), results, match


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
