"""Gemini snippets, run through langchain-google-genai and through ragkit against the emulator.

Sources:
- https://python.langchain.com/docs/integrations/chat/google_generative_ai/ (repository path
  ``docs/docs/integrations/chat/google_generative_ai.ipynb`` in langchain-ai/langchain):
  instantiation (``ChatGoogleGenerativeAI(model=..., temperature=0, max_tokens=None,
  timeout=None, max_retries=2)``), invocation with a system and a human message, chaining with
  a ``ChatPromptTemplate``, tool calling (``@tool`` ``get_weather``, ``bind_tools``,
  ``ai_msg.tool_calls``, a ``ToolMessage`` back), and structured output
  (``with_structured_output(Person)``).
- "Chat with PDF using Gemini" (the Streamlit app many tutorials copy, e.g. the
  ``get_pdf_text`` / ``get_text_chunks`` / ``get_vector_store`` / ``get_conversational_chain``
  functions of https://github.com/solnone/document-genie-using-rag-framwork): PDF text with
  ``PdfReader``, ``RecursiveCharacterTextSplitter(chunk_size=10000, chunk_overlap=1000)``,
  ``GoogleGenerativeAIEmbeddings(model="models/embedding-001")``, ``FAISS.from_texts`` then
  ``save_local``/``load_local`` and ``similarity_search``, a ``PromptTemplate`` with
  ``context`` and ``question`` and ``ChatGoogleGenerativeAI(model=..., temperature=0.3)``. Its
  ``load_qa_chain(model, chain_type="stuff", prompt=prompt)`` is written as
  ``create_stuff_documents_chain(model, prompt)``, LangChain's own replacement for the
  deprecated function (ragkit has only the replacement; see docs/migration.md).

Replaced, minimally: Google's service is the project's emulator (tests/google) on loopback.
Both clients find it the same way, from the environment: ``GOOGLE_API_KEY`` and
``GOOGLE_GEMINI_BASE_URL`` (which google-genai, under langchain-google-genai, and ragkit both
read), so the snippet bodies are the pages' code. The emulator answers "echo: <last user
text>" by default; where a page relies on the model choosing a tool, the emulator is given
that reply (the same for both runs). The PDF is one the test writes with pypdf.
"""

from __future__ import annotations

import pytest

from tests.compat.snippet import Snippet, plain
from tests.google.gemini_testing import API_KEY
from tests.loaders.conftest import write_pdf

LANGCHAIN = """
    from langchain_core.messages import ToolMessage
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.tools import tool
    from langchain_google_genai import ChatGoogleGenerativeAI
"""
RAGKIT = """
    from ragkit.messages import ToolMessage
    from ragkit.prompts import ChatPromptTemplate
    from ragkit.tools import tool
    from ragkit.models import ChatGoogleGenerativeAI
"""

CHAT = Snippet(
    langchain=LANGCHAIN,
    ragkit=RAGKIT,
    body="""
        llm = ChatGoogleGenerativeAI(
            model="gemini-2.0-flash",
            temperature=0,
            max_tokens=None,
            timeout=None,
            max_retries=2,
            # other params...
        )
        messages = [
            (
                "system",
                "You are a helpful assistant that translates English to French. Translate the user sentence.",
            ),
            ("human", "I love programming."),
        ]
        ai_msg = llm.invoke(messages)
        content = ai_msg.content

        prompt = ChatPromptTemplate.from_messages(
            [
                (
                    "system",
                    "You are a helpful assistant that translates {input_language} to {output_language}.",
                ),
                ("human", "{input}"),
            ]
        )

        chain = prompt | llm
        chained = chain.invoke(
            {
                "input_language": "English",
                "output_language": "German",
                "input": "I love programming.",
            }
        )
        streamed = "".join(chunk.content for chunk in llm.stream(messages))
    """,
)

TOOLS = Snippet(
    langchain=LANGCHAIN,
    ragkit=RAGKIT,
    body="""
        llm = ChatGoogleGenerativeAI(model="gemini-2.0-flash", temperature=0)


        @tool(description="Get the current weather in a given location")
        def get_weather(location: str) -> str:
            return "It's sunny."


        llm_with_tools = llm.bind_tools([get_weather])
        ai_msg = llm_with_tools.invoke(
            "What's the weather like in San Francisco?",
        )
        tool_calls = ai_msg.tool_calls

        tool_message = ToolMessage(
            content=get_weather.invoke(ai_msg.tool_calls[0]["args"]),
            tool_call_id=ai_msg.tool_calls[0]["id"],
        )
        final = llm_with_tools.invoke(
            [("human", "What's the weather like in San Francisco?"), ai_msg, tool_message]
        )
    """,
)

STRUCTURED = Snippet(
    langchain=LANGCHAIN,
    ragkit=RAGKIT,
    body='''
        from pydantic import BaseModel, Field

        llm = ChatGoogleGenerativeAI(model="gemini-2.0-flash", temperature=0)


        class Person(BaseModel):
            """Information about a person."""

            name: str = Field(..., description="The person's name")
            height_m: float = Field(..., description="The person's height in meters")


        structured_llm = llm.with_structured_output(Person)
        person = structured_llm.invoke(
            "Who was the 16th president of the USA, and how tall was he in meters?"
        )
    ''',
)

PDF_CHAT = Snippet(
    langchain="""
        from langchain_classic.chains.combine_documents import create_stuff_documents_chain
        from langchain_community.vectorstores import FAISS
        from langchain_core.prompts import PromptTemplate
        from langchain_google_genai import ChatGoogleGenerativeAI, GoogleGenerativeAIEmbeddings
        from langchain_text_splitters import RecursiveCharacterTextSplitter
    """,
    ragkit="""
        from ragkit.chains import create_stuff_documents_chain
        from ragkit.stores import FAISS
        from ragkit.prompts import PromptTemplate
        from ragkit.models import ChatGoogleGenerativeAI
        from ragkit.embeddings import GoogleGenerativeAIEmbeddings
        from ragkit.splitters import RecursiveCharacterTextSplitter
    """,
    body='''
        from pypdf import PdfReader


        def get_pdf_text(pdf_docs):
            text = ""
            for pdf in pdf_docs:
                pdf_reader = PdfReader(pdf)
                for page in pdf_reader.pages:
                    text += page.extract_text()
            return text


        def get_text_chunks(text):
            text_splitter = RecursiveCharacterTextSplitter(chunk_size=10000, chunk_overlap=1000)
            chunks = text_splitter.split_text(text)
            return chunks


        def get_vector_store(text_chunks):
            embeddings = GoogleGenerativeAIEmbeddings(model="models/embedding-001")
            vector_store = FAISS.from_texts(text_chunks, embedding=embeddings)
            vector_store.save_local(index_folder)


        def get_conversational_chain():
            prompt_template = """
            Answer the question as detailed as possible from the provided context, make sure to provide all the details, if the answer is not in
            provided context just say, "answer is not available in the context", don't provide the wrong answer\\n\\n
            Context:\\n {context}?\\n
            Question: \\n{question}\\n

            Answer:
            """

            model = ChatGoogleGenerativeAI(model="gemini-2.0-flash", temperature=0.3)

            prompt = PromptTemplate(template=prompt_template, input_variables=["context", "question"])
            chain = create_stuff_documents_chain(model, prompt)

            return chain


        def user_input(user_question):
            embeddings = GoogleGenerativeAIEmbeddings(model="models/embedding-001")

            new_db = FAISS.load_local(index_folder, embeddings, allow_dangerous_deserialization=True)
            docs = new_db.similarity_search(user_question)

            chain = get_conversational_chain()

            response = chain.invoke({"context": docs, "question": user_question})
            return docs, response


        raw_text = get_pdf_text(pdf_docs)
        text_chunks = get_text_chunks(raw_text)
        get_vector_store(text_chunks)
        docs, reply = user_input("How often should tyre pressure be checked?")
    ''',
)


@pytest.fixture
def gemini_env(emulator, monkeypatch):
    """Both clients find the emulator through the environment, as they would find Google."""
    monkeypatch.setenv("GOOGLE_API_KEY", API_KEY)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", emulator.url)
    return emulator


def _bodies(emulator, rpc: str) -> list[dict]:
    return [r.body for r in emulator.requests(rpc)]


def test_chat_invoke_chain_and_stream_send_and_read_the_same(gemini_env) -> None:
    emulator = gemini_env
    lc = CHAT.run("langchain")
    lc_requests = _bodies(emulator, "generateContent")
    emulator.reset()
    rk = CHAT.run("ragkit")
    rk_requests = _bodies(emulator, "generateContent")
    assert rk["content"] == lc["content"] == "echo: I love programming."
    assert plain(rk["chained"])["content"] == plain(lc["chained"])["content"]
    assert rk["streamed"] == lc["streamed"] == "echo: I love programming."
    # what went over the wire: the same turns, system instruction and temperature
    for ours, theirs in zip(rk_requests, lc_requests, strict=True):
        assert ours["contents"] == theirs["contents"]
        assert ours["systemInstruction"]["parts"] == theirs["systemInstruction"]["parts"]
        assert ours["generationConfig"]["temperature"] == theirs["generationConfig"]["temperature"]


FUNCTION_CALL = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [{"functionCall": {"name": "get_weather", "args": {"location": "SF"}}}],
            },
            "finishReason": "STOP",
            "index": 0,
        }
    ]
}


def test_tool_calling_round_trip_is_the_same(gemini_env) -> None:
    emulator = gemini_env
    emulator.reply("generateContent", FUNCTION_CALL)
    lc = TOOLS.run("langchain")
    lc_requests = _bodies(emulator, "generateContent")
    emulator.reset()
    emulator.reply("generateContent", FUNCTION_CALL)
    rk = TOOLS.run("ragkit")
    rk_requests = _bodies(emulator, "generateContent")

    def calls(ns):
        return [(c["name"], c["args"]) for c in ns["tool_calls"]]

    assert calls(rk) == calls(lc) == [("get_weather", {"location": "SF"})]
    assert rk["final"].content == lc["final"].content
    # the declaration each library sent for the tool
    ours = rk_requests[0]["tools"][0]["functionDeclarations"][0]
    theirs = lc_requests[0]["tools"][0]["functionDeclarations"][0]
    assert ours["name"] == theirs["name"] == "get_weather"
    assert ours["description"] == theirs["description"]
    # the second turn sends the call and its result back
    assert [c.get("role") for c in rk_requests[1]["contents"]] == [
        c.get("role") for c in lc_requests[1]["contents"]
    ]
    ours_response = rk_requests[1]["contents"][-1]["parts"][0]["functionResponse"]
    theirs_response = lc_requests[1]["contents"][-1]["parts"][0]["functionResponse"]
    assert ours_response["name"] == theirs_response["name"] == "get_weather"
    assert "It's sunny." in str(ours_response["response"])
    assert "It's sunny." in str(theirs_response["response"])


def test_structured_output_parses_the_same(gemini_env) -> None:
    lc = STRUCTURED.run("langchain")
    rk = STRUCTURED.run("ragkit")
    assert plain(rk["person"]) == plain(lc["person"])
    assert set(plain(rk["person"])) == {"name", "height_m"}


def test_pdf_chat_finds_and_answers_the_same(gemini_env, tmp_path) -> None:
    pdf = write_pdf(
        tmp_path / "care.pdf",
        [
            "Tyre pressure should be checked every week.",
            "Lube the chain every month and after rain.",
        ],
    )
    lc = PDF_CHAT.run("langchain", pdf_docs=[str(pdf)], index_folder=str(tmp_path / "lc"))
    rk = PDF_CHAT.run("ragkit", pdf_docs=[str(pdf)], index_folder=str(tmp_path / "rk"))
    assert rk["raw_text"] == lc["raw_text"] and "every week" in rk["raw_text"]
    assert rk["text_chunks"] == lc["text_chunks"]
    assert plain(rk["docs"]) == plain(lc["docs"])
    assert rk["reply"] == lc["reply"]
    assert rk["reply"].startswith("echo:") and "every week" in rk["reply"]
