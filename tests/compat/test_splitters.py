"""LangChain's "How to split code" and "How to split Markdown by headers", on both libraries.

Sources:
- https://python.langchain.com/docs/how_to/code_splitter/ (repository path
  ``docs/docs/how_to/code_splitter.ipynb`` in langchain-ai/langchain): the language list,
  ``get_separators_for_language(Language.PYTHON)``, and the Python, JS, TS, Markdown and LaTeX
  examples with ``RecursiveCharacterTextSplitter.from_language``.
- https://python.langchain.com/docs/how_to/markdown_header_metadata_splitter/ (repository
  path ``docs/docs/how_to/markdown_header_metadata_splitter.ipynb``): basic usage,
  ``strip_headers=False``, ``return_each_line=True``, and "Constrain chunk size" (header splits
  then a ``RecursiveCharacterTextSplitter(chunk_size=250, chunk_overlap=30)``).

Nothing replaced: these snippets have no external parts.
"""

from __future__ import annotations

from tests.compat.snippet import Snippet, plain

CODE = Snippet(
    langchain="""
        from langchain_text_splitters import (
            Language,
            RecursiveCharacterTextSplitter,
        )
    """,
    ragkit="""
        from ragkit.splitters import (
            Language,
            RecursiveCharacterTextSplitter,
        )
    """,
    body='''
        languages = [e.value for e in Language]
        python_separators = RecursiveCharacterTextSplitter.get_separators_for_language(
            Language.PYTHON
        )

        PYTHON_CODE = """
        def hello_world():
            print("Hello, World!")

        # Call the function
        hello_world()
        """
        python_splitter = RecursiveCharacterTextSplitter.from_language(
            language=Language.PYTHON, chunk_size=50, chunk_overlap=0
        )
        python_docs = python_splitter.create_documents([PYTHON_CODE])

        JS_CODE = """
        function helloWorld() {
          console.log("Hello, World!");
        }

        // Call the function
        helloWorld();
        """

        js_splitter = RecursiveCharacterTextSplitter.from_language(
            language=Language.JS, chunk_size=60, chunk_overlap=0
        )
        js_docs = js_splitter.create_documents([JS_CODE])

        TS_CODE = """
        function helloWorld(): void {
          console.log("Hello, World!");
        }

        // Call the function
        helloWorld();
        """

        ts_splitter = RecursiveCharacterTextSplitter.from_language(
            language=Language.TS, chunk_size=60, chunk_overlap=0
        )
        ts_docs = ts_splitter.create_documents([TS_CODE])

        markdown_text = """
        # 🦜️🔗 LangChain

        ⚡ Building applications with LLMs through composability ⚡

        ## Quick Install

        ```bash
        # Hopefully this code block isn't split
        pip install langchain
        ```

        As an open-source project in a rapidly developing field, we are extremely open to contributions.
        """
        md_splitter = RecursiveCharacterTextSplitter.from_language(
            language=Language.MARKDOWN, chunk_size=60, chunk_overlap=0
        )
        md_docs = md_splitter.create_documents([markdown_text])

        latex_text = """
        \\\\documentclass{article}

        \\\\begin{document}

        \\\\maketitle

        \\\\section{Introduction}
        Large language models (LLMs) are a type of machine learning model that can be trained on vast amounts of text data to generate human-like language. In recent years, LLMs have made significant advances in a variety of natural language processing tasks, including language translation, text generation, and sentiment analysis.

        \\\\subsection{History of LLMs}
        The earliest LLMs were developed in the 1980s and 1990s, but they were limited by the amount of data that could be processed and the computational power available at the time. In the past decade, however, advances in hardware and software have made it possible to train LLMs on massive datasets, leading to significant improvements in performance.

        \\\\subsection{Applications of LLMs}
        LLMs have many applications in industry, including chatbots, content creation, and virtual assistants. They can also be used in academia for research in linguistics, psychology, and computational linguistics.

        \\\\end{document}
        """
        latex_splitter = RecursiveCharacterTextSplitter.from_language(
            language=Language.LATEX, chunk_size=60, chunk_overlap=0
        )
        latex_docs = latex_splitter.create_documents([latex_text])
    ''',
)

MARKDOWN_HEADERS = Snippet(
    langchain="""
        from langchain_text_splitters import MarkdownHeaderTextSplitter
        from langchain_text_splitters import RecursiveCharacterTextSplitter
    """,
    ragkit="""
        from ragkit.splitters import MarkdownHeaderTextSplitter
        from ragkit.splitters import RecursiveCharacterTextSplitter
    """,
    body="""
        markdown_document = "# Foo\\n\\n    ## Bar\\n\\nHi this is Jim\\n\\nHi this is Joe\\n\\n ### Boo \\n\\n Hi this is Lance \\n\\n ## Baz\\n\\n Hi this is Molly"

        headers_to_split_on = [
            ("#", "Header 1"),
            ("##", "Header 2"),
            ("###", "Header 3"),
        ]

        markdown_splitter = MarkdownHeaderTextSplitter(headers_to_split_on)
        basic = markdown_splitter.split_text(markdown_document)

        markdown_splitter = MarkdownHeaderTextSplitter(headers_to_split_on, strip_headers=False)
        with_headers = markdown_splitter.split_text(markdown_document)

        markdown_splitter = MarkdownHeaderTextSplitter(
            headers_to_split_on,
            return_each_line=True,
        )
        each_line = markdown_splitter.split_text(markdown_document)

        # MD splits
        markdown_splitter = MarkdownHeaderTextSplitter(
            headers_to_split_on=headers_to_split_on, strip_headers=False
        )
        md_header_splits = markdown_splitter.split_text(markdown_document)

        # Char-level splits
        chunk_size = 250
        chunk_overlap = 30
        text_splitter = RecursiveCharacterTextSplitter(
            chunk_size=chunk_size, chunk_overlap=chunk_overlap
        )

        # Split
        splits = text_splitter.split_documents(md_header_splits)
    """,
)


def test_code_splitter_examples_split_the_same() -> None:
    lc, rk = CODE.run_both()
    assert rk["languages"] == lc["languages"]
    assert rk["python_separators"] == lc["python_separators"]
    for name in ("python_docs", "js_docs", "ts_docs", "md_docs", "latex_docs"):
        assert plain(rk[name]) == plain(lc[name]), name
    # what the page shows
    assert [d.page_content for d in rk["python_docs"]] == [
        'def hello_world():\n    print("Hello, World!")',
        "# Call the function\nhello_world()",
    ]
    assert len(rk["latex_docs"]) > 10


def test_markdown_header_examples_split_the_same() -> None:
    lc, rk = MARKDOWN_HEADERS.run_both()
    for name in ("basic", "with_headers", "each_line", "md_header_splits", "splits"):
        assert plain(rk[name]) == plain(lc[name]), name
    assert plain(rk["basic"][1]) == {
        "page_content": "Hi this is Lance",
        "metadata": {"Header 1": "Foo", "Header 2": "Bar", "Header 3": "Boo"},
    }
