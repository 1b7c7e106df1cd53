"""Serving over HTTP: ``ragkit serve``, LangServe-style routes for any Runnable, and the client.

Needs the ``serve`` extra (``pip install 'ragkit[serve]'``: Starlette, uvicorn, httpx).

Example:
    >>> from starlette.applications import Starlette
    >>> from ragkit import RunnableLambda
    >>> from ragkit.serve import add_routes
    >>> app = Starlette()
    >>> add_routes(app, RunnableLambda(lambda x: x * 2), path="/double")
    >>> # uvicorn.run(app)  then  RemoteRunnable("http://127.0.0.1:8000/double").invoke(21) == 42
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "RemoteRunnable",
    "ServeSettings",
    "add_routes",
    "create_app",
    "load_api_keys",
    "run",
]

_LAZY = {
    "create_app": "ragkit.serve.app",
    "RemoteRunnable": "ragkit.serve.remote",
    "add_routes": "ragkit.serve.routes",
    "run": "ragkit.serve.server",
    "ServeSettings": "ragkit.serve.settings",
    "load_api_keys": "ragkit.serve.settings",
}

if TYPE_CHECKING:
    from ragkit.serve.app import create_app
    from ragkit.serve.remote import RemoteRunnable
    from ragkit.serve.routes import add_routes
    from ragkit.serve.server import run
    from ragkit.serve.settings import ServeSettings, load_api_keys
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
