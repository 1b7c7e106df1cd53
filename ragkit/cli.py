"""The ``ragkit`` command: index folders, query and evaluate from the shell.

A thin layer over :class:`ragkit.Index`. Options come from flags, then the
``RAGKIT_*`` environment variables, then the ``[defaults]`` table of the
index's ``ragkit.toml``. Exit codes: 0 success, 1 some files (or the job)
failed, 2 usage errors (bad options, missing paths, wrong model).

Example:
    $ ragkit index docs/ --index my-index
    $ ragkit query my-index "how do I reset it?" --retriever hybrid -k 5
    $ ragkit info my-index --json
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from ragkit._cli import output
from ragkit._cli.settings import index_defaults, matches, parse_filter, resolve


def _fail(err: Exception) -> None:
    """Print ``err`` and exit 2 (usage) or 1 (everything else)."""
    from ragkit.errors import ConfigurationError, IndexMismatchError

    output.err(f"error: {err}")
    sys.exit(2 if isinstance(err, (ConfigurationError, IndexMismatchError)) else 1)


def _guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from ragkit.errors import RagkitError

        try:
            return fn(*args, **kwargs)
        except (RagkitError, OSError) as err:
            _fail(err)
        except ImportError as err:
            output.err(
                f"error: {err}. This feature needs an optional dependency or a ragkit part that is not "
                "installed: pip install 'ragkit[local]' (or [google], [eval])"
            )
            sys.exit(1)
        except KeyboardInterrupt:
            output.err("interrupted: the index is left as it was before this run; rerun to resume")
            sys.exit(130)

    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="ragkit", message="ragkit %(version)s")
def cli() -> None:
    """ragkit: retrieval-augmented generation, offline by default.

    \b
    Examples:
      ragkit index docs/ notes/ --index my-index
      ragkit query my-index "how do I reset the router?" --retriever hybrid
      ragkit ask my-index "what does the warranty cover?"
      ragkit eval --dataset datasets/bicycle-care --retrievers bm25,dense,hybrid
      ragkit info my-index
    """


@cli.command("index")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option(
    "--index",
    "index_dir",
    required=True,
    envvar="RAGKIT_INDEX",
    help="Index directory (created if new).",
)
@click.option(
    "--glob", multiple=True, help="Only files matching this pattern (repeatable), e.g. '**/*.md'."
)
@click.option("--exclude", multiple=True, help="Skip files matching this pattern (repeatable).")
@click.option(
    "--splitter",
    type=click.Choice(["recursive", "markdown", "html", "code", "semantic", "token"]),
    envvar="RAGKIT_SPLITTER",
    help="How files are cut into chunks [recursive].",
)
@click.option(
    "--chunk-size",
    type=click.IntRange(min=1),
    envvar="RAGKIT_CHUNK_SIZE",
    help="Chunk size [1000].",
)
@click.option(
    "--chunk-overlap",
    type=click.IntRange(min=0),
    envvar="RAGKIT_CHUNK_OVERLAP",
    help="Chunk overlap [200].",
)
@click.option(
    "--embedding",
    envvar="RAGKIT_EMBEDDING",
    help="local | google | hash[-N] [local; an existing index keeps its own].",
)
@click.option(
    "--cleanup",
    type=click.Choice(["incremental", "full", "none"]),
    envvar="RAGKIT_CLEANUP",
    help="What to remove: chunks of changed/deleted files under PATHS [incremental], everything not "
    "seen (full), or nothing (none).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    envvar="RAGKIT_WORKERS",
    help="Files loaded in parallel [2].",
)
@click.option(
    "--rebuild", is_flag=True, help="Start from an empty index (cached embeddings are reused)."
)
@click.option(
    "--lock-timeout",
    type=float,
    default=30.0,
    show_default=True,
    envvar="RAGKIT_LOCK_TIMEOUT",
    help="Seconds to wait for another `ragkit index` on the same index.",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON document (counts, failures, timings)."
)
@_guarded
def index_cmd(
    paths: tuple[str, ...],
    index_dir: str,
    glob: tuple[str, ...],
    exclude: tuple[str, ...],
    splitter: str | None,
    chunk_size: int | None,
    chunk_overlap: int | None,
    embedding: str | None,
    cleanup: str | None,
    workers: int | None,
    rebuild: bool,
    lock_timeout: float,
    as_json: bool,
) -> None:
    """Index files and folders into an index directory, incrementally.

    Unchanged files are skipped without being read; changed files are re-split and only their new chunks
    embedded; files deleted under PATHS lose their chunks. Interrupting leaves the previous index usable,
    and the next run resumes (embeddings are cached).

    \b
    Examples:
      ragkit index docs/ --index my-index
      ragkit index src/ --index code-index --splitter code --glob '**/*.py'
      ragkit index docs/ --index my-index --embedding hash --json
    """
    from ragkit.errors import ConfigurationError
    from ragkit.indexing.index_dir import Index

    for path in paths:
        if not Path(path).exists() and not Path(path).is_symlink():
            raise ConfigurationError(
                f"{path}: no such file or folder; check the path (nothing was indexed)"
            )
    defaults = index_defaults(index_dir)
    recorded = _recorded(index_dir)
    idx = Index.create(
        index_dir,
        resolve(embedding, {**recorded, **defaults}, "embedding", "local"),
        splitter=resolve(splitter, {**recorded, **defaults}, "splitter", "recursive"),
        chunk_size=int(resolve(chunk_size, {**recorded, **defaults}, "chunk_size", 1000)),
        chunk_overlap=int(resolve(chunk_overlap, {**recorded, **defaults}, "chunk_overlap", 200)),
    )
    with output.ProgressView(enabled=not as_json) as view:
        report = idx.add(
            list(paths),
            glob=resolve(glob, defaults, "glob", ()),
            exclude=resolve(exclude, defaults, "exclude", ()),
            cleanup=resolve(cleanup, defaults, "cleanup", "incremental"),
            workers=int(resolve(workers, defaults, "workers", 2)),
            rebuild=rebuild,
            lock_timeout=lock_timeout,
            progress=view,
        )
    if as_json:
        data = report.to_dict()
        data["index"] = str(index_dir)
        data["timings"] = {"seconds": data.pop("seconds")}
        output.emit_json(data)
    else:
        print(output.report_summary(report, index_dir))
    sys.exit(0 if report.ok else 1)


def _recorded(index_dir: str) -> dict[str, Any]:
    """Embedding and splitter settings recorded in an existing index (the defaults of a rerun)."""
    from ragkit.indexing.layout import CONFIG

    path = Path(index_dir) / CONFIG
    if not path.is_file():
        return {}
    from ragkit.indexing.manifest import read_toml
    from ragkit.indexing.snapshot_manifest import live_splitter

    data = read_toml(path)
    live = live_splitter(Path(index_dir))
    split = live[0] if live else data.get("splitter", {})
    out = {
        "embedding": data.get("index", {}).get("embedding") or None,
        "splitter": split.get("name"),
        "chunk_size": split.get("chunk_size"),
        "chunk_overlap": split.get("chunk_overlap"),
    }
    return {k: v for k, v in out.items() if v is not None}


def _retrieve(
    index_dir: str, query: str, kind: str, k: int, flt: dict[str, Any] | None, embedding: str | None
) -> list[Any]:
    from ragkit.errors import ConfigurationError
    from ragkit.indexing.index_dir import Index

    if not query.strip():
        raise ConfigurationError("the question is empty; pass some text to search for")
    idx = Index.open(index_dir, embeddings=embedding)
    if kind == "similarity":
        return idx.search(query, k=k, filter=flt)
    if kind == "multi-query":
        raise ConfigurationError(
            "--retriever multi-query needs a chat model: use it from Python, "
            "Index.retriever('multi-query', llm=...)"
        )
    retriever = idx.retriever(kind, k=k if flt is None else k * 10)
    if kind == "mmr" and flt is not None:
        docs = retriever.invoke(query, filter=flt)
    else:
        docs = [d for d in retriever.invoke(query) if matches(d.metadata, flt)]
    return docs[:k]


RETRIEVER_CHOICE = click.Choice(["similarity", "mmr", "bm25", "hybrid", "multi-query", "parent"])


@cli.command("query")
@click.argument("index_dir", metavar="DIR")
@click.argument("question")
@click.option(
    "--retriever",
    type=RETRIEVER_CHOICE,
    envvar="RAGKIT_RETRIEVER",
    help="Retrieval strategy [hybrid].",
)
@click.option(
    "-k", "k", type=click.IntRange(min=1), envvar="RAGKIT_K", help="How many passages [4]."
)
@click.option("--filter", "filters", multiple=True, help="Metadata filter key=value (repeatable).")
@click.option("--embedding", envvar="RAGKIT_EMBEDDING", hidden=True)
@click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON document with the ranked passages."
)
@_guarded
def query_cmd(
    index_dir: str,
    question: str,
    retriever: str | None,
    k: int | None,
    filters: tuple[str, ...],
    embedding: str | None,
    as_json: bool,
) -> None:
    """Search an index: ranked passages with source, score and a highlighted snippet.

    \b
    Examples:
      ragkit query my-index "how do I reset it?"
      ragkit query my-index "reset" --retriever bm25 -k 10 --filter source=/docs/manual.md --json
    """
    defaults = index_defaults(index_dir)
    kind = resolve(retriever, defaults, "retriever", "hybrid")
    top = int(resolve(k, defaults, "k", 4))
    docs = _retrieve(index_dir, question, kind, top, parse_filter(filters), embedding)
    if as_json:
        output.emit_json(
            {
                "query": question,
                "retriever": kind,
                "k": top,
                "results": [output.result_json(d, i) for i, d in enumerate(docs, 1)],
            }
        )
    else:
        output.print_results(docs, question)


@cli.command("ask")
@click.argument("index_dir", metavar="DIR")
@click.argument("question")
@click.option(
    "--retriever",
    type=RETRIEVER_CHOICE,
    envvar="RAGKIT_RETRIEVER",
    help="Retrieval strategy [hybrid].",
)
@click.option(
    "-k", "k", type=click.IntRange(min=1), envvar="RAGKIT_K", help="How many passages [4]."
)
@click.option(
    "--model",
    "model_name",
    envvar="RAGKIT_GEMINI_MODEL",
    default="gemini-2.0-flash",
    show_default=True,
    help="The Gemini model that writes the answer.",
)
@_guarded
def ask_cmd(
    index_dir: str, question: str, retriever: str | None, k: int | None, model_name: str
) -> None:
    """Answer a question from an index with Gemini (needs GOOGLE_API_KEY), citing the sources.

    Without a key, prints the retrieved passages and says how to get answers.

    \b
    Example:
      GOOGLE_API_KEY=... ragkit ask my-index "what does the warranty cover?"
    """
    from ragkit._cli.ask import answer

    defaults = index_defaults(index_dir)
    docs = _retrieve(
        index_dir,
        question,
        resolve(retriever, defaults, "retriever", "hybrid"),
        int(resolve(k, defaults, "k", 4)),
        None,
        None,
    )
    text = answer(question, docs, model_name=model_name)
    if text is None:
        output.err(
            "GOOGLE_API_KEY is not set, so there is no generated answer. Set it (a Gemini API key) to get "
            "one; the retrieved passages follow."
        )
        output.print_results(docs, question)
        return
    print(text)
    print()
    print("Sources:")
    for i, doc in enumerate(docs, 1):
        print(f"  [{i}] {doc.metadata.get('source', '?')}")


def _k_list(raw: str) -> tuple[int, ...]:
    from ragkit.errors import ConfigurationError

    try:
        values = tuple(sorted({int(v) for v in raw.split(",") if v.strip()}))
    except ValueError as err:
        raise ConfigurationError(
            f"-k {raw!r}: expected comma-separated integers like 1,3,5,10"
        ) from err
    if not values or values[0] <= 0:
        raise ConfigurationError(f"-k {raw!r}: expected positive integers like 1,3,5,10")
    return values


@cli.command("eval")
@click.option(
    "--dataset", required=True, envvar="RAGKIT_DATASET", help="A BEIR-format dataset folder."
)
@click.option(
    "--retrievers",
    default="bm25,dense,hybrid",
    show_default=True,
    help="Comma-separated: bm25, dense, mmr, hybrid.",
)
@click.option(
    "-k", "k_values", default="1,3,5,10", show_default=True, help="Cut-offs, comma-separated."
)
@click.option(
    "--embedding",
    envvar="RAGKIT_EMBEDDING",
    default="local",
    show_default=True,
    help="local | google | hash[-N] for the dense members.",
)
@click.option("--split", default="test", show_default=True, help="Which qrels split to score.")
@click.option(
    "--output",
    "output_path",
    type=click.Path(dir_okay=False),
    help="Also write the table to this file.",
)
@click.option(
    "--plot",
    "plot_path",
    is_flag=False,
    flag_value="",
    default=None,
    help="Write recall@k curves to a PNG (default: next to --output, or ragkit-eval.png).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document with all scores.")
@_guarded
def eval_cmd(
    dataset: str,
    retrievers: str,
    k_values: str,
    embedding: str,
    split: str,
    output_path: str | None,
    plot_path: str | None,
    as_json: bool,
) -> None:
    """Evaluate retrievers on a BEIR-format dataset (nDCG, recall, MRR, MAP, precision at k).

    \b
    Examples:
      ragkit eval --dataset datasets/bicycle-care
      ragkit eval --dataset ../scifact --retrievers bm25,hybrid -k 1,10,100 --output report.md --plot
    """
    from ragkit._cli.evaluation import plot, run_eval

    ks = _k_list(k_values)
    names = [n.strip() for n in retrievers.split(",") if n.strip()]
    table, results = run_eval(dataset, names, ks, embedding, split)
    if output_path:
        Path(output_path).write_text(f"# ragkit eval: {dataset}\n\n{table}\n", encoding="utf-8")
    png = None
    if plot_path is not None:
        png = Path(
            plot_path
            or (Path(output_path).with_suffix(".png") if output_path else "ragkit-eval.png")
        )
        plot(results, ks, png)
    if as_json:
        output.emit_json(
            {
                "dataset": dataset,
                "k_values": list(ks),
                "plot": str(png) if png else None,
                "results": [
                    {
                        "name": r.name,
                        "scores": r.scores,
                        "latency_ms": r.latency_ms,
                        "num_queries": r.num_queries,
                    }
                    for r in results
                ],
            }
        )
    else:
        print(table)
        if png:
            print(f"\nplot: {png}")


_SIZE_PARTS = (
    ("store", "store"),
    ("lexical", "lexical index"),
    ("records", "records"),
    ("cache", "cache"),
    ("old_snapshots", "old snapshots"),
)


def _size(n: int) -> str:
    """``n`` bytes for people: B, KB, MB or GB (powers of 1000)."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


@cli.command("info")
@click.argument("index_dir", metavar="DIR")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@_guarded
def info_cmd(index_dir: str, as_json: bool) -> None:
    """What an index holds: model, dimension, documents, chunks, size (by part), last indexed.

    \b
    Example:
      ragkit info my-index --json
    """
    from ragkit.indexing.index_dir import Index

    data = Index.open(index_dir).info()
    if as_json:
        output.emit_json(data)
        return
    split = data["splitter"]
    sizes = data["sizes"]
    parts = ", ".join(f"{label} {_size(sizes[key])}" for key, label in _SIZE_PARTS)
    rows = [
        ("index", data["path"]),
        ("model", f"{data['model']} (dimension {data['dimension']})"),
        ("documents", data["documents"]),
        ("chunks", data["chunks"]),
        ("size", f"{_size(data['size_bytes'])} ({parts})"),
        (
            "splitter",
            f"{split['name']} (chunk_size {split['chunk_size']}, overlap {split['chunk_overlap']})",
        ),
        ("created", data["created"]),
        ("last indexed", data["last_indexed"] or "never"),
    ]
    for key, value in rows:
        print(f"{key:>13}: {value}")


@cli.command("demo")
def demo_cmd() -> None:
    """Index the bundled dataset with the local model, query it, re-index (what `make demo` runs)."""
    from ragkit.demo import main as demo_main

    sys.exit(demo_main())


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script and ``python -m ragkit``."""
    try:
        cli.main(
            args=list(argv) if argv is not None else None, prog_name="ragkit", standalone_mode=True
        )
    except SystemExit as stop:
        code = stop.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0
