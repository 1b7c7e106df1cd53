"""``ragkit serve``: an index over HTTP (JSON API, streamed answers, a web page).

Example:
    $ ragkit serve my-index --port 8000
    $ ragkit serve my-index --host 0.0.0.0 --workers 4 --api-key-file keys.txt
"""

from __future__ import annotations

import os

import click

from ragkit._cli import output
from ragkit._cli.chat_model import DEFAULT_MODEL, has_key, model_options
from ragkit._cli.guard import guarded
from ragkit._cli.settings import index_defaults, resolve


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
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    envvar="RAGKIT_SERVE_WORKERS",
    help="Worker processes sharing the port; each loads the index read-only.",
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
@click.option(
    "--max-k",
    type=click.IntRange(min=1),
    default=100,
    show_default=True,
    help="Largest k a request may ask for.",
)
@click.option(
    "--max-query-length",
    type=click.IntRange(min=1),
    default=2000,
    show_default=True,
    help="Longest query or question, in characters.",
)
@click.option(
    "--max-body-size",
    default="1MiB",
    show_default=True,
    help="Largest request body, e.g. 256KiB, 1MiB.",
)
@click.option(
    "--request-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=60.0,
    show_default=True,
    help="Seconds a request (a whole answer stream) may take.",
)
@click.option(
    "--header-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=10.0,
    show_default=True,
    help="Seconds a client may take to send its request headers (then it is disconnected).",
)
@click.option(
    "--body-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=10.0,
    show_default=True,
    help="Seconds a client may take to send its request body (then 408).",
)
@click.option(
    "--max-concurrency",
    type=click.IntRange(min=1),
    default=64,
    show_default=True,
    help="Requests handled at once per worker; more get 429.",
)
@click.option(
    "--reload-interval",
    type=click.FloatRange(min=0),
    default=2.0,
    show_default=True,
    help="Seconds between checks for a newly indexed snapshot (0: never reload).",
)
@click.option(
    "--pool-size",
    type=click.IntRange(min=1),
    default=8,
    show_default=True,
    envvar="RAGKIT_SERVE_POOL_SIZE",
    help="PostgreSQL index: most connections per pool; each worker has two (event loop, threads).",
)
@model_options
@click.option(
    "--log-level",
    type=click.Choice(["critical", "error", "warning", "info", "debug"]),
    default="info",
    show_default=True,
    help="uvicorn's log level.",
)
@guarded
def serve_cmd(
    index: str,
    host: str,
    port: int,
    workers: int,
    api_key_file: str | None,
    cors_origins: tuple[str, ...],
    roots: tuple[str, ...],
    max_k: int,
    max_query_length: int,
    max_body_size: str,
    request_timeout: float,
    header_timeout: float,
    body_timeout: float,
    max_concurrency: int,
    reload_interval: float,
    pool_size: int,
    model_name: str | None,
    endpoint: str | None,
    timeout: float | None,
    log_level: str,
) -> None:
    """Serve an index over HTTP: POST /query, POST /ask (streamed), GET /info, a web page at /.

    Several --workers serve one index read-only, and each picks up a newly indexed snapshot
    within --reload-interval seconds. An index in PostgreSQL (postgresql://...?collection=NAME)
    is shared by any number of servers; put its password in PGPASSWORD, not in the URL. /ask answers with Gemini when GOOGLE_API_KEY is set
    (else it returns the passages). API docs: /docs and /openapi.json.

    \b
    Examples:
      ragkit serve my-index
      ragkit serve my-index --host 0.0.0.0 --port 8080 --workers 4 --api-key-file keys.txt
      PGPASSWORD=... ragkit serve 'postgresql://app@db/rag?collection=manuals' --workers 4
      curl -s localhost:8000/query -d '{"query": "reset", "retriever": "bm25", "k": 3}'
    """
    from ragkit.indexing.index_dir import Index
    from ragkit.loaders._files import parse_size
    from ragkit.serve.server import run
    from ragkit.serve.service import release
    from ragkit.serve.settings import ServeSettings, key_file_warning, load_api_keys

    keys = load_api_keys(api_key_file) if api_key_file else ()
    if api_key_file and (warning := key_file_warning(api_key_file)):
        output.err(warning)
    body = parse_size(max_body_size)
    settings = ServeSettings(
        max_body_bytes=body if body else 1024 * 1024,
        max_query_length=max_query_length,
        max_k=max_k,
        request_timeout=request_timeout,
        header_timeout=header_timeout,
        body_timeout=body_timeout,
        max_concurrency=max_concurrency,
        reload_interval=reload_interval,
        pool_size=pool_size,
        cors_origins=cors_origins,
        api_keys=keys,
    )
    checked = Index.open(index)  # a missing or damaged index fails here, before any worker starts
    checked.info()
    release(checked)
    model = None
    if has_key():
        defaults = index_defaults(index) if "://" not in index else {}
        model = {
            "model": str(resolve(model_name, defaults, "model", DEFAULT_MODEL)),
            "endpoint": resolve(endpoint, defaults, "endpoint", None),
            "timeout": timeout,
        }
    else:
        output.err("note: GOOGLE_API_KEY is not set; /ask returns the passages without an answer")
    shown = "[" + host + "]" if ":" in host else host
    output.err(
        f"ragkit serve: http://{shown}:{port}/ ({_name(index)}, "
        f"{workers} worker{'s' if workers > 1 else ''}; "
        f"{'API key required' if keys else 'no API key'}; "
        f"CORS {'for ' + ', '.join(cors_origins) if cors_origins else 'off'})"
    )
    run(
        index,
        host=host,
        port=port,
        workers=workers,
        settings=settings,
        roots=tuple(os.path.abspath(r) for r in roots),
        model=model,
        log_level=log_level,
    )


def _name(index: str) -> str:
    """The index as the start-up line names it: a folder's name, a URL without its password."""
    if "://" in index:
        from ragkit.indexing.pg_location import shown

        return shown(index)
    return os.path.basename(index.rstrip("/")) or index
