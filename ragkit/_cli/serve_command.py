"""``ragkit serve``: an index over HTTP (JSON API, streamed answers, a web page).

Example:
    $ ragkit serve my-index --port 8000
    $ ragkit serve my-index --host 0.0.0.0 --workers 4 --api-key-file keys.txt
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import click

from ragkit._cli import output
from ragkit._cli.chat_model import DEFAULT_MODEL, model_choice, model_options
from ragkit._cli.command_flags import ServeFlags
from ragkit._cli.guard import guarded
from ragkit._cli.settings import resolve

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def _count(flag: str, default: int, help: str, **more: Any) -> Decorator:
    """An option taking a whole number >= 1, its default shown in --help."""
    return click.option(
        flag, type=click.IntRange(min=1), default=default, show_default=True, help=help, **more
    )


def _seconds(flag: str, default: float, help: str) -> Decorator:
    """An option taking a number of seconds > 0, its default shown in --help."""
    return click.option(
        flag,
        type=click.FloatRange(min=0, min_open=True),
        default=default,
        show_default=True,
        help=help,
    )


@click.command("serve")
@click.argument("index", metavar="INDEX")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    envvar="RAGKIT_HOST",
    help="Address to listen on (0.0.0.0: every interface).",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    envvar="RAGKIT_PORT",
    help="Port to listen on.",
)
@_count(
    "--workers",
    1,
    "Worker processes sharing the port; each loads the index read-only.",
    envvar="RAGKIT_SERVE_WORKERS",
)
@click.option(
    "--api-key-file",
    type=click.Path(dir_okay=False),
    envvar="RAGKIT_API_KEY_FILE",
    help="File with the accepted API keys, one per line; clients send "
    "'Authorization: Bearer KEY' or 'X-API-Key: KEY' [no key needed].",
)
@click.option(
    "--cors-origin",
    "cors_origins",
    multiple=True,
    help="Allow browser pages from this origin to call the API (repeatable) [CORS off].",
)
@click.option(
    "--root",
    "roots",
    multiple=True,
    type=click.Path(file_okay=False),
    help="Indexed folder that result paths are shown relative to (repeatable) "
    "[the deepest folder holding every indexed file].",
)
@_count("--max-k", 100, "Largest k a request may ask for.")
@_count("--max-query-length", 2000, "Longest query or question, in characters.")
@click.option(
    "--max-body-size",
    default="1MiB",
    show_default=True,
    help="Largest request body, e.g. 256KiB, 1MiB.",
)
@_seconds("--request-timeout", 60.0, "Seconds a request (a whole answer stream) may take.")
@_seconds(
    "--header-timeout",
    10.0,
    "Seconds a client may take to send its request headers (then it is disconnected).",
)
@_seconds("--body-timeout", 10.0, "Seconds a client may take to send its request body (then 408).")
@_count("--max-concurrency", 64, "Requests handled at once per worker; more get 429.")
@click.option(
    "--reload-interval",
    type=click.FloatRange(min=0),
    default=2.0,
    show_default=True,
    help="Seconds between checks for a newly indexed snapshot (0: never reload).",
)
@_count(
    "--pool-size",
    8,
    "PostgreSQL index: most connections per pool; each worker has two (event loop, threads).",
    envvar="RAGKIT_SERVE_POOL_SIZE",
)
@click.option(
    "--metrics/--no-metrics",
    default=True,
    show_default=True,
    help="Serve Prometheus metrics at GET /metrics.",
)
@click.option(
    "--metrics-public",
    is_flag=True,
    help="Serve /metrics without the API key (put the server behind a proxy that keeps "
    "/metrics off the internet) [it needs the key when there are keys].",
)
@model_options
@click.option(
    "--otlp-endpoint",
    metavar="URL",
    help="Send OpenTelemetry traces (a span per request, with its retriever and model spans) "
    "to this OTLP/HTTP receiver, e.g. http://127.0.0.1:4318 [the OTEL_EXPORTER_OTLP_* "
    "variables; none].",
)
@click.option(
    "--log-level",
    type=click.Choice(["critical", "error", "warning", "info", "debug"]),
    default="info",
    show_default=True,
    help="uvicorn's log level.",
)
@guarded
def serve_cmd(index: str, **given: Any) -> None:
    """Serve an index over HTTP: POST /query, POST /ask (streamed), GET /info, a web page at /.

    Several --workers serve one index read-only, and each picks up a newly indexed snapshot
    within --reload-interval seconds. An index in PostgreSQL (postgresql://...?collection=NAME)
    is shared by any number of servers; put its password in PGPASSWORD, not in the URL. /ask answers with
    --model (gemini:NAME with GOOGLE_API_KEY, or openai:NAME with OPENAI_API_KEY or
    --model-key-file, and --base-url for a local server); without a key it returns the passages. API docs: /docs and /openapi.json.

    \b
    Examples:
      ragkit serve my-index
      ragkit serve my-index --host 0.0.0.0 --port 8080 --workers 4 --api-key-file keys.txt
      PGPASSWORD=... ragkit serve 'postgresql://app@db/rag?collection=manuals' --workers 4
      ragkit serve my-index --model openai:llama3.1 --base-url http://127.0.0.1:11434/v1
      curl -s localhost:8000/query -d '{"query": "reset", "retriever": "bm25", "k": 3}'
    """
    flags = ServeFlags(**given)
    from ragkit.serve.threads import one_thread_per_search

    one_thread_per_search()  # before Index.open below loads FAISS (see ragkit.serve.threads)
    from ragkit._io.sizes import parse_size
    from ragkit.indexing.index_dir import Index
    from ragkit.serve.server import run
    from ragkit.serve.service import release
    from ragkit.serve.settings import ServeSettings, key_file_warning, load_api_keys
    from ragkit.tracing.otlp import otlp_tracer_provider

    traced = otlp_tracer_provider(flags.otlp_endpoint)  # no OpenTelemetry, a bad protocol: fail now
    if traced is not None:
        traced.shutdown()  # a check only: each worker makes its own
    keys = load_api_keys(flags.api_key_file) if flags.api_key_file else ()
    if flags.api_key_file and (warning := key_file_warning(flags.api_key_file)):
        output.err(warning)
    body = parse_size(flags.max_body_size)
    settings = ServeSettings(
        max_body_bytes=body if body else 1024 * 1024,
        max_query_length=flags.max_query_length,
        max_k=flags.max_k,
        request_timeout=flags.request_timeout,
        header_timeout=flags.header_timeout,
        body_timeout=flags.body_timeout,
        max_concurrency=flags.max_concurrency,
        reload_interval=flags.reload_interval,
        pool_size=flags.pool_size,
        metrics=flags.metrics,
        metrics_public=flags.metrics_public,
        cors_origins=flags.cors_origins,
        api_keys=keys,
    )
    checked = Index.open(index)  # a missing or damaged index fails here, before any worker starts
    checked.info()
    defaults = checked.defaults  # a folder's [defaults], a collection's defaults
    release(checked)
    choice = model_choice(
        str(resolve(flags.model_name, defaults, "model", DEFAULT_MODEL)),
        resolve(flags.endpoint, defaults, "endpoint", None),
        flags.timeout,
    )
    model = None
    if choice.has_key():
        choice.build()  # a bad model name, key or key file fails here, before any worker starts
        model = choice.to_dict()  # the key file's path travels, never the key
    else:
        output.err(
            f"note: {choice.key_help()} is not set; /ask returns the passages without an answer"
        )
    shown = "[" + flags.host + "]" if ":" in flags.host else flags.host
    output.err(
        f"ragkit serve: http://{shown}:{flags.port}/ ({_name(index)}, "
        f"{flags.workers} worker{'s' if flags.workers > 1 else ''}; "
        f"{'API key required' if keys else 'no API key'}; "
        f"CORS {'for ' + ', '.join(flags.cors_origins) if flags.cors_origins else 'off'})"
    )
    run(
        index,
        host=flags.host,
        port=flags.port,
        workers=flags.workers,
        settings=settings,
        roots=tuple(os.path.abspath(r) for r in flags.roots),
        model=model,
        log_level=flags.log_level,
        otlp_endpoint=flags.otlp_endpoint,
    )


def _name(index: str) -> str:
    """The index as the start-up line names it: a folder's name, a URL without its password."""
    from ragkit.indexing.open import is_url

    if is_url(index):
        from ragkit.indexing.postgres.location import shown

        return shown(index)
    return os.path.basename(index.rstrip("/")) or index
