"""The compatibility suite is what it claims to be (issue 13, "What it must show").

- at least 20 snippets, each a :class:`~tests.compat.snippet.Snippet` with a LangChain and a
  ragkit import block, and each run on both sides by a test of its file;
- every file's docstring cites the page(s) it ports, and together they cover the tutorials
  and how-to guides the issue lists;
- every deliberate difference a file names points at a section of docs/migration.md.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

from tests.compat.snippet import Snippet, strip_scores

HERE = Path(__file__).resolve().parent
GUIDE = HERE.parents[1] / "docs" / "migration.md"
FILES = sorted(p for p in HERE.glob("test_*.py") if p.name != Path(__file__).name)

# The pages of issues 13 and 25, each by a piece of the address (or title) its file cites.
ISSUE_PAGES = {
    "RAG tutorial": "docs/tutorials/rag/",
    "conversational RAG": "qa_chat_history",
    "multi-query": "how_to/MultiQueryRetriever/",
    "parent-document": "how_to/parent_document_retriever/",
    "ensemble": "how_to/ensemble_retriever/",
    "code splitter": "how_to/code_splitter/",
    "markdown splitter": "how_to/markdown_header_metadata_splitter/",
    "structured output": "how_to/structured_output/",
    "message history": "how_to/message_history/",
    "astream_events": "how_to/streaming/",
    "Gemini PDF chat": "Chat with PDF using Gemini",
    "contextual compression": "how_to/contextual_compression/",
    "self-query": "how_to/self_query/",
    "time-weighted": "how_to/time_weighted_vectorstore/",
    "multi-vector": "how_to/multi_vector/",
    "Gemini tool calling": "integrations/chat/google_generative_ai/",
    # issue 25's pages
    "custom LLM": "how_to/custom_llm/",
    "custom chat model": "how_to/custom_chat_model/",
    "custom tools": "how_to/custom_tools/",
    "runnables as tools": "how_to/convert_runnable_to_tool/",
    "classic ReAct agent": "agent_types/react/",
    "output parsers": "how_to/output_parser_structured/",
    "few-shot chat prompts": "how_to/few_shot_examples_chat/",
    "example selectors": "how_to/example_selectors_length_based/",
    "LLM quick start": "model_io/llms/quick_start/",
    "HyDE": "techniques/hyde/",
    "step-back": "techniques/step_back/",
    "routing": "how_to/routing/",
    "SQL Q&A": "tutorials/sql_qa/",
    "configurable runnables": "how_to/configure/",
    "fallbacks": "how_to/fallbacks/",
    "parallel": "how_to/parallel/",
    "trim_messages": "how_to/trim_messages/",
    "indexing": "how_to/indexing/",
}


def _snippets() -> list[tuple[Path, str, Snippet]]:
    found = []
    for path in FILES:
        module = importlib.import_module(f"tests.compat.{path.stem}")
        for name, value in vars(module).items():
            if isinstance(value, Snippet):
                found.append((path, name, value))
    return found


SNIPPETS = _snippets()


def test_at_least_twenty_snippets() -> None:
    assert len(SNIPPETS) >= 20, [name for _, name, _ in SNIPPETS]


@pytest.mark.parametrize(
    ("path", "name", "snippet"), SNIPPETS, ids=[f"{p.stem}.{n}" for p, n, _ in SNIPPETS]
)
def test_each_snippet_has_both_import_blocks_and_runs_on_both_sides(
    path: Path, name: str, snippet: Snippet
) -> None:
    for side, root in (
        ("langchain", ("langchain", "langgraph", "tests.compat.shared")),
        ("ragkit", ("ragkit",)),
    ):
        lines = [line.strip() for line in snippet.source(side).split("\n\n", 1)[0].splitlines()]
        modules = [line.split()[1] for line in lines if line.startswith("from ")]
        assert modules, f"{name}: no {side} imports"
        allowed = {
            "bs4",
            "operator",
            "pydantic",
            "typing",
            "typing_extensions",
        }  # not LangChain's, not ours
        assert all(m.split(".")[0] in allowed or m.startswith(root) for m in modules)
    source = path.read_text(encoding="utf-8")
    both = f"{name}.run_both(" in source
    each = f'{name}.run("langchain"' in source and f'{name}.run("ragkit"' in source
    assert both or each, f"{path.name}: no test runs {name} under both imports"


def _docstring(path: Path) -> str:
    module = importlib.import_module(f"tests.compat.{path.stem}")
    return module.__doc__ or ""


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_file_cites_its_pages(path: Path) -> None:
    assert re.search(r"Sources?:\s", _docstring(path)), path.name
    assert "https://" in _docstring(path), path.name


def test_the_pages_of_the_issue_are_all_ported() -> None:
    cited = " ".join(" ".join(_docstring(p).split()) for p in FILES)
    missing = [page for page, where in ISSUE_PAGES.items() if where not in cited]
    assert missing == []


def test_each_named_difference_is_a_section_of_the_migration_guide() -> None:
    headings = [
        line.lstrip("#").strip()
        for line in GUIDE.read_text("utf-8").splitlines()
        if line[:1] == "#"
    ]
    sources = {p.name: " ".join(p.read_text(encoding="utf-8").split()) for p in FILES}
    sources["snippet.py (strip_scores)"] = " ".join(inspect.getsource(strip_scores).split())
    named = []
    for file, text in sources.items():
        sections = re.findall(r'docs/migration\.md, "([^"]+)"', text)
        # a file that says "deliberate" names its section, or leaves it to strip_scores
        if "deliberate" in text.lower():
            assert sections or "strip_scores(" in text, f"{file}: difference with no section"
        named += [(file, section) for section in sections]
    assert len(named) >= 7
    for file, section in named:
        assert any(h.startswith(section) for h in headings), f"{file}: no section {section!r}"
