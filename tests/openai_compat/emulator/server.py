"""The OpenAI emulator's HTTP server: routing, key check, models, faults, scripted replies, log.

Usage:
    >>> emu = OpenAIEmulator(api_key="sk-test").start()
    >>> emu.base_url.startswith("http://127.0.0.1:")
    True
    >>> emu.fail("chat", status=429, retry_after="0.01")   # next chat call answers 429
    >>> emu.reply("chat", {"role": "assistant", "content": "Scripted"})  # then this message
    >>> emu.stop()
"""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.google.gemini_emulator.server import Emulator
from tests.google.gemini_emulator.server import _Handler as GeminiHandler

from . import replies
from .faults import Fault

ROUTES = {
    ("POST", "/v1/chat/completions"): "chat",
    ("POST", "/v1/completions"): "completions",
    ("POST", "/v1/embeddings"): "embeddings",
    ("GET", "/v1/models"): "models",
}
MODELS = {
    "gpt-4o-mini",
    "gpt-4o",
    "gpt-3.5-turbo",
    "gpt-3.5-turbo-instruct",
    "text-embedding-3-small",
    "text-embedding-ada-002",
    "llama3",
}


@dataclass
class LoggedRequest:
    """One request the emulator received and the status it answered (0: connection cut)."""

    method: str
    path: str
    rpc: str
    headers: dict[str, str]
    body: Any
    status: int = 0
    received: float = field(default_factory=time.monotonic)
    """When it arrived (``time.monotonic()``), to check the waits between retries."""


class ApiError(Exception):
    def __init__(self, status: int, message: str, kind: str, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = {"error": {"message": message, "type": kind, "param": None, "code": code}}


class OpenAIEmulator(Emulator):
    """A local OpenAI-compatible API on 127.0.0.1 (port chosen by the OS); ``base_url`` ends in
    ``/v1``. Life cycle, scripted replies, the log and ``reset`` are the Gemini emulator's."""

    def __init__(self, api_key: str = "sk-emulator-key-0123456789") -> None:
        super().__init__(api_key)
        self.models = set(MODELS)
        self.log: list[LoggedRequest] = []  # type: ignore[assignment]

    def _handler_base(self) -> type[BaseHTTPRequestHandler]:
        return _Handler

    def __enter__(self) -> OpenAIEmulator:
        return self.start()  # type: ignore[return-value]

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def fail(self, rpc: str, times: int = 1, **spec: Any) -> None:
        """Serve a :class:`Fault` (see its fields) on the next ``times`` calls of ``rpc``."""
        self.faults.add(Fault(rpc=rpc, **spec), times)  # type: ignore[arg-type]

    def bodies(self, rpc: str) -> list[Any]:
        """The request bodies of ``rpc`` calls, in order."""
        return [r.body for r in self.requests(rpc)]

    # -- replies -----------------------------------------------------------------------
    def answer(self, rpc: str, body: dict[str, Any]) -> tuple[Any, list[dict[str, Any]] | None]:
        """``(reply, None)``, or ``(None, chunks)`` for a streamed request."""
        if rpc == "models":
            data = [
                {"id": m, "object": "model", "created": 0, "owned_by": "emu"}
                for m in sorted(self.models)
            ]
            return {"object": "list", "data": data}, None
        model = body.get("model")
        if model not in self.models:
            raise ApiError(
                404,
                f"The model `{model}` does not exist or you do not have access to it.",
                "invalid_request_error",
                "model_not_found",
            )
        stream = bool(body.get("stream"))
        if rpc == "embeddings":
            return replies.embeddings(body), None
        if rpc == "completions":
            return (
                (None, replies.completion_chunks(body))
                if stream
                else (replies.completion(body), None)
            )
        if not body.get("messages"):
            raise ApiError(400, "'messages' is a required property", "invalid_request_error")
        message = self._scripted(rpc) or replies.chat_message(body)
        if stream:
            return None, replies.chat_chunks(body, message)
        return replies.chat_completion(body, message), None


class _Handler(GeminiHandler):
    """The Gemini emulator's handler (threads, TCP_NODELAY, quiet log, JSON replies) with the
    OpenAI routes, key check and faults."""

    emulator: OpenAIEmulator  # type: ignore[assignment]

    def _handle(self) -> None:
        path = self.path.split("?", 1)[0]
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        rpc = ROUTES.get((self.command, path), "unknown")
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = raw.decode(errors="replace")
        entry = LoggedRequest(self.command, path, rpc, dict(self.headers.items()), body)
        self.emulator._record(entry)
        fault: Fault | None = self.emulator.faults.take(rpc)  # type: ignore[assignment]
        if fault is not None and fault.delay:
            time.sleep(fault.delay)
        try:
            if self.headers.get("Authorization") != f"Bearer {self.emulator.api_key}":
                raise ApiError(
                    401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key"
                )
            if rpc == "unknown":
                raise ApiError(404, f"Unknown path {self.command} {path}", "invalid_request_error")
            if fault is not None and fault.status:
                raise ApiError(
                    fault.status,
                    fault.message or f"Injected failure {fault.status}",
                    "server_error",
                )
            if fault is not None and fault.malformed:
                entry.status = 200
                self._send(200, b'{"id": "chatcmpl-emu", "choices": [ {"index": ', {})
                return
            if not isinstance(body, dict):
                raise ApiError(400, "the body is not a JSON object", "invalid_request_error")
            reply, chunks = self.emulator.answer(rpc, body)
        except ApiError as e:
            entry.status = e.status
            headers = {"Retry-After": fault.retry_after} if fault and fault.retry_after else {}
            self._send(e.status, json.dumps(e.body).encode(), headers)
            return
        entry.status = 200
        if chunks is None:
            self._send(200, json.dumps(reply).encode(), {})
        else:
            self._stream(chunks, fault)

    def _stream(self, chunks: list[dict[str, Any]], fault: Fault | None) -> None:  # type: ignore[override]
        """Server-sent events in HTTP chunks, one event per chunk, ending in ``data: [DONE]``."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def write(raw: bytes) -> None:
            self.wfile.write(b"%X\r\n%s\r\n" % (len(raw), raw))
            self.wfile.flush()

        for i, chunk in enumerate(chunks):
            event = b"data: " + json.dumps(chunk).encode() + b"\n\n"
            if fault is not None and fault.cut_after == i:
                write(event[: len(event) // 2])  # half an event, then the connection goes
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            write(event)
        write(b"data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
