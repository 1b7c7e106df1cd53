"""The code in the README and the docs runs: every block marked ``<!-- runnable -->``.

A ``python`` block runs with the page's earlier runnable blocks (one namespace per page);
a ``sh`` block runs under ``bash -e`` with the ``ragkit`` command on the PATH. Each page
runs in its own empty folder holding a copy of ``datasets/bicycle-care``, with no
``GOOGLE_API_KEY`` and no ``RAGKIT_*`` settings (but the speed-only ones,
``tests.cli.helpers.SPEED_ONLY``), so the examples run offline.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import without_settings

REPO = Path(__file__).resolve().parents[2]
MARK = "<!-- runnable -->"
BLOCK = re.compile(r"^<!-- runnable -->\n```(\w+)\n(.*?)^```", re.M | re.S)
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def blocks(page: Path) -> list[tuple[str, str]]:
    text = page.read_text(encoding="utf-8")
    found = BLOCK.findall(text)
    assert len(found) == text.count(MARK), f"{page}: a {MARK} line not right above a code fence"
    return found


def run_page(page: Path, workdir: Path) -> str:
    """Runs the page's runnable blocks in ``workdir``; returns what they printed."""
    shutil.copytree(REPO / "datasets" / "bicycle-care", workdir / "datasets" / "bicycle-care")
    script = ["import os, sys", f"os.chdir({str(workdir)!r})"]
    for lang, code in blocks(page):
        if lang == "python":
            script.append(code)
        elif lang in ("sh", "bash"):
            script.append(f"_sh({code!r})")
        else:
            raise AssertionError(f"{page}: runnable block in {lang!r}; use python or sh")
    prelude = (
        "import subprocess\n"
        "def _sh(code):\n"
        "    out = subprocess.run(['bash', '-e', '-c', code], capture_output=True, text=True)\n"
        "    print(out.stdout, end='')\n"
        "    assert out.returncode == 0, out.stderr\n"
    )
    program = workdir / "page_examples.py"
    program.write_text(prelude + "\n".join(script) + "\n", encoding="utf-8")
    env = without_settings(("GOOGLE_API_KEY", "GEMINI_API_KEY"))
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = str(REPO)
    proc = subprocess.run(
        [sys.executable, str(program)],
        cwd=workdir,
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert proc.returncode == 0, f"{page}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


RUNNABLE = [p for p in PAGES if MARK in p.read_text(encoding="utf-8")]
# Pages whose examples took over ~2 s in a `make test` run (they build indexes with the local
# model, run evaluations or start servers); the others stay in `make test-fast`.
SLOW = {
    "README.md",
    "getting-started.md",
    "evaluation.md",
    "indexing.md",
    "loading.md",
    "openai-compatible.md",
    "postgres.md",
    "retrievers.md",
    "serving.md",
    "stores.md",
}
PARAMS = [pytest.param(p, marks=[pytest.mark.slow] if p.name in SLOW else []) for p in RUNNABLE]


@pytest.mark.integration
@pytest.mark.parametrize("page", PARAMS, ids=[str(p.relative_to(REPO)) for p in RUNNABLE])
def test_runnable_examples(page: Path, tmp_path: Path) -> None:
    out = run_page(page, tmp_path)
    if page.name == "README.md":
        # the shell quickstart found the puncture article, and so did the Python one
        assert out.count("bc02.md") >= 2, out
        assert "Take the wheel out, patch the tube or fit a spare [1]." in out
        assert (tmp_path / "bikes-index" / "ragkit.toml").is_file()


def test_every_guide_has_runnable_examples() -> None:
    """A guide runs its examples, or says why it cannot (``<!-- not runnable: REASON -->``)."""
    guides = sorted((REPO / "docs" / "guides").rglob("*.md"))
    assert len(guides) >= 10
    for guide in guides:
        excuse = re.search(r"<!-- not runnable: (\S.*?) -->", guide.read_text(encoding="utf-8"))
        assert blocks(guide) or excuse, f"{guide.name} has no runnable example and no reason"


def test_each_retrieval_technique_has_a_how_to_page_that_runs() -> None:
    """Issue 20: every technique of ragkit.techniques has its own how-to page with examples."""
    folder = REPO / "docs" / "guides" / "techniques"
    pages = {
        "decomposition.md": "DecompositionRetriever",
        "step-back.md": "StepBackRetriever",
        "hyde.md": "HypotheticalDocumentEmbedder",
        "logical-routing.md": "create_logical_router",
        "semantic-routing.md": "SemanticRouter",
        "text-to-sql.md": "create_sql_query_chain",
        "corrective-rag.md": "CorrectiveRAG",
        "self-rag.md": "SelfRAG",
    }
    index = (folder / "index.md").read_text(encoding="utf-8")
    for name, cls in pages.items():
        page = folder / name
        assert page.is_file() and f"]({name})" in index, name
        code = "\n".join(code for _, code in blocks(page))
        assert cls in code, f"{name}: no runnable example uses {cls}"
