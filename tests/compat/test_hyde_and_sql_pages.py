"""LangChain's HyDE page and SQL Q&A tutorial, run on LangChain and on ragkit.

Sources: https://python.langchain.com/v0.1/docs/use_cases/query_analysis/techniques/hyde/
and the ``HypotheticalDocumentEmbedder`` page of langchain's ``docs/docs/how_to/`` folder
(``HypotheticalDocumentEmbedder.from_llm(llm, base_embeddings, "web_search")``,
``embed_query``, a custom prompt), and https://python.langchain.com/docs/tutorials/sql_qa/
(``create_sql_query_chain(llm, db)``, ``chain.get_prompts()``, ``QuerySQLDatabaseTool(db=db)``
executing the written query, ``SQLDatabaseToolkit`` tools with ``sql_db_list_tables`` invoked
on ``""``).

Replaced, minimally: ``OpenAI()`` is a scripted LLM that records its prompts; the embeddings are
the shared local model; the Chinook database is a small SQLite file with an ``Artist`` table.
Only the imports differ.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.compat.snippet import Snippet

HYDE = Snippet(
    langchain="""
        from langchain_classic.chains import HypotheticalDocumentEmbedder
        from langchain_core.language_models.llms import LLM
        from langchain_core.prompts import PromptTemplate
    """,
    ragkit="""
        from ragkit.techniques import HypotheticalDocumentEmbedder
        from ragkit.llms import LLM
        from ragkit.prompts import PromptTemplate
    """,
    body="""
        class Scripted(LLM):
            seen: list = []

            @property
            def _llm_type(self) -> str:
                return "scripted"

            def _call(self, prompt, stop=None, run_manager=None, **kwargs):
                self.seen.append(prompt)
                return "The Taj Mahal is in Agra, India."

        llm = Scripted()
        embeddings = HypotheticalDocumentEmbedder.from_llm(llm, base_embeddings, "web_search")
        result = embeddings.embed_query("Where is the Taj Mahal?")

        prompt_template = (
            "Please answer the user's question about the most recent state of the union address\\n"
            "Question: {question}\\nAnswer:"
        )
        prompt = PromptTemplate(input_variables=["question"], template=prompt_template)
        custom = HypotheticalDocumentEmbedder.from_llm(
            llm, base_embeddings, custom_prompt=prompt
        )
        custom_result = custom.embed_query("What did the president say about Ketanji Brown Jackson")
    """,
)


def test_the_hyde_page_sends_the_same_prompts_and_embeds_the_same(local_model):
    lc, rk = HYDE.run_both(base_embeddings=local_model)
    assert rk["llm"].seen == lc["llm"].seen
    assert (
        rk["llm"].seen[0]
        == "Please write a passage to answer the question\nQuestion: Where is the Taj Mahal?\nPassage:"
    )
    assert rk["result"] == lc["result"] and rk["custom_result"] == lc["custom_result"]


SQL_QA = Snippet(
    langchain="""
        from langchain_classic.chains import create_sql_query_chain
        from langchain_community.agent_toolkits import SQLDatabaseToolkit
        from langchain_community.tools.sql_database.tool import QuerySQLDatabaseTool
        from langchain_community.utilities import SQLDatabase
        from langchain_core.language_models.fake_chat_models import FakeListChatModel as Fake
    """,
    ragkit="""
        from ragkit.techniques.sql import create_sql_query_chain
        from ragkit.techniques.sql import SQLDatabaseToolkit
        from ragkit.techniques.sql import QuerySQLDatabaseTool
        from ragkit.techniques.sql import SQLDatabase
        from ragkit.models import FakeChatModel as Fake
    """,
    body="""
        db = SQLDatabase.from_uri(f"sqlite:///{chinook}")
        dialect = db.dialect
        usable = db.get_usable_table_names()
        count = db.run("SELECT COUNT(*) FROM Artist;")

        llm = Fake(responses=["SELECT COUNT(*) FROM Artist;"])
        chain = create_sql_query_chain(llm, db)
        response = chain.invoke({"question": "How many artists are there"})
        prompts = len(chain.get_prompts())

        execute_query = QuerySQLDatabaseTool(db=db)
        write_query = create_sql_query_chain(Fake(responses=["SELECT COUNT(*) FROM Artist;"]), db)
        answer = (write_query | execute_query).invoke({"question": "How many artists are there"})

        toolkit = SQLDatabaseToolkit(db=db, llm=llm)
        tools = {tool.name: tool for tool in toolkit.get_tools()}
        names = sorted(tools)
        tables = tools["sql_db_list_tables"].invoke("")
    """,
)


def test_the_sql_tutorial_runs_the_same(tmp_path: Path):
    chinook = tmp_path / "Chinook.db"
    with sqlite3.connect(chinook) as connection:
        connection.execute("CREATE TABLE Artist (ArtistId INTEGER PRIMARY KEY, Name TEXT)")
        connection.executemany(
            "INSERT INTO Artist (Name) VALUES (?)", [("AC/DC",), ("Accept",), ("Aerosmith",)]
        )
    lc, rk = SQL_QA.run_both(chinook=chinook)
    for key in ("dialect", "usable", "count", "response", "prompts", "answer", "names", "tables"):
        assert rk[key] == lc[key], key
    assert rk["response"] == "SELECT COUNT(*) FROM Artist;" and rk["answer"] == "[(3,)]"
