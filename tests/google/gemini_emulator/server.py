"""The emulator's HTTP server: routing, API-key check, fault injection, scripted replies, request log.

Usage:
    >>> emulator = Emulator(api_key="test-key").start()
    >>> emulator.url.startswith("http://127.0.0.1:")
    True
    >>> emulator.fail("generateContent", status=503)        # next call answers 503
    >>> emulator.reply("generateContent", {"candidates": []})  # then this body
    >>> emulator.stop()
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from . import answer, generative
from .common import ApiError, enum_names
from .corpora import CorpusState
from .faults import Fault, FaultQueue

_NAME = r"[a-z0-9-]+"
# The API versions served. Google serves the model methods under both; semantic retrieval
# (corpora) and generateAnswer only under v1beta. SDKs differ in which they call (google-genai 3
# calls v1), so tests read ``LoggedRequest.api_version`` rather than assume one.
MODEL_VERSIONS = ("v1", "v1beta")
BETA_ONLY = {"generateAnswer"}
# (HTTP method, path pattern, rpc name); named groups except ``api_version`` become handler
# arguments.
_METHODS: list[tuple[str, str, str]] = [
    ("POST", r"(?P<model>(?:models|tunedModels)/[^:/]+):generateContent", "generateContent"),
    (
        "POST",
        r"(?P<model>(?:models|tunedModels)/[^:/]+):streamGenerateContent",
        "streamGenerateContent",
    ),
    ("POST", r"(?P<model>models/[^:/]+):countTokens", "countTokens"),
    ("POST", r"(?P<model>models/[^:/]+):embedContent", "embedContent"),
    ("POST", r"(?P<model>models/[^:/]+):batchEmbedContents", "batchEmbedContents"),
    ("POST", r"(?P<model>models/[^:/]+):generateAnswer", "generateAnswer"),
    ("POST", r"corpora", "createCorpus"),
    ("GET", rf"(?P<name>corpora/{_NAME})", "getCorpus"),
    ("DELETE", rf"(?P<name>corpora/{_NAME})", "deleteCorpus"),
    ("POST", rf"(?P<name>corpora/{_NAME}):query", "queryCorpus"),
    ("POST", rf"(?P<parent>corpora/{_NAME})/documents", "createDocument"),
    ("GET", rf"(?P<parent>corpora/{_NAME})/documents", "listDocuments"),
    ("GET", rf"(?P<name>corpora/{_NAME}/documents/{_NAME})", "getDocument"),
    ("DELETE", rf"(?P<name>corpora/{_NAME}/documents/{_NAME})", "deleteDocument"),
    ("POST", rf"(?P<name>corpora/{_NAME}/documents/{_NAME}):query", "queryDocument"),
    (
        "POST",
        rf"(?P<parent>corpora/{_NAME}/documents/{_NAME})/chunks:batchCreate",
        "batchCreateChunks",
    ),
    (
        "POST",
        rf"(?P<parent>corpora/{_NAME}/documents/{_NAME})/chunks:batchDelete",
        "batchDeleteChunks",
    ),
    ("POST", rf"(?P<parent>corpora/{_NAME}/documents/{_NAME})/chunks", "createChunk"),
    ("GET", rf"(?P<parent>corpora/{_NAME}/documents/{_NAME})/chunks", "listChunks"),
    ("GET", rf"(?P<name>corpora/{_NAME}/documents/{_NAME}/chunks/{_NAME})", "getChunk"),
    ("DELETE", rf"(?P<name>corpora/{_NAME}/documents/{_NAME}/chunks/{_NAME})", "deleteChunk"),
]


def _versions(pattern: str, rpc: str) -> str:
    model_method = pattern.startswith("(?P<model>") and rpc not in BETA_ONLY
    return "|".join(MODEL_VERSIONS) if model_method else "v1beta"


ROUTES: list[tuple[str, re.Pattern[str], str]] = [
    (m, re.compile(f"^/(?P<api_version>{_versions(p, rpc)})/{p}$"), rpc) for m, p, rpc in _METHODS
]


@dataclass
class LoggedRequest:
    """One request the emulator received (``status`` is what it answered; 0 if it dropped the connection)."""

    method: str
    path: str
    query: str
    rpc: str
    headers: dict[str, str]
    body: Any
    status: int = 0
    params: dict[str, list[str]] = field(default_factory=dict)
    api_version: str = ""

    @property
    def method_path(self) -> str:
        """The path without its API version: ``/models/m:generateContent`` for both versions."""
        return self.path.removeprefix(f"/{self.api_version}") if self.api_version else self.path


class Emulator:
    """A local Generative Language API (v1 and v1beta) on 127.0.0.1 (port chosen by the OS)."""

    def __init__(self, api_key: str = "test-key") -> None:
        self.api_key = api_key
        self.log: list[LoggedRequest] = []
        self.faults = FaultQueue()
        self.corpora = CorpusState()
        self._scripts: dict[str, deque[Any]] = defaultdict(deque)
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- life cycle ---------------------------------------------------------------
    def _handler_base(self) -> type[BaseHTTPRequestHandler]:
        """The request handler class (the OpenAI emulator, a subclass, serves its own)."""
        return _Handler

    def start(self) -> Emulator:
        handler = type("Handler", (self._handler_base(),), {"emulator": self})
        self._server = _Server(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.01,), name="gemini-emulator", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._server is not None, "start() the emulator first"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def client_options(self) -> dict[str, str]:
        return {"api_endpoint": self.url}

    # -- test controls ---------------------------------------------------------------
    def fail(self, rpc: str, times: int = 1, **spec: Any) -> None:
        """Serve a :class:`Fault` (see its fields) on the next ``times`` calls of ``rpc`` ("*": any)."""
        self.faults.add(Fault(rpc=rpc, **spec), times)

    def reply(self, rpc: str, body: Any) -> None:
        """Answer the next call of ``rpc`` with ``body`` (for streams: a list of pieces, or one response)."""
        with self._lock:
            self._scripts[rpc].append(body)

    def requests(self, rpc: str | None = None) -> list[LoggedRequest]:
        """Logged requests, optionally only those of one RPC."""
        with self._lock:
            return [r for r in self.log if rpc is None or r.rpc == rpc]

    def reset(self) -> None:
        """Forget the log, faults and scripted replies (corpora stay)."""
        with self._lock:
            self.log.clear()
            self._scripts.clear()
        self.faults.clear()

    def _scripted(self, rpc: str) -> Any:
        with self._lock:
            queue = self._scripts.get(rpc)
            return queue.popleft() if queue else None

    def _record(self, entry: LoggedRequest) -> None:
        with self._lock:
            self.log.append(entry)

    # -- dispatch ------------------------------------------------------------------------
    def dispatch(
        self, rpc: str, args: dict[str, str], body: Any, params: dict[str, list[str]]
    ) -> Any:
        if rpc in ("generateContent", "streamGenerateContent"):
            generative.check_contents(body or {})
        scripted = self._scripted(rpc)
        if scripted is not None:
            if isinstance(scripted, ApiError):
                raise scripted
            return scripted
        body = body or {}
        if rpc in ("generateContent", "streamGenerateContent"):
            response = generative.generate(body, args["model"])
            return (
                generative.stream_pieces(response) if rpc == "streamGenerateContent" else response
            )
        if rpc == "countTokens":
            return generative.count_tokens(body, args["model"])
        if rpc == "embedContent":
            return generative.embed_content(body, args["model"])
        if rpc == "batchEmbedContents":
            return generative.batch_embed(body, args["model"])
        if rpc == "generateAnswer":
            return answer.generate_answer(body, args["model"], self.corpora)
        return self.corpora.handle(rpc, args, body, params)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients that time out and hang up are part of the tests


class _Handler(BaseHTTPRequestHandler):
    emulator: Emulator
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes; without this, delayed ACKs add ~40 ms per call.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def do_DELETE(self) -> None:
        self._handle()

    def do_PATCH(self) -> None:
        self._handle()

    def _handle(self) -> None:
        url = urlsplit(self.path)
        path = unquote(url.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        rpc, args, version = "unknown", {}, ""
        for method, pattern, name in ROUTES:
            match = pattern.match(path)
            if match and method == self.command:
                rpc, args = name, match.groupdict()
                version = args.pop("api_version")
                break
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode(errors="replace")
        entry = LoggedRequest(
            self.command,
            path,
            unquote(url.query),
            rpc,
            dict(self.headers.items()),
            body,
            params=parse_qs(url.query),
            api_version=version,
        )
        self.emulator._record(entry)
        fault = self.emulator.faults.take(rpc)
        if fault is not None and fault.delay and fault.stall_after is None:
            time.sleep(fault.delay)
        try:
            if self.headers.get("x-goog-api-key") != self.emulator.api_key:
                raise ApiError(
                    400,
                    "API key not valid. Please pass a valid API key.",
                    [
                        {
                            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                            "reason": "API_KEY_INVALID",
                        }
                    ],
                )
            if rpc == "unknown":
                raise ApiError(404, f"Method not found: {self.command} {path}")
            if fault is not None and fault.drop:
                entry.status = 0
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if fault is not None and fault.status and fault.stream_error_after is None:
                if fault.commit:
                    self.emulator.dispatch(rpc, args, body, entry.params)
                raise _fault_error(fault)
            if fault is not None and fault.malformed:
                entry.status = 200
                self._send(200, b'{"candidates": [ {"content": ', {})
                return
            result = self.emulator.dispatch(rpc, args, body, entry.params)
        except ApiError as e:
            entry.status = e.code
            headers = (
                {"Retry-After": fault.retry_after}
                if fault is not None and fault.retry_after
                else {}
            )
            self._send(e.code, json.dumps(e.body()).encode(), headers)
            return
        entry.status = 200
        if "enum-encoding=int" not in entry.query:
            result = enum_names(result)  # the service answers with names unless asked for numbers
        if rpc == "streamGenerateContent":
            pieces = result if isinstance(result, list) else generative.stream_pieces(result)
            if entry.params.get("alt") == ["sse"]:
                self._stream_sse(pieces)
            else:
                self._stream(pieces, fault)
        else:
            self._send(200, json.dumps(result).encode(), {})

    def _send(self, status: int, payload: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(payload)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(payload)

    def _stream_sse(self, pieces: list[dict[str, Any]]) -> None:
        """Server-sent events, one piece per ``data:`` line (``?alt=sse``, as google-genai asks)."""
        payload = b"".join(b"data: " + json.dumps(p).encode() + b"\r\n\r\n" for p in pieces)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()

    def _stream(self, pieces: list[dict[str, Any]], fault: Fault | None) -> None:
        """A streamed JSON array, one piece per HTTP chunk (how the service streams without SSE)."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def write(data: str) -> None:
            raw = data.encode()
            self.wfile.write(b"%X\r\n%s\r\n" % (len(raw), raw))
            self.wfile.flush()

        for i, piece in enumerate(pieces):
            if fault is not None and fault.stall_after == i:
                time.sleep(fault.delay)
            if fault is not None and fault.stream_error_after == i:
                error = ApiError(
                    fault.status or 500, fault.message or "Internal error encountered."
                )
                write(("[" if i == 0 else ",\r\n") + json.dumps(error.body()) + "]")
                break
            write(("[" if i == 0 else ",\r\n") + json.dumps(piece))
        else:
            write("]")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def _fault_error(fault: Fault) -> ApiError:
    assert fault.status is not None
    details = []
    if fault.retry_delay:
        details.append(
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": fault.retry_delay}
        )
    default = {
        429: "Resource has been exhausted (e.g. check quota).",
        503: "The model is overloaded.",
    }
    return ApiError(
        fault.status, fault.message or default.get(fault.status, "Injected failure."), details
    )
