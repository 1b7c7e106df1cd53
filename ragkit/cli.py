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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from ragkit._cli import output
from ragkit._cli.chat_model import connection_options
from ragkit._cli.guard import guarded as _guarded
from ragkit._cli.index_flags import reading_options


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="ragkit", message="ragkit %(version)s")
def cli() -> None:
    """ragkit: retrieval-augmented generation, offline by default.

    \b
    Examples:
      ragkit index docs/ notes/ --index my-index
      ragkit inspect docs/
      ragkit query my-index "how do I reset the router?" --retriever hybrid
      ragkit ask my-index "what does the warranty cover?"
      ragkit eval --dataset datasets/bicycle-care --retrievers bm25,dense,hybrid
      ragkit info my-index
      ragkit serve my-index --port 8000
    """


def _register() -> None:
    from ragkit._cli.eval_command import eval_cmd
    from ragkit._cli.inspect_command import inspect_cmd
    from ragkit._cli.models import models_cmd
    from ragkit._cli.search import ask_cmd, query_cmd
    from ragkit._cli.serve_command import serve_cmd

    for command in (query_cmd, ask_cmd, eval_cmd, models_cmd, serve_cmd, inspect_cmd):
        cli.add_command(command)


@cli.command("index")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option(
    "--index",
    "index_dir",
    required=True,
    envvar="RAGKIT_INDEX",
    help="Index directory (created if new), or a PostgreSQL URL "
    "postgresql://user:password@host/db?collection=NAME.",
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
    help="local | google | hash[-N] | onnx:DIR | onnx:OWNER/NAME (any sentence-transformers "
    "model exported to ONNX) [local; an existing index keeps its own].",
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
    "--max-file-size",
    envvar="RAGKIT_MAX_FILE_SIZE",
    help="Larger files fail (listed in the report) without being read, e.g. 20M, 1GiB, 500MB; "
    "0: no limit [100MiB].",
)
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    envvar="RAGKIT_BATCH_SIZE",
    help="Chunks embedded and written together [512]; in PostgreSQL each batch of whole files "
    "is one transaction.",
)
@click.option(
    "--engine",
    type=click.Choice(["local", "ray"]),
    default="local",
    envvar="RAGKIT_ENGINE",
    help="Where files are read, split and embedded: this process [local] or a Ray cluster "
    "(pip install 'ragkit[ray]'); the index is the same.",
)
@click.option(
    "--address",
    envvar="RAGKIT_RAY_ADDRESS",
    help="With --engine ray: auto | host:port | ray://host:port [a new local cluster].",
)
@click.option(
    "--actors",
    type=click.IntRange(min=1),
    default=1,
    envvar="RAGKIT_RAY_ACTORS",
    help="With --engine ray: embedding actors (model replicas) [1].",
)
@click.option(
    "--gpus-per-actor",
    type=click.FloatRange(min=0),
    default=0.0,
    envvar="RAGKIT_RAY_GPUS_PER_ACTOR",
    help="With --engine ray: GPUs per actor (CUDA with onnxruntime-gpu) [0].",
)
@click.option(
    "--cpus-per-actor",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    envvar="RAGKIT_RAY_CPUS_PER_ACTOR",
    help="With --engine ray: CPUs per actor, its model's threads [the cluster's CPUs shared "
    "out among the actors].",
)
@click.option(
    "--contextualize",
    envvar="RAGKIT_CONTEXTUALIZE",
    help="A chat model (openai:NAME with --base-url, gemini:NAME, fake:FILE.json, ...) that writes a short context for each "
    "chunk from its whole document, embedded and BM25-indexed with it (contextual retrieval); "
    "contexts are cached per document, chunk, model and prompt.",
)
@connection_options
@reading_options
@click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON document (counts, failures, timings)."
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="List per file type what would be loaded and what not, and why; read and write "
    "nothing (as `ragkit inspect`).",
)
@click.option(
    "--quiet",
    "-q",
    is_flag=True,
    help="No progress on stderr (by default: a bar on a terminal, else a line every "
    "RAGKIT_PROGRESS_INTERVAL seconds [10]).",
)
@_guarded
def index_cmd(paths: tuple[str, ...], index_dir: str, **flags: Any) -> None:
    """Index files and folders into an index directory or a PostgreSQL collection, incrementally.

    Unchanged files are skipped without being read; changed files are re-split and only their new chunks
    embedded; files deleted under PATHS lose their chunks. Interrupting leaves the previous index usable,
    and the next run resumes (embeddings are cached).

    \b
    Examples:
      ragkit index docs/ --index my-index
      ragkit index src/ --index code-index --splitter code --glob '**/*.py'
      ragkit index docs/ --index my-index --embedding hash --json
      ragkit index docs/ --index my-index --engine ray --address auto --actors 4
      ragkit index docs/ --index 'postgresql://app@db/rag?collection=manuals' --batch-size 256
      ragkit index docs/ --index bge-index --embedding onnx:models/bge-small-en-v1.5
      ragkit index docs/ --index ctx-index --contextualize gemini:gemini-2.0-flash
      ragkit index docs/ --index my-index --dry-run
      ragkit index scans/ --index my-index --password-file pdf.pass --max-ocr-pages 400
    """
    from ragkit._cli.index_flags import IndexFlags
    from ragkit.errors import ConfigurationError
    from ragkit.indexing.open import create_index
    from ragkit.indexing.postgres.location import shown

    given = IndexFlags(**flags)
    for path in paths:
        if not Path(path).exists() and not Path(path).is_symlink():
            raise ConfigurationError(
                f"{path}: no such file or folder; check the path (nothing was indexed)"
            )
    if given.dry_run:  # the index's defaults (glob, exclude, size) are read, nothing written
        from ragkit._cli.inspect_command import run_inventory
        from ragkit._cli.settings import index_defaults

        run_inventory(paths, given.write_options(index_defaults(index_dir), None), given.as_json)
    engine = given.engine_choice()
    # unset settings: the index's defaults, else what it recorded, else the built-in ones
    idx = create_index(
        index_dir,
        given.embedding,
        splitter=given.splitter,
        chunk_size=given.chunk_size,
        chunk_overlap=given.chunk_overlap,
    )
    import warnings

    from ragkit._cli.progress import progress_view
    from ragkit.embeddings.tokens import TruncationWarning

    with warnings.catch_warnings(record=True) as caught, progress_view(given.quiet) as view:
        warnings.simplefilter("always", TruncationWarning)
        options = given.write_options(idx.defaults, view, engine)
        if given.contextualize:
            from ragkit._cli.contextualize import with_contexts

            options = with_contexts(options, given.contextualize, index_dir)
        report = idx.write(list(paths), options)
    cut = [w.message for w in caught if isinstance(w.message, TruncationWarning)]
    truncated = sum(w.count for w in cut)
    for other in caught:
        if not isinstance(other.message, TruncationWarning):
            warnings.showwarning(
                other.message, other.category, other.filename, other.lineno, other.file, other.line
            )
    if given.as_json:
        data = report.to_dict()
        data["index"] = shown(index_dir)
        data["timings"] = {"seconds": data.pop("seconds")}
        data["truncated_chunks"] = truncated
        output.emit_json(data)
    else:
        print(output.report_summary(report, shown(index_dir)))
        if truncated:
            print(
                f"  {truncated} chunks were longer than the model's maximum of "
                f"{cut[0].max_length} tokens and were embedded truncated (a smaller "
                "--chunk-size avoids it)"
            )
    sys.exit(0 if report.ok else 1)


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
@click.argument("index_dir", metavar="INDEX")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@_guarded
def info_cmd(index_dir: str, as_json: bool) -> None:
    """What an index holds: model, dimension, documents, chunks, size (by part), last indexed, device.

    The device is where the index's embedding model runs: CUDA when onnxruntime-gpu finds a
    GPU, else the CPU.

    \b
    Example:
      ragkit info my-index --json
    """
    from ragkit._cli.device import device_text, runtime
    from ragkit.indexing.index_dir import Index

    idx = Index.open(index_dir)
    data = idx.info()
    data["runtime"] = runtime(idx.embeddings)
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
        ("device", device_text(data["runtime"])),
    ]
    for key, value in rows:
        print(f"{key:>13}: {value}")


@cli.command("demo")
def demo_cmd() -> None:
    """Index the bundled dataset with the local model, query it, re-index (what `make demo` runs)."""
    from ragkit.demo import main as demo_main

    sys.exit(demo_main())


_register()


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
