"""HttpMiddleware: the base of the server's ASGI middlewares (keys and limits, metrics, spans).

Each wraps the app and acts on HTTP requests only; lifespan and other scopes pass straight
through to the app, so a subclass writes just :meth:`HttpMiddleware.http`.

Example:
    >>> import asyncio
    >>> class Shout(HttpMiddleware):
    ...     async def http(self, scope, receive, send):
    ...         await self.app(scope, receive, send)
    ...         print("seen", scope["path"])
    >>> async def app(scope, receive, send):
    ...     print("app", scope["type"])
    >>> asyncio.run(Shout(app)({"type": "lifespan"}, None, None))
    app lifespan
    >>> asyncio.run(Shout(app)({"type": "http", "path": "/query"}, None, None))
    app http
    seen /query
"""

from __future__ import annotations

from typing import Any


class HttpMiddleware:
    """ASGI middleware around ``app`` that handles HTTP requests in :meth:`http`."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.http(scope, receive, send)

    async def http(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Handle one HTTP request (here: pass it to the app)."""
        await self.app(scope, receive, send)
