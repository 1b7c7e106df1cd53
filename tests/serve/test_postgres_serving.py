"""One index in PostgreSQL shared by several `ragkit serve` processes (issue 17 with issue 14).

Two real servers (subprocesses on loopback ports) serve one collection while a third process
re-indexes it with changed, added and deleted files; clients hammer both servers' /query (BM25,
similarity, hybrid) and /info. Every answer must come from one committed state of each file (the
PostgreSQL writer commits whole files per transaction), no request may fail, and once the run
has committed both servers answer from the new content without a restart. The database password
never reaches a log, a reply or an error. With --workers, each worker has its own bounded pool.

Every chunk of the corpus holds ``fileN editionE``, and every chunk holds the word ``wheel``: a
search for ``wheel`` with k above the chunk count returns the whole index as one query saw it.
"""

from __future__ import annotations

import itertools
import re
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import httpx
import pytest

from tests.cli.helpers import ragkit
from tests.serve.helpers import cli_server, sse_events

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "google"))

from gemini_emulator import Emulator  # noqa: E402
from gemini_testing import API_KEY  # noqa: E402

pytestmark = pytest.mark.integration

KEEP = range(0, 12)  # unchanged: edition 1, 3 chunks
CHANGE = range(12, 24)  # edition 1, 3 chunks -> edition 2, 4 chunks
DELETE = range(24, 32)  # edition 1, 2 chunks -> removed
ADD = range(32, 44)  # new: edition 2, 5 chunks
CHUNKS = {1: {**dict.fromkeys(KEEP, 3), **dict.fromkeys(CHANGE, 3), **dict.fromkeys(DELETE, 2)}}
CHUNKS[2] = {**dict.fromkeys(CHANGE, 4), **dict.fromkeys(ADD, 5)}
OLD = {f: 1 for f in CHUNKS[1]}
NEW = {**{f: 1 for f in KEEP}, **{f: 2 for f in CHANGE}, **{f: 2 for f in ADD}}
WORDS = "wheel care notes: true the rim, tension the spokes, grease the hub"
INDEX_ARGS = ("--embedding", "hash", "--chunk-size", "100", "--chunk-overlap", "0")
MARK = re.compile(r"file(\d+) edition(\d+) part(\d+)")


def write_file(folder: Path, number: int, edition: int) -> None:
    parts = [
        f"file{number} edition{edition} part{j} {WORDS}" for j in range(CHUNKS[edition][number])
    ]  # each paragraph is one chunk (two do not fit in 100 characters)
    (folder / f"f{number:02d}.txt").write_text("\n\n".join(parts) + "\n", encoding="utf-8")


def state_of(results: list[dict[str, Any]]) -> tuple[dict[int, int], list[str]]:
    """{file: edition} that a reply holding the whole index shows, and what is wrong with it."""
    chunks: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
    for r in results:
        found = MARK.search(r["text"])
        assert found, r["text"]
        chunks[r["source"]].append(tuple(int(x) for x in found.groups()))  # type: ignore[arg-type]
    state: dict[int, int] = {}
    problems: list[str] = []
    for source, items in chunks.items():
        files = {f for f, _e, _p in items}
        editions = {e for _f, e, _p in items}
        if len(files) != 1 or source != f"f{min(files):02d}.txt":
            problems.append(f"{source}: chunks of files {sorted(files)}")
            continue
        number = files.pop()
        if len(editions) != 1:
            problems.append(f"{source}: old and new chunks together {sorted(items)}")
            continue
        edition = editions.pop()
        parts = sorted(p for _f, _e, p in items)
        if parts != list(range(CHUNKS[edition].get(number, -1))):
            problems.append(f"{source} edition {edition}: parts {parts}")
        state[number] = edition
    return state, problems


def midway_problems(state: dict[int, int]) -> list[str]:
    """What is wrong with ``state`` as a state of the re-index (each file old or new)."""
    problems = []
    for number in KEEP:
        if state.get(number) != 1:
            problems.append(f"unchanged file {number} shows as {state.get(number)}")
    for number in [*CHANGE, *DELETE, *ADD]:
        if state.get(number) not in {OLD.get(number), NEW.get(number)}:  # None: not there
            problems.append(f"file {number} shows as {state.get(number)}")
    return problems


def consistent_counts() -> set[tuple[int, int]]:
    """Every (documents, chunks) pair a whole-file-at-a-time re-index can pass through."""
    out = set()
    for new, deleted, added in itertools.product(
        range(len(CHANGE) + 1), range(len(DELETE) + 1), range(len(ADD) + 1)
    ):
        documents = len(KEEP) + len(CHANGE) + len(DELETE) - deleted + added
        chunks = 3 * len(KEEP) + 3 * (len(CHANGE) - new) + 4 * new
        out.add((documents, chunks + 2 * (len(DELETE) - deleted) + 5 * added))
    return out


def without_password(dsn: str) -> str:
    parts = urlsplit(dsn)
    netloc = f"{quote(parts.username or '', safe='')}@{parts.hostname}:{parts.port}"
    return urlunsplit(parts._replace(netloc=netloc))


def secrets_of(password: str) -> set[str]:
    return {password, quote(password, safe=""), quote(password)}


class Hammer:
    """Client threads asking one server the same questions over and over, checking each reply."""

    QUERIES = [("bm25", "wheel"), ("similarity", "wheel care notes"), ("hybrid", "wheel spokes")]

    def __init__(self, url: str, threads: int = 2, judge: Any = midway_problems) -> None:
        self.url = url
        self.judge = judge
        self.errors: list[str] = []
        self.states: list[tuple[int, ...]] = []
        self.infos: list[tuple[int, int]] = []
        self.replies = 0
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self.run, args=(i,)) for i in range(threads)]

    def run(self, offset: int) -> None:
        kinds = itertools.cycle([*self.QUERIES, ("info", "")])
        for _ in range(offset):
            next(kinds)
        with httpx.Client(base_url=self.url, timeout=60) as client:
            while not self.stop.is_set():
                kind, text = next(kinds)
                try:
                    if kind == "info":
                        reply = client.get("/info")
                    else:
                        body = {"query": text, "retriever": kind, "k": 250}
                        reply = client.post("/query", json=body)
                except httpx.HTTPError as err:
                    self.errors.append(f"{kind}: {type(err).__name__}: {err}")
                    continue
                self.replies += 1
                if reply.status_code != 200:
                    self.errors.append(f"{kind}: {reply.status_code} {reply.text[:300]}")
                elif kind == "info":
                    data = reply.json()
                    self.infos.append((data["documents"], data["chunks"]))
                else:
                    state, problems = state_of(reply.json()["results"])
                    problems += self.judge(state)
                    self.errors += [f"{kind}: {p}" for p in problems]
                    self.states.append(tuple(sorted(state.items())))  # type: ignore[arg-type]

    def __enter__(self) -> Hammer:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(120)


def counts_of(url: str) -> tuple[int, int]:
    info = httpx.get(url + "/info").json()
    return info["documents"], info["chunks"]


def wait_for(check: Any, what: str, limit: float = 60.0) -> None:
    deadline = time.monotonic() + limit
    while not check():
        assert time.monotonic() < deadline, f"{what} within {limit:g} s"
        time.sleep(0.1)


@pytest.mark.slow
def test_two_servers_share_one_index_while_it_is_reindexed(
    tmp_path, pg_dsn, pg_collection, pg_server
):
    folder = tmp_path / "docs"
    folder.mkdir()
    for number, edition in OLD.items():
        write_file(folder, number, edition)
    url = f"{pg_dsn}?collection={pg_collection}"
    built = ragkit("index", folder, "--index", url, *INDEX_ARGS, "--quiet")
    assert built.returncode == 0, built.stderr
    bare = f"{without_password(pg_dsn)}?collection={pg_collection}"  # password in PGPASSWORD
    emulator = Emulator(api_key=API_KEY).start()
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    options = ("--reload-interval", "0.2", "--max-k", "300", "--log-level", "info")
    replies: list[str] = []
    try:
        with (
            cli_server(
                url, *options, "--endpoint", emulator.url, log=logs[0], GOOGLE_API_KEY=API_KEY
            ) as (a, _),
            cli_server(bare, *options, log=logs[1], PGPASSWORD=pg_server.password) as (b, _),
        ):
            for server in (a, b):
                info = httpx.get(server + "/info").json()
                assert (info["documents"], info["chunks"]) == (32, 88)
                replies.append(str(info))
            reindex = [(n, 2) for n in CHANGE] + [(n, 2) for n in ADD]
            with Hammer(a) as on_a, Hammer(b) as on_b:
                wait_for(lambda: on_a.replies > 20 and on_b.replies > 20, "replies before")
                for number, edition in reindex:
                    write_file(folder, number, edition)
                for number in DELETE:
                    (folder / f"f{number:02d}.txt").unlink()
                # one file per transaction: many commits while the clients ask
                run = ragkit("index", folder, "--index", url, *INDEX_ARGS, "--batch-size", "1")
                assert run.returncode == 0, run.stderr
                for server in (a, b):  # both pick up the run's end without a restart
                    wait_for(lambda s=server: counts_of(s) == (36, 144), f"{server} new counts")
                wait_for(lambda: on_a.replies > 200 and on_b.replies > 200, "replies after")
            final = tuple(sorted(NEW.items()))
            initial = tuple(sorted(OLD.items()))
            for hammer in (on_a, on_b):
                assert hammer.errors == [], hammer.errors[:10]
                assert hammer.states[0] == initial and hammer.states[-1] == final
                counts = consistent_counts()
                assert hammer.infos and all(i in counts for i in hammer.infos), hammer.infos
                assert (32, 88) in hammer.infos and hammer.infos[-1] == (36, 144)
            seen = set(on_a.states) | set(on_b.states)
            assert len(seen) > 2, "no reply came from the middle of the run"  # it was exercised

            for server in (a, b):  # the new content, and nothing of the deleted files
                for kind, text in Hammer.QUERIES:
                    body = {"query": text, "retriever": kind, "k": 250}
                    reply = httpx.post(server + "/query", json=body)
                    assert state_of(reply.json()["results"]) == (NEW, [])
                hit = httpx.post(server + "/query", json={"query": "file40", "retriever": "bm25"})
                assert [r["source"] for r in hit.json()["results"]][:1] == ["f40.txt"]
                gone = httpx.post(server + "/query", json={"query": "file25", "retriever": "bm25"})
                assert gone.status_code == 200 and gone.json()["results"] == []
                bad = httpx.post(server + "/query", json={"query": "x", "retriever": "nope"})
                assert bad.status_code == 422
                replies += [hit.text, bad.text, httpx.get(server + "/healthz").text]
                replies.append(httpx.get(server + "/openapi.json").text)
                info = httpx.get(server + "/info").json()
                assert info["index"] == pg_collection and "source" in info["metadata_keys"]
                body = {
                    "query": "file40 wheel",
                    "retriever": "hybrid",
                    "filter": {"source": "f40.txt"},
                }
                only = httpx.post(server + "/query", json=body).json()["results"]
                assert only and {r["source"] for r in only} == {"f40.txt"}
                replies.append(str(info))

            question = {"question": "What does file40 say about the wheel?", "retriever": "bm25"}
            with httpx.stream("POST", a + "/ask", json={**question, "k": 3}) as reply:
                events = sse_events(reply)
            names = [n for n, _ in events]
            assert names[0] == "sources" and names[-2:] == ["answer", "end"], names
            sources = events[0][1]["results"]
            assert sources[0]["source"] == "f40.txt" and "edition2" in sources[0]["text"]
            tokens = "".join(d["text"] for n, d in events if n == "token")
            assert len([n for n in names if n == "token"]) > 3
            assert tokens == events[-2][1]["answer"] and "file40" in tokens
            (call,) = emulator.requests("streamGenerateContent")
            assert "file40 edition2" in str(call.body)
            replies.append(str(events))
    finally:
        emulator.stop()
    text = "\n".join([*replies, *(log.read_text(errors="replace") for log in logs)])
    text += built.stdout + built.stderr + run.stdout + run.stderr
    shown = f"postgresql://{urlsplit(pg_dsn).username}@"  # the URL as logged: no password
    assert all(shown in log.read_text() for log in logs) and "Application startup" in text
    assert not any(secret in text for secret in secrets_of(pg_server.password))


@pytest.mark.slow  # over 5 s on an idle machine (8.6-12 s in a loaded full run)
def test_workers_each_open_their_own_bounded_pool(tmp_path, pg_dsn, pg_collection, pg_server):
    folder = tmp_path / "docs"
    folder.mkdir()
    for number in KEEP:
        write_file(folder, number, 1)
    app = f"ragkit_serve_{pg_collection}"
    url = f"{pg_dsn}?application_name={app}&collection={pg_collection}"
    built = ragkit("index", folder, "--index", url, *INDEX_ARGS, "--quiet")
    assert built.returncode == 0, built.stderr
    log = tmp_path / "serve.log"
    args = ("--workers", "2", "--pool-size", "2", "--reload-interval", "0.2", "--max-k", "300")
    with cli_server(url, *args, log=log) as (server, _):
        unchanged = {n: 1 for n in KEEP}
        judge = lambda state: [] if state == unchanged else [f"state {state}"]  # noqa: E731
        with Hammer(server, threads=12, judge=judge) as hammer:
            pids: set[int] = set()
            wait_for(
                lambda: pids.add(httpx.get(server + "/healthz").json()["pid"]) or len(pids) == 2,
                "both workers answering",
            )
            wait_for(lambda: hammer.replies > 300, "300 replies")
            connections = _connections(pg_dsn, app)
        assert hammer.errors == [], hammer.errors[:10]
        assert len(hammer.states) > 100
        # two workers, two pools each (event loop, threads), --pool-size 2: at most 8; the
        # supervisor keeps none (it checked the index before starting them, then let go)
        assert 2 <= connections <= 8, connections
        write_file(folder, 40, 2)
        run = ragkit("index", folder, "--index", url, *INDEX_ARGS, "--quiet")
        assert run.returncode == 0, run.stderr
        answered: dict[int, int] = {}

        def both_workers_see_the_new_file() -> bool:
            health = httpx.get(server + "/healthz").json()
            answered[health["pid"]] = httpx.get(server + "/info").json()["documents"]
            return len(answered) == 2 and set(answered.values()) == {13}

        wait_for(both_workers_see_the_new_file, "both workers reload")
    assert pg_server.password not in log.read_text(errors="replace")


def _connections(dsn: str, application: str) -> int:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", (application,)
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_a_missing_collection_fails_before_serving_without_the_password(pg_dsn, pg_server):
    proc = ragkit("serve", f"{pg_dsn}?collection=not_built_yet", "--port", "0", timeout=60)
    assert proc.returncode != 0
    assert "not_built_yet" in proc.stderr and "is not a ragkit index" in proc.stderr
    assert not any(s in proc.stdout + proc.stderr for s in secrets_of(pg_server.password))


def test_names_of_a_postgres_index_never_hold_the_password():
    from ragkit._cli.serve_command import _name
    from ragkit.serve.service import display_name

    for url in (
        "postgresql://app:s3cret@db:5432/rag?collection=manuals",
        "postgresql://app:s3cret@db:5432?collection=manuals",  # no database in the path
        "postgres://app:s3cret@db",
    ):
        assert "s3cret" not in display_name(url) and "s3cret" not in _name(url)
    assert display_name("postgresql://app:s3cret@db?collection=manuals") == "manuals"
    assert (
        _name("postgresql://app:s3cret@db/rag?collection=m")
        == "postgresql://app@db/rag?collection=m"
    )


@pytest.mark.slow
def test_a_server_outlives_its_database_restarting(tmp_path, caplog):
    """The database going away is a 503 (never a 500 or the password); the server stays up and
    answers again once the database is back, on fresh connections. The log says so in one line
    per request, with a traceback now and then (not 45 lines a request)."""
    import logging

    from ragkit.indexing.index_dir import Index
    from ragkit.serve import ServeSettings, create_app
    from tests.postgres_server import TestServer
    from tests.serve.helpers import ServerThread

    folder = tmp_path / "docs"
    folder.mkdir()
    for number in KEEP:
        write_file(folder, number, 1)
    database = TestServer.start(max_connections=30)
    try:
        url = database.create_database("restarts") + "?collection=bikes"
        built = Index.create(url, embeddings="hash")
        assert built.add([folder]).ok
        built.shutdown()
        app = create_app(url, settings=ServeSettings(reload_interval=0.2, pool_size=2))
        with ServerThread(app) as server:
            queries = [{"query": "wheel", "retriever": kind} for kind in ("similarity", "hybrid")]
            for body in queries:
                assert httpx.post(server.url + "/query", json=body).status_code == 200
            database.stop_process("immediate")
            caplog.clear()
            caplog.set_level(logging.INFO, logger="ragkit.serve")
            for body in queries:  # the async pool: a dead connection, then no server at all
                down = httpx.post(server.url + "/query", json=body, timeout=60)
                assert down.status_code == 503, down.text
                assert down.json()["error"]["code"] == "database_unavailable"
                assert not any(s in down.text for s in secrets_of(database.password))
            failures = [r for r in caplog.records if r.getMessage().startswith("503 ")]
            assert len(failures) == 2, [r.getMessage() for r in caplog.records]
            assert all("\n" not in r.getMessage() for r in failures)
            traced = [r for r in caplog.records if r.exc_info]
            kinds = [r.getMessage().split(": ")[0] for r in traced]  # a traceback per kind
            assert kinds.count("503 database_unavailable") == 1, kinds  # not one a request
            assert len(kinds) == len(set(kinds)), kinds
            assert httpx.get(server.url + "/healthz").status_code == 200
            database.start_process()
            for body in queries:
                wait_for(
                    # the pool reconnects with back-off: the first answer may take seconds
                    lambda b=body: (
                        httpx.post(server.url + "/query", json=b, timeout=60).status_code == 200
                    ),
                    "answers once the database is back",
                )
    finally:
        database.stop()
