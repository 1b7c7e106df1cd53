"""The documentation site builds strictly, offline, and documents every public name."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
PACKAGES = (
    "core documents messages prompts parsers models embeddings loaders splitters stores "
    "retrievers chains tools indexing querying serve eval errors llms example_selectors agents techniques "
    "tracing"
).split()


def _build(site: Path, config: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)]
    if config is not None:
        cmd += ["--config-file", str(config)]
    return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, env=env, timeout=600)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    proc = _build(out)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out


@pytest.mark.slow
def test_every_page_is_built(site: Path) -> None:
    pages = sorted(p.relative_to(REPO / "docs") for p in (REPO / "docs").rglob("*.md"))
    assert len(pages) >= 30
    for page in pages:
        assert (site / page.with_suffix(".html")).is_file(), page


@pytest.mark.slow
def test_every_public_name_is_in_the_api_reference(site: Path) -> None:
    for package in ["ragkit", *(f"ragkit.{p}" for p in PACKAGES)]:
        page = "ragkit" if package == "ragkit" else package.split(".")[1]
        html = (site / "reference" / f"{page}.html").read_text(encoding="utf-8")
        module = importlib.import_module(package)
        names = getattr(module, "__all__", None) or [
            n
            for n, v in vars(module).items()
            if not n.startswith("_") and getattr(v, "__module__", "") == package
        ]
        assert names, package
        anchors = set(re.findall(r'id="([\w.]+)"', html))
        missing = [n for n in names if not any(a.endswith(f".{n}") for a in anchors)]
        assert not missing, f"{package}: not in reference/{page}.md: {missing}"


@pytest.mark.slow
def test_the_site_fetches_nothing(site: Path) -> None:
    """No page loads a web font, a CDN script or stylesheet: the site works offline."""
    remote = re.compile(r'(?:src|href)="(?:https?:)?//(?!ragkit)[^"]*\.(?:js|css|woff2?)"')
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "fonts.googleapis" not in text and "fonts.gstatic" not in text, page
        assert not remote.search(text), (page, remote.search(text))


@pytest.mark.slow
def test_a_page_missing_from_nav_fails_the_build(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nSee [the guide](guide.md).\n", encoding="utf-8")
    (docs / "guide.md").write_text("# Guide\n", encoding="utf-8")
    (docs / "orphan.md").write_text("# Orphan\n", encoding="utf-8")
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    config = {k: config[k] for k in ("site_name", "theme", "markdown_extensions", "validation")}
    config["plugins"] = ["search", "offline"]
    config["docs_dir"] = str(docs)
    config["nav"] = [{"Home": "index.md"}, {"Guide": "guide.md"}]
    path = tmp_path / "mkdocs.yml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    proc = _build(tmp_path / "site", path)
    assert proc.returncode != 0 and "orphan.md" in proc.stderr

    (docs / "orphan.md").unlink()
    (docs / "index.md").write_text("# Home\n\nSee [the guide](gone.md).\n", encoding="utf-8")
    proc = _build(tmp_path / "site", path)
    assert proc.returncode != 0 and "gone.md" in proc.stderr

    (docs / "index.md").write_text("# Home\n\nSee [the guide](guide.md).\n", encoding="utf-8")
    assert _build(tmp_path / "site", path).returncode == 0
