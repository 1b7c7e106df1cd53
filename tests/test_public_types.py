"""mypy sees concrete types, not ``Any``, for the names a user imports from ragkit's packages.

The package ships ``py.typed``; its lazily loaded names reach type checkers through each
``__init__``'s TYPE_CHECKING mirror. This runs mypy on a small user script, as a user's
editor or CI would, and reads what ``reveal_type`` says.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import ragkit
from tests.test_package_exports import NO_EXPORTS, PACKAGES

REPO = Path(ragkit.__file__).parent.parent

USER_SCRIPT = """\
from ragkit import Document, Index, RunnableLambda
from ragkit.chains import LLMChain
from ragkit.embeddings import GoogleGenerativeAIEmbeddings, LocalEmbeddings
from ragkit.eval import load_beir
from ragkit.indexing import SQLRecordManager
from ragkit.loaders import DirectoryLoader
from ragkit.models import ChatGoogleGenerativeAI, FakeChatModel
from ragkit.retrievers import BM25Retriever, MultiQueryRetriever
from ragkit.splitters import RecursiveCharacterTextSplitter
from ragkit.stores import FaissStore, GoogleVectorStore
from ragkit.tools import Tool


def use(
    index: Index,
    doc: Document,
    lam: RunnableLambda,
    chain: LLMChain,
    local: LocalEmbeddings,
    google: GoogleGenerativeAIEmbeddings,
    records: SQLRecordManager,
    loader: DirectoryLoader,
    gemini: ChatGoogleGenerativeAI,
    fake: FakeChatModel,
    bm25: BM25Retriever,
    multi: MultiQueryRetriever,
    splitter: RecursiveCharacterTextSplitter,
    store: FaissStore,
    corpus: GoogleVectorStore,
    tool: Tool,
) -> None:
    reveal_type(index)
    reveal_type(doc)
    reveal_type(lam)
    reveal_type(chain)
    reveal_type(local)
    reveal_type(google)
    reveal_type(records)
    reveal_type(loader)
    reveal_type(gemini)
    reveal_type(fake)
    reveal_type(bm25)
    reveal_type(multi)
    reveal_type(splitter)
    reveal_type(store)
    reveal_type(corpus)
    reveal_type(tool)
    reveal_type(load_beir("datasets/bicycle-care"))
    reveal_type(index.retriever())
    reveal_type(store.similarity_search("q"))
"""

EXPECTED = [
    "ragkit.indexing.index_dir.Index",
    "ragkit.documents.Document",
    "ragkit.core.lambdas.RunnableLambda",
    "ragkit.chains.llm_chain.chain.LLMChain",
    "ragkit.embeddings.local.LocalEmbeddings",
    "ragkit.embeddings.google.GoogleGenerativeAIEmbeddings",
    "ragkit.indexing.record_manager.SQLRecordManager",
    "ragkit.loaders.directory.DirectoryLoader",
    "ragkit.models.google.ChatGoogleGenerativeAI",
    "ragkit.models.fake.FakeChatModel",
    "ragkit.retrievers.bm25.BM25Retriever",
    "ragkit.retrievers.multi_query.MultiQueryRetriever",
    "ragkit.splitters.recursive.RecursiveCharacterTextSplitter",
    "ragkit.stores.faiss.store.FaissStore",
    "ragkit.stores.google_vectorstore.GoogleVectorStore",
    "ragkit.tools.base.Tool",
    "ragkit.eval.beir.BeirDataset",
    "ragkit.retrievers.base.BaseRetriever",
    "list[ragkit.documents.Document]",
]


def run_mypy(folder: Path, scripts: dict[str, str]) -> str:
    """One mypy run on every script (``{file name: source}``) written into ``folder``; its
    lines name their file, so each test reads its own (mypy loads ragkit's types once)."""
    for name, script in scripts.items():
        (folder / name).write_text(script, encoding="utf-8")
    config = folder / "mypy.ini"  # the user's settings, not ragkit's own
    config.write_text("[mypy]\nignore_missing_imports = True\n", encoding="utf-8")
    env = {**os.environ, "MYPYPATH": str(REPO)}  # the source tree, as an installed wheel would be
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--no-incremental",
            "--cache-dir",
            os.devnull,
            "--config-file",
            str(config),
            "--follow-imports",
            "silent",  # errors inside ragkit are not the user's (make lint checks ragkit)
            "--python-version",
            "3.10",
            *scripts,
        ],
        capture_output=True,
        text=True,
        cwd=folder,
        env=env,
    )
    return out.stdout + out.stderr


def exports_script() -> tuple[str, list[str]]:
    """A script revealing every exported name (and importing a typo), and those names."""
    lines = []
    names = []
    for i, package in enumerate(p for p in PACKAGES if p not in NO_EXPORTS):
        lines.append(f"import {package} as m{i}")
        for name in importlib.import_module(package).__all__:
            lines.append(f"reveal_type(m{i}.{name})")
            names.append(f"{package}.{name}")
    lines.append("from ragkit.stores import FaissStor")  # mypy must reject it, not say Any
    return "\n".join(lines) + "\n", names


@pytest.fixture(scope="module")
def mypy_output(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[str]]:
    """mypy's output on both scripts (user_script.py, exports_script.py), and the names the
    second reveals."""
    script, names = exports_script()
    folder = tmp_path_factory.mktemp("mypy")
    scripts = {"user_script.py": USER_SCRIPT, "exports_script.py": script}
    return run_mypy(folder, scripts), names


def of_file(output: str, name: str) -> str:
    """The lines of mypy's output about file ``name``, and those about no file (such as a
    crash or a bad option), minus the summary line."""
    others = ("user_script.py:", "exports_script.py:")
    kept = [
        line
        for line in output.splitlines()
        if line.startswith(name + ":")
        or (not line.startswith(others) and not re.match(r"Found \d+ errors? in 1 file", line))
    ]
    return "\n".join(kept)


def revealed(output: str) -> list[str]:
    return re.findall(r'Revealed type is "(.*)"', output)


@pytest.mark.slow
def test_mypy_sees_concrete_types_for_public_names(mypy_output: tuple[str, list[str]]) -> None:
    output = of_file(mypy_output[0], "user_script.py")
    assert "error" not in output, mypy_output[0]
    assert revealed(output) == EXPECTED, mypy_output[0]


@pytest.mark.slow
def test_every_exported_name_is_typed_and_a_typo_is_an_error(
    mypy_output: tuple[str, list[str]],
) -> None:
    output = of_file(mypy_output[0], "exports_script.py")
    names = mypy_output[1]
    types = revealed(output)
    assert len(types) == len(names), output
    untyped = [name for name, t in zip(names, types) if t == "Any"]
    assert not untyped, f"mypy sees these public names as Any: {untyped}"
    assert 'Module "ragkit.stores" has no attribute "FaissStor"' in output, output
