"""LangChain's RAG tutorial (part 1), run on LangChain and on ragkit.

Source: https://python.langchain.com/docs/tutorials/rag/ (repository path
``docs/docs/tutorials/rag.ipynb`` in langchain-ai/langchain): the quickstart cell (load the
blog post with ``WebBaseLoader`` and a ``bs4.SoupStrainer``, split 1000/200, embed, retrieve,
``format_docs``, the LCEL ``rag_chain``), the detailed walkthrough (``add_start_index=True``,
``search_kwargs={"k": 6}``, the hub prompt's messages) and "Built-in chains"
(``create_stuff_documents_chain`` + ``create_retrieval_chain``, sources in ``context``).

Replaced, minimally: the blog URL is a page served on loopback (``blog_url``); ``Chroma`` is
``InMemoryVectorStore`` (what the current tutorial uses); ``OpenAIEmbeddings()`` is the local
model (``embeddings``, one shared LangChain ``Embeddings`` object); ``hub.pull("rlm/rag-prompt")``
is that prompt's text written out; ``ChatOpenAI`` is a fake chat model with a scripted answer.
"""

from __future__ import annotations

from tests.compat.snippet import Snippet, plain, strip_scores

QUICKSTART = Snippet(
    langchain="""
        import bs4
        from langchain_community.document_loaders import WebBaseLoader
        from langchain_core.language_models.fake_chat_models import FakeListChatModel as FakeChat
        from langchain_core.output_parsers import StrOutputParser
        from langchain_core.prompts import ChatPromptTemplate
        from langchain_core.runnables import RunnablePassthrough
        from langchain_core.vectorstores import InMemoryVectorStore
        from langchain_text_splitters import RecursiveCharacterTextSplitter
    """,
    ragkit="""
        import bs4
        from ragkit.loaders import WebBaseLoader
        from ragkit.models import FakeChatModel as FakeChat
        from ragkit.parsers import StrOutputParser
        from ragkit.prompts import ChatPromptTemplate
        from ragkit import RunnablePassthrough
        from ragkit.stores import InMemoryVectorStore
        from ragkit.splitters import RecursiveCharacterTextSplitter
    """,
    body="""
        llm = FakeChat(responses=["Task decomposition breaks a hard task into smaller steps."])
        prompt = ChatPromptTemplate.from_messages([("human", RAG_PROMPT)])

        # Load, chunk and index the contents of the blog.
        loader = WebBaseLoader(
            web_paths=(blog_url,),
            bs_kwargs=dict(
                parse_only=bs4.SoupStrainer(
                    class_=("post-content", "post-title", "post-header")
                )
            ),
        )
        docs = loader.load()

        text_splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200)
        splits = text_splitter.split_documents(docs)
        vectorstore = InMemoryVectorStore.from_documents(documents=splits, embedding=embeddings)

        # Retrieve and generate using the relevant snippets of the blog.
        retriever = vectorstore.as_retriever()

        def format_docs(docs):
            return "\\n\\n".join(doc.page_content for doc in docs)

        rag_chain = (
            {"context": retriever | format_docs, "question": RunnablePassthrough()}
            | prompt
            | llm
            | StrOutputParser()
        )

        answer = rag_chain.invoke("What is Task Decomposition?")
        streamed = list(rag_chain.stream("What is Task Decomposition?"))

        example_messages = prompt.invoke(
            {"context": "filler context", "question": "filler question"}
        ).to_messages()

        text_splitter = RecursiveCharacterTextSplitter(
            chunk_size=1000, chunk_overlap=200, add_start_index=True
        )
        all_splits = text_splitter.split_documents(docs)
        retriever = vectorstore.as_retriever(search_type="similarity", search_kwargs={"k": 6})
        retrieved_docs = retriever.invoke("What are the approaches to Task Decomposition?")
    """,
)

# The text of the hub prompt "rlm/rag-prompt" (one human message).
RAG_PROMPT = (
    "You are an assistant for question-answering tasks. Use the following pieces of retrieved "
    "context to answer the question. If you don't know the answer, just say that you don't "
    "know. Use three sentences maximum and keep the answer concise.\n"
    "Question: {question} \nContext: {context} \nAnswer:"
)

BUILT_IN_CHAINS = Snippet(
    langchain="""
        from langchain_classic.chains import create_retrieval_chain
        from langchain_classic.chains.combine_documents import create_stuff_documents_chain
        from langchain_core.language_models.fake_chat_models import FakeListChatModel as FakeChat
        from langchain_core.prompts import ChatPromptTemplate
        from langchain_core.vectorstores import InMemoryVectorStore
    """,
    ragkit="""
        from ragkit.chains import create_retrieval_chain
        from ragkit.chains import create_stuff_documents_chain
        from ragkit.models import FakeChatModel as FakeChat
        from ragkit.prompts import ChatPromptTemplate
        from ragkit.stores import InMemoryVectorStore
    """,
    body="""
        llm = FakeChat(responses=["Task decomposition splits a task into steps."])
        vectorstore = InMemoryVectorStore.from_documents(documents=all_splits, embedding=embeddings)
        retriever = vectorstore.as_retriever()

        system_prompt = (
            "You are an assistant for question-answering tasks. "
            "Use the following pieces of retrieved context to answer "
            "the question. If you don't know the answer, say that you "
            "don't know. Use three sentences maximum and keep the "
            "answer concise."
            "\\n\\n"
            "{context}"
        )

        prompt = ChatPromptTemplate.from_messages(
            [
                ("system", system_prompt),
                ("human", "{input}"),
            ]
        )

        question_answer_chain = create_stuff_documents_chain(llm, prompt)
        rag_chain = create_retrieval_chain(retriever, question_answer_chain)

        response = rag_chain.invoke({"input": "What is Task Decomposition?"})
        sources = [document for document in response["context"]]
        filled = prompt.invoke({"context": "C", "input": "Q"}).to_messages()
    """,
)


def test_quickstart_loads_splits_retrieves_and_answers_the_same(blog_url, local_model) -> None:
    lc, rk = QUICKSTART.run_both(blog_url=blog_url, embeddings=local_model, RAG_PROMPT=RAG_PROMPT)
    # the strainer kept the title, header and content, and nothing else
    text = rk["docs"][0].page_content
    assert "Agents that plan" in text and "Task decomposition" in text
    assert "tracking" not in text and "Copyright" not in text and "Archive" not in text
    for name in ("docs", "splits", "all_splits", "example_messages"):
        assert plain(rk[name]) == plain(lc[name]), name
    # deliberate difference: ragkit's retrievers add metadata["score"]
    assert strip_scores(rk["retrieved_docs"]) == plain(lc["retrieved_docs"])
    assert (
        len(rk["splits"]) == 4
        and len(rk["retrieved_docs"]) == 4
        and all("start_index" in d.metadata for d in rk["all_splits"])
    )
    assert (
        rk["answer"] == lc["answer"] == "Task decomposition breaks a hard task into smaller steps."
    )
    assert "".join(rk["streamed"]) == "".join(lc["streamed"]) == rk["answer"]


def test_built_in_chains_return_the_same_answer_and_sources(blog_url, local_model) -> None:
    lc_docs, rk_docs = QUICKSTART.run_both(
        blog_url=blog_url, embeddings=local_model, RAG_PROMPT=RAG_PROMPT
    )
    lc = BUILT_IN_CHAINS.run("langchain", all_splits=lc_docs["all_splits"], embeddings=local_model)
    rk = BUILT_IN_CHAINS.run("ragkit", all_splits=rk_docs["all_splits"], embeddings=local_model)
    assert set(rk["response"]) == set(lc["response"]) == {"input", "context", "answer"}
    assert rk["response"]["answer"] == lc["response"]["answer"]
    assert (
        strip_scores(rk["sources"]) == plain(lc["sources"]) and len(rk["sources"]) == 4
    )  # k=4 of 4 splits
    assert plain(rk["filled"]) == plain(lc["filled"])
