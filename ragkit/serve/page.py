"""The web page at ``/`` and its assets: plain HTML, CSS and JavaScript shipped in the package.

No build step and nothing fetched from elsewhere: the page, its script and its
style are files in ``ragkit/serve/static/``, read once and served by name (a
fixed list, so no request can name another file). A strict Content-Security-
Policy allows only this server's own scripts, styles and API.

Example:
    >>> sorted(ASSETS)
    ['app.js', 'docs.html', 'docs.js', 'index.html', 'style.css']
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from starlette.requests import Request
from starlette.responses import Response

from ragkit.serve.responses import error_response

ASSETS = {
    "index.html": "text/html; charset=utf-8",
    "docs.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "docs.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
}
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-cache",
}


@cache
def asset(name: str) -> bytes:
    return resources.files("ragkit.serve").joinpath("static").joinpath(name).read_bytes()


def _send(name: str) -> Response:
    return Response(asset(name), media_type=ASSETS[name], headers=SECURITY_HEADERS)


async def index_page(request: Request) -> Response:
    return _send("index.html")


async def docs_page(request: Request) -> Response:
    return _send("docs.html")


async def static(request: Request) -> Response:
    name = request.path_params.get("name", "")
    if name not in ASSETS:
        return error_response(404, "not_found", f"no asset named {name!r}")
    return _send(name)


async def favicon(request: Request) -> Response:
    return Response(b"", status_code=204)
