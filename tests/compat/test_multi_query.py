"""LangChain's "How to use the MultiQueryRetriever", run on LangChain and on ragkit.

Source: https://python.langchain.com/docs/how_to/MultiQueryRetriever/ (repository path
``docs/docs/how_to/MultiQueryRetriever.ipynb`` in langchain-ai/langchain): "Simple usage"
(``MultiQueryRetriever.from_llm`` with the queries logged at INFO) and "Supplying your own
prompt" (a ``LineListOutputParser(BaseOutputParser[List[str]])``, ``QUERY_PROMPT | llm |
output_parser`` as ``llm_chain``, ``parser_key="lines"``).

Replaced, minimally: the blog post is served on loopback; ``Chroma`` is
``InMemoryVectorStore``; ``OpenAIEmbeddings()`` is the shared local model; ``ChatOpenAI`` is a
fake chat model that replies with the queries shown on the page.

Deliberate difference (docs/migration.md, "Retrievers"): ``from_llm`` reads the model's list
itself and drops the numbering, so ragkit searches "How can ..." where LangChain searches
"1. How can ...".
"""

from __future__ import annotations

import logging

import pytest

from tests.compat.snippet import Snippet

VECTORDB = """
    loader = WebBaseLoader(blog_url)
    data = loader.load()

    # Split
    text_splitter = RecursiveCharacterTextSplitter(chunk_size=500, chunk_overlap=0)
    splits = text_splitter.split_documents(data)

    # VectorDB
    embedding = embeddings
    vectordb = InMemoryVectorStore.from_documents(documents=splits, embedding=embedding)
"""

SIMPLE_USAGE = Snippet(
    langchain="""
        from langchain_classic.retrievers.multi_query import MultiQueryRetriever
        from langchain_community.document_loaders import WebBaseLoader
        from langchain_core.language_models.fake_chat_models import FakeListChatModel as FakeChat
        from langchain_core.vectorstores import InMemoryVectorStore
        from langchain_text_splitters import RecursiveCharacterTextSplitter
    """,
    ragkit="""
        from ragkit.retrievers import MultiQueryRetriever
        from ragkit.loaders import WebBaseLoader
        from ragkit.models import FakeChatModel as FakeChat
        from ragkit.stores import InMemoryVectorStore
        from ragkit.splitters import RecursiveCharacterTextSplitter
    """,
    body=VECTORDB
    + """
    question = "What are the approaches to Task Decomposition?"
    llm = FakeChat(responses=[MODEL_REPLY])
    retriever_from_llm = MultiQueryRetriever.from_llm(
        retriever=vectordb.as_retriever(), llm=llm
    )

    # Set logging for the queries
    import logging

    logging.basicConfig()
    logging.getLogger("langchain.retrievers.multi_query").setLevel(logging.INFO)

    unique_docs = retriever_from_llm.invoke(question)
    """,
)

MODEL_REPLY = (
    "1. How can Task Decomposition be achieved through various methods?\n"
    "2. What strategies can be used for breaking down tasks in Task Decomposition?\n"
    "3. What are the different techniques available for approaching Task Decomposition?"
)

OWN_PROMPT = Snippet(
    langchain="""
        from langchain_classic.retrievers.multi_query import MultiQueryRetriever
        from langchain_community.document_loaders import WebBaseLoader
        from langchain_core.language_models.fake_chat_models import FakeListChatModel as FakeChat
        from langchain_core.vectorstores import InMemoryVectorStore
        from langchain_text_splitters import RecursiveCharacterTextSplitter
        from langchain_core.output_parsers import BaseOutputParser
        from langchain_core.prompts import PromptTemplate
    """,
    ragkit="""
        from ragkit.retrievers import MultiQueryRetriever
        from ragkit.loaders import WebBaseLoader
        from ragkit.models import FakeChatModel as FakeChat
        from ragkit.stores import InMemoryVectorStore
        from ragkit.splitters import RecursiveCharacterTextSplitter
        from ragkit.parsers import BaseOutputParser
        from ragkit.prompts import PromptTemplate
    """,
    body=VECTORDB
    + '''
    from typing import List

    from pydantic import BaseModel, Field


    # Output parser will split the LLM result into a list of queries
    class LineListOutputParser(BaseOutputParser[List[str]]):
        """Output parser for a list of lines."""

        def parse(self, text: str) -> List[str]:
            lines = text.strip().split("\\n")
            return list(filter(None, lines))  # Remove empty lines


    output_parser = LineListOutputParser()

    QUERY_PROMPT = PromptTemplate(
        input_variables=["question"],
        template="""You are an AI language model assistant. Your task is to generate five
        different versions of the given user question to retrieve relevant documents from a vector
        database. By generating multiple perspectives on the user question, your goal is to help
        the user overcome some of the limitations of the distance-based similarity search.
        Provide these alternative questions separated by newlines.
        Original question: {question}""",
    )
    llm = FakeChat(responses=[MODEL_REPLY])

    # Chain
    llm_chain = QUERY_PROMPT | llm | output_parser

    # Run
    retriever = MultiQueryRetriever(
        retriever=vectordb.as_retriever(), llm_chain=llm_chain, parser_key="lines"
    )  # "lines" is the key (attribute name) of the parsed output

    # Results
    unique_docs = retriever.invoke("What does the course say about regression?")
    ''',
)

# LangChain 1.x logs under langchain_classic's module name; ragkit under the name the page sets.
LOGGERS = ("langchain.retrievers.multi_query", "langchain_classic.retrievers.multi_query")


@pytest.fixture(autouse=True)
def _restore_logging():
    """The page's ``setLevel(logging.INFO)`` and ``basicConfig()`` are process-wide: undone
    after each test, so later tests see the loggers as they were (the multi-query retriever
    picks its logger by which one is enabled)."""
    root = logging.getLogger()
    handlers = list(root.handlers)
    levels = {name: logging.getLogger(name).level for name in LOGGERS}
    yield
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)
    for handler in root.handlers[:]:
        if handler not in handlers:
            root.removeHandler(handler)


def _generated(caplog: pytest.LogCaptureFixture) -> list[str]:
    found = [r.getMessage() for r in caplog.records if r.name in LOGGERS]
    caplog.clear()
    return found


def _contents(docs) -> list[str]:
    return sorted(d.page_content for d in docs)


def test_simple_usage_finds_the_same_documents(blog_url, local_model, caplog) -> None:
    given = {"blog_url": blog_url, "embeddings": local_model, "MODEL_REPLY": MODEL_REPLY}
    with caplog.at_level(logging.INFO):
        lc = SIMPLE_USAGE.run("langchain", **given)
        lc_log = _generated(caplog)
        rk = SIMPLE_USAGE.run("ragkit", **given)
        rk_log = _generated(caplog)
    assert _contents(rk["unique_docs"]) == _contents(lc["unique_docs"])
    assert len(rk["unique_docs"]) > 1
    # both log the generated queries at INFO; deliberate difference: ragkit drops "1. "
    assert lc_log == [f"Generated queries: {MODEL_REPLY.splitlines()}"]
    assert rk_log == [f"Generated queries: {[q[3:] for q in MODEL_REPLY.splitlines()]}"]


def test_own_prompt_and_line_list_parser_search_the_same_queries(
    blog_url, local_model, caplog
) -> None:
    given = {"blog_url": blog_url, "embeddings": local_model, "MODEL_REPLY": MODEL_REPLY}
    with caplog.at_level(logging.INFO):
        lc = OWN_PROMPT.run("langchain", **given)
        lc_log = _generated(caplog)
        rk = OWN_PROMPT.run("ragkit", **given)
        rk_log = _generated(caplog)
    assert rk_log == lc_log == [f"Generated queries: {MODEL_REPLY.splitlines()}"]
    assert _contents(rk["unique_docs"]) == _contents(lc["unique_docs"])
    assert rk["llm_chain"].invoke({"question": "q"}) == MODEL_REPLY.splitlines()
