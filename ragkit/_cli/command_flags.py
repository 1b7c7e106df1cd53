"""What a command was told: its flags in one frozen object (``query``/``ask``, ``serve``, ``eval``).

Click hands a command its options one keyword each; the command collects them into one of
these objects (the field names are the command's parameters), so the command reads
``flags.k`` and the steps after take one object instead of a dozen arguments.
``ragkit index`` has its own, with its meaning, in :mod:`ragkit._cli.index_flags`.

Example:
    >>> flags = SearchFlags(k=10, filters=("lang=en",))
    >>> flags.k, flags.retriever, flags.filters
    (10, None, ('lang=en',))
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SearchFlags:
    """The search options of ``ragkit query``/``ragkit ask`` (``None``: not given)."""

    retriever: str | None = None
    k: int | None = None
    dedupe: bool | None = None
    dedupe_threshold: float | None = None
    max_query_length: int | None = None
    rerank: str | None = None
    filters: tuple[str, ...] = ()
    model_name: str | None = None
    endpoint: str | None = None
    timeout: float | None = None
    embedding: str | None = None


@dataclass(frozen=True)
class ServeFlags:
    """The options of ``ragkit serve`` but the index (defaults: see the command's ``--help``)."""

    host: str
    port: int
    workers: int
    api_key_file: str | None
    cors_origins: tuple[str, ...]
    roots: tuple[str, ...]
    max_k: int
    max_query_length: int
    max_body_size: str
    request_timeout: float
    header_timeout: float
    body_timeout: float
    max_concurrency: int
    reload_interval: float
    pool_size: int
    metrics: bool
    metrics_public: bool
    model_name: str | None
    endpoint: str | None
    timeout: float | None
    log_level: str
    otlp_endpoint: str | None = None


@dataclass(frozen=True)
class EvalFlags:
    """The options of ``ragkit eval`` (``None``: not given; defaults: see its ``--help``)."""

    dataset: str | None
    index_dir: str | None
    queries: str | None
    qrels: str | None
    retrievers: str
    k_values: str
    embedding: str
    split: str
    output_path: str | None
    plot_path: str | None
    as_json: bool
    answers_path: str | None
    judge: str | None
    metrics: str | None
    passages: int
    max_concurrency: int
    model_name: str | None
    endpoint: str | None
    timeout: float | None
