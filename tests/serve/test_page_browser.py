"""The web page in a real headless browser: Debian's chromium driven by Playwright (no browser
is downloaded). Screenshots go to tests/artifacts/serve/ (git-ignored); the README's picture,
docs/images/serve-page.png, is page-answer.png from a run of these tests (copy it to refresh it).

The page runs under its own Content-Security-Policy (no inline or eval'd script), so the tests
wait with selectors, which Playwright evaluates outside the page's script world."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragkit.models import FakeChatModel
from ragkit.serve import ServeSettings, create_app
from ragkit.serve.settings import hash_keys
from tests.serve.helpers import ARTIFACTS, REPO, ServerThread

pytestmark = pytest.mark.integration

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ANSWER = (
    "Patch the tube where the bubbles rise [1], and check the tyre for the thorn that caused "
    "the puncture [1][2]. Carry a spare tube on long rides [3]."
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    assert Path(CHROMIUM).exists(), "Debian's chromium is missing: run `make setup` (apt-get)"
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="ragkit-chromium-")  # a fresh --user-data-dir
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            viewport={"width": 1100, "height": 1000},
            service_workers="block",
        )
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)


def shoot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 10_000
    return path


@pytest.mark.slow
def test_search_stream_an_answer_and_follow_a_citation(browser, bike):
    model = FakeChatModel([ANSWER], sleep=0.02)
    with ServerThread(create_app(bike[1], llm=model)) as server:
        page = browser.new_page()
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url + "/")
        page.wait_for_selector("#retriever option", state="attached")
        assert "50 chunks from 50 documents" in page.inner_text("#index-info")
        assert page.is_hidden("#key-box") and page.is_hidden("#answer-box")
        options = page.eval_on_selector_all("#retriever option", "os => os.map(o => o.value)")
        assert options == ["bm25", "hybrid", "mmr", "multi-query", "parent", "similarity"]
        page.select_option("#retriever", "bm25")
        page.fill("#k", "3")
        page.fill("#q", "how do I fix a flat tyre puncture")
        page.click("#go")
        page.wait_for_selector("body[data-state=done]")
        # ranked passages with their source and the query terms highlighted
        items = page.query_selector_all("#passages li")
        assert len(items) == 3
        assert page.inner_text("#passage-1 .source") == "bc02.md"
        marks = {
            m.lower()
            for m in page.eval_on_selector_all("#passages mark", "ms => ms.map(m => m.textContent)")
        }
        assert {"flat", "tyre", "puncture"} <= marks
        # the streamed answer, with [n] citations linking to passages n
        assert page.inner_text("#answer") == ANSWER
        links = page.eval_on_selector_all(
            "#answer a.cite", "as => as.map(a => a.getAttribute('href'))"
        )
        assert links == ["#passage-1", "#passage-1", "#passage-2", "#passage-3"]
        shoot(page, "page-answer.png")
        page.click("#answer a.cite >> nth=2")
        assert page.evaluate("location.hash") == "#passage-2"
        assert page.evaluate("document.querySelector(':target').id") == "passage-2"
        # everything the page loaded came from this server: it works offline
        assert requests and all(u.startswith(server.url + "/") for u in requests)
        assert errors == []
        page.close()


@pytest.mark.slow
def test_streaming_shows_tokens_before_the_end(browser, bike):
    model = FakeChatModel([" ".join(f"w{i}" for i in range(60))], sleep=0.1)
    with ServerThread(create_app(bike[1], llm=model)) as server:
        page = browser.new_page()
        page.goto(server.url + "/")
        page.wait_for_selector("#retriever option", state="attached")
        page.fill("#q", "brake pads")
        page.click("#go")
        page.locator("#answer", has_text="w3").wait_for()
        partial = page.inner_text("#answer")
        assert "w3" in partial and "w59" not in partial  # tokens arrive while it is still running
        page.wait_for_selector("body[data-state=done]", timeout=30_000)
        assert page.inner_text("#answer").endswith("w59")
        page.close()


def test_without_a_model_it_shows_passages_and_says_why(browser, bike):
    with ServerThread(create_app(bike[1])) as server:
        page = browser.new_page()
        page.goto(server.url + "/")
        page.wait_for_selector("#retriever option", state="attached")
        assert page.inner_text("#go") == "Search"
        page.fill("#q", "chain lubrication")
        page.press("#q", "Enter")
        page.wait_for_selector("body[data-state=done]")
        assert len(page.query_selector_all("#passages li")) == 4
        assert "GOOGLE_API_KEY" in page.inner_text("#notice")
        shoot(page, "page-passages.png")
        page.close()


def test_a_server_with_keys_asks_for_one(browser, bike):
    key = "page-key-" + "z" * 16
    settings = ServeSettings(api_keys=hash_keys([key]))
    with ServerThread(create_app(bike[1], settings=settings)) as server:
        page = browser.new_page()
        page.goto(server.url + "/")
        page.wait_for_selector("#key-box:not([hidden])")
        page.fill("#api-key", key)
        page.click("#save-key")
        page.wait_for_selector("#retriever option", state="attached")
        page.fill("#q", "saddle height")
        page.click("#go")
        page.wait_for_selector("body[data-state=done]")
        assert len(page.query_selector_all("#passages li")) == 4
        page.close()


def test_errors_show_on_the_page(browser, bike):
    with ServerThread(create_app(bike[1], settings=ServeSettings(max_k=5))) as server:
        page = browser.new_page()
        page.goto(server.url + "/")
        page.wait_for_selector("#retriever option", state="attached")
        page.evaluate("document.getElementById('k').removeAttribute('max')")
        page.fill("#k", "9")
        page.fill("#q", "brakes")
        page.click("#go")
        page.wait_for_selector("body[data-state=done]")
        assert "over this server's limit of 5" in page.inner_text("#status")
        page.close()


def test_the_api_docs_page_renders_offline(browser, bike):
    with ServerThread(create_app(bike[1])) as server:
        page = browser.new_page()
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.goto(server.url + "/docs")
        page.wait_for_selector("#routes section h2")
        titles = [h.inner_text() for h in page.query_selector_all("#routes section h2")]
        for route in ("POST /query", "POST /ask", "GET /info", "POST /retriever/invoke"):
            assert route in titles
        assert all(u.startswith(server.url + "/") for u in requests)
        page.close()


def test_the_readme_shows_a_screenshot_of_the_page():
    import struct

    assert "![ragkit serve: the search page](docs/images/serve-page.png)" in (
        REPO / "README.md"
    ).read_text(encoding="utf-8")
    data = (REPO / "docs" / "images" / "serve-page.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    width, height = struct.unpack(">II", data[16:24])
    assert width == 1100 and height >= 1000  # shot at the viewport these tests use
