"""API keys, CORS and logs on a real `ragkit serve`: keys are required where they should be,
compared in constant time, and never written to the log; CORS is off unless asked for."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from ragkit.errors import ConfigurationError
from ragkit.serve.settings import ServeSettings, hash_keys, load_api_keys
from tests.cli.helpers import ragkit
from tests.serve.helpers import cli_server

pytestmark = pytest.mark.integration

KEY = "s3cret-key-" + "a" * 20
OTHER = "second-key-" + "b" * 20
WRONG = "wrong-key-" + "c" * 20


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    path = tmp_path / "keys.txt"
    path.write_text(f"# team keys\n{KEY}\n\n{OTHER}\n", encoding="utf-8")
    path.chmod(0o600)
    return path


def test_keys_guard_the_data_routes_and_never_reach_the_log(bike, key_file, tmp_path):
    log = tmp_path / "server.log"
    with cli_server(bike[1], "--api-key-file", key_file, "--log-level", "debug", log=log) as (
        url,
        _,
    ):
        body = {"query": "brake pads", "k": 2}
        for route in ("/query", "/ask", "/retriever/invoke"):
            payload = (
                body
                if route == "/query"
                else {"question": "x"}
                if route == "/ask"
                else {"input": "x"}
            )
            none = httpx.post(url + route, json=payload)
            assert none.status_code == 401 and none.json()["error"]["code"] == "unauthorized"
            assert none.headers["www-authenticate"].startswith("Bearer")
        assert httpx.get(url + "/info").status_code == 401
        # a key in the query string is refused, and the access log shows the path only
        assert httpx.get(url + f"/info?api_key={KEY}").status_code == 401
        assert httpx.post(url + f"/query?token={OTHER}&x=1", json=body).status_code == 401
        for headers in (
            {"authorization": f"Bearer {WRONG}"},
            {"x-api-key": WRONG},
            {"x-api-key": KEY[:-1]},
            {"authorization": KEY},
            {"x-api-key": ""},
        ):
            assert httpx.post(url + "/query", json=body, headers=headers).status_code == 401
        for headers in ({"authorization": f"Bearer {KEY}"}, {"x-api-key": OTHER}):
            ok = httpx.post(url + "/query", json=body, headers=headers)
            assert ok.status_code == 200 and len(ok.json()["results"]) == 2
        # the page, its assets, the docs and the health check hold no data: open
        for route in ("/", "/static/app.js", "/docs", "/openapi.json", "/healthz"):
            assert httpx.get(url + route).status_code == 200, route
        info = httpx.get(url + "/info", headers={"x-api-key": KEY}).json()
        assert info["api_key_required"] is True
    text = log.read_text(errors="replace")
    assert '"POST /query HTTP/1.1" 401' in text and '"POST /query HTTP/1.1" 200' in text
    assert '"GET /info?… HTTP/1.1" 401' in text and '"POST /query?… HTTP/1.1" 401' in text
    for secret in (KEY, OTHER, WRONG, KEY[:-1]):
        assert secret not in text
    assert "API key required" in text  # the start-up line says so, without the key


@pytest.mark.slow
def test_workers_get_no_key_in_their_log_environment_or_command_line(bike, key_file, tmp_path):
    log = tmp_path / "workers.log"
    args = [bike[1], "--workers", "2", "--api-key-file", key_file, "--log-level", "debug"]
    with cli_server(*args, log=log) as (url, proc):
        pids = {proc.pid}
        for _ in range(300):  # new connections reach either worker
            pids.add(httpx.get(url + "/healthz").json()["pid"])
            if len(pids) == 3:
                break
        assert len(pids) == 3
        body = {"query": "brake pads", "k": 1}
        for key in (KEY, WRONG, OTHER):
            httpx.post(url + "/query", json=body, headers={"x-api-key": key})
        ok = httpx.post(url + "/query", json=body, headers={"authorization": f"Bearer {OTHER}"})
        assert ok.status_code == 200
        for pid in pids:  # what other local users' tools (ps, /proc) could see
            for part in ("environ", "cmdline"):
                seen = Path(f"/proc/{pid}/{part}").read_bytes()
                assert seen, (pid, part)
                for secret in (KEY, OTHER):
                    assert secret.encode() not in seen, (pid, part)
    text = log.read_text(errors="replace")
    assert text.count('"POST /query HTTP/1.1" 401') == 1
    for secret in (KEY, OTHER, WRONG):
        assert secret not in text


@pytest.mark.slow
def test_cors_is_off_by_default_and_on_for_named_origins(bike):
    preflight = {
        "origin": "http://example.test",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
    }
    with cli_server(bike[1]) as (url, _):
        reply = httpx.options(url + "/query", headers=preflight)
        assert "access-control-allow-origin" not in reply.headers
        post = httpx.post(
            url + "/query", json={"query": "x"}, headers={"origin": "http://example.test"}
        )
        assert "access-control-allow-origin" not in post.headers
    with cli_server(bike[1], "--cors-origin", "http://example.test") as (url, _):
        reply = httpx.options(url + "/query", headers=preflight)
        assert reply.status_code == 200
        assert reply.headers["access-control-allow-origin"] == "http://example.test"
        other = httpx.options(url + "/query", headers={**preflight, "origin": "http://evil.test"})
        assert other.headers.get("access-control-allow-origin") != "http://evil.test"


def test_key_files_are_checked_without_showing_keys(tmp_path):
    short = tmp_path / "short.txt"
    short.write_text("# ok\nabc123\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"short\.txt, line 2") as info:
        load_api_keys(short)
    assert "abc123" not in str(info.value)
    spaced = tmp_path / "spaced.txt"
    spaced.write_text(f"{KEY} trailing words\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="line 1") as info:
        load_api_keys(spaced)
    assert KEY not in str(info.value)
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="holds no key"):
        load_api_keys(empty)
    with pytest.raises(ConfigurationError, match="no such file"):
        load_api_keys(tmp_path / "missing.txt")
    # a key no header can carry (headers are Latin-1 bytes) is refused, not kept to never match
    accented = "clé-secrète-" + "d" * 20
    wide = tmp_path / "accented.txt"
    wide.write_text(f"{KEY}\n{accented}\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="line 2: a key must be printable ASCII") as info:
        load_api_keys(wide)
    assert accented not in str(info.value)
    with pytest.raises(ConfigurationError, match="API key 2 is not printable ASCII") as info:
        hash_keys([KEY, accented])
    assert accented not in str(info.value)
    # the command says the same and exits 2, before opening a port
    proc = ragkit("serve", str(tmp_path), "--api-key-file", short)
    assert proc.returncode == 2 and "line 2" in proc.stderr and "abc123" not in proc.stderr
    proc = ragkit("serve", str(tmp_path), "--api-key-file", wide)
    assert proc.returncode == 2 and "printable ASCII" in proc.stderr
    assert accented not in proc.stderr


def test_every_key_is_compared_in_constant_time(monkeypatch):
    """hmac.compare_digest on equal-length digests, once per key, whichever key matches."""
    import hmac

    calls: list[tuple[int, int]] = []
    real = hmac.compare_digest

    def counting(a: bytes, b: bytes) -> bool:
        calls.append((len(a), len(b)))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", counting)
    keys = [KEY, OTHER, "third-key-" + "d" * 20]
    settings = ServeSettings(api_keys=hash_keys(keys))
    for presented, expected in ((KEY, True), (keys[-1], True), (WRONG, False), ("x", False)):
        calls.clear()
        assert settings.key_matches(presented) is expected
        assert calls == [(32, 32)] * 3, presented  # no early exit, no length leak


def test_settings_keep_only_digests_and_compare_every_key():
    settings = ServeSettings(api_keys=hash_keys([KEY, OTHER]))
    assert KEY not in repr(settings) and KEY.encode() not in b"".join(settings.api_keys)
    assert settings.key_matches(KEY) and settings.key_matches(OTHER)
    assert not settings.key_matches(WRONG) and not settings.key_matches(None)
    assert not settings.key_matches("")
    assert KEY not in str(settings.to_env())
    assert ServeSettings.from_env(settings.to_env()) == settings
    assert ServeSettings().key_matches(None)  # no keys: open
