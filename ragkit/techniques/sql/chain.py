"""Text-to-SQL chains: ``create_sql_query_chain`` (question -> SQL) and an answering chain.

``create_sql_query_chain(llm, db, k=5)`` puts the dialect, the schema (``CREATE TABLE``
statements with sample rows) and ``top_k`` into the prompt and returns the model's SQL,
checked by :func:`~ragkit.techniques.sql.validate.validate_sql` (so a ``DROP`` fails here,
before anything runs). Input: ``{"question": ...}``, optionally
``"table_names_to_use": [...]`` to show only some tables. As LangChain's, the result is a
runnable sequence (``get_prompts()`` finds the prompt) returning the model's SQL as written
(stripped); unlike LangChain's, a query that is not one read-only SELECT raises. ``create_sql_answer_chain``
runs the query (read-only, row- and time-limited) and has the model answer from the rows.

Example:
    >>> import sqlite3, tempfile, os
    >>> from ragkit.models import FakeChatModel
    >>> path = os.path.join(tempfile.mkdtemp(), "shop.db")
    >>> with sqlite3.connect(path) as c:
    ...     _ = c.execute("CREATE TABLE parts (name TEXT, grams INTEGER)")
    ...     _ = c.execute("INSERT INTO parts VALUES ('chain', 250)")
    >>> db = SQLDatabase.from_uri(f"sqlite:///{path}")
    >>> chain = create_sql_query_chain(FakeChatModel(["SELECT grams FROM parts WHERE name = 'chain';"]), db)
    >>> chain.invoke({"question": "How heavy is the chain?"})
    "SELECT grams FROM parts WHERE name = 'chain';"
"""

from __future__ import annotations

from typing import Any

from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig
from ragkit.core.lambdas import RunnableLambda
from ragkit.errors import ConfigurationError
from ragkit.parsers import StrOutputParser
from ragkit.prompts import BasePromptTemplate, PromptTemplate
from ragkit.techniques._common import text_of
from ragkit.techniques.sql.database import SQLDatabase
from ragkit.techniques.sql.validate import validate_sql

SQL_PROMPT = PromptTemplate.from_template(
    "You write {dialect} queries. Given a question, write one syntactically correct {dialect} "
    "SELECT query that answers it. Unless the question asks for a number of rows, return at "
    "most {top_k} rows with LIMIT. Select only the columns needed, quote identifiers where "
    "needed, and use only the tables and columns below. Never change data.\n\n"
    "Tables:\n{table_info}\n\n"
    "Answer in this form:\nSQLQuery: <the query>\n\nQuestion: {input}\nSQLQuery: "
)
ANSWER_PROMPT = PromptTemplate.from_template(
    "Answer the question from the SQL query and its result.\n\nQuestion: {question}\n"
    "SQL query: {query}\nSQL result: {result}\nAnswer:"
)


def create_sql_query_chain(
    llm: Runnable[Any, Any],
    db: SQLDatabase,
    prompt: BasePromptTemplate | None = None,
    k: int = 5,
) -> Runnable[Any, str]:
    """A runnable from ``{"question"}`` to one checked, read-only SQL query (a string)."""
    prompt = prompt or SQL_PROMPT
    needed = (
        {"input", "table_info", "top_k"}
        - set(prompt.input_variables)
        - set(getattr(prompt, "partial_variables", {}))
    )
    if needed - {"top_k"}:
        raise ConfigurationError(
            f"The SQL prompt needs the variables input, table_info (and top_k); missing {sorted(needed)}"
        )
    fixed = {"top_k": str(k), "dialect": db.dialect}
    prompt = prompt.partial(**{key: v for key, v in fixed.items() if key in prompt.input_variables})  # type: ignore[attr-defined]

    def inputs(value: Any) -> dict[str, Any]:
        if not isinstance(value, dict) or "question" not in value:
            raise ConfigurationError(
                "create_sql_query_chain takes {'question': ...} (and optionally 'table_names_to_use')"
            )
        return {
            "input": value["question"],
            "table_info": db.get_table_info(value.get("table_names_to_use")),
        }

    def checked(text: str) -> str:
        """The model's SQL as written (stripped), once it is known to be one read-only SELECT."""
        validate_sql(text, db.dialect)
        return text.strip()

    return (
        RunnableLambda(inputs, name="SQLQueryInputs")
        | prompt
        | llm.bind(stop=["\nSQLResult:"])
        | StrOutputParser()
        | RunnableLambda(checked, name="SQLQueryCheck")
    )


def create_sql_answer_chain(
    llm: Runnable[Any, Any],
    db: SQLDatabase,
    k: int = 5,
    prompt: BasePromptTemplate | None = None,
) -> Runnable[Any, dict[str, Any]]:
    """``{"question"} -> {"question", "query", "result", "answer"}``: write SQL, run it, answer."""
    write = create_sql_query_chain(llm, db, prompt, k)
    answer = ANSWER_PROMPT | llm | StrOutputParser()

    def run(value: Any, config: RunnableConfig) -> dict[str, Any]:
        query = write.invoke(value, config)
        result = db.run(query)
        reply = answer.invoke(
            {"question": value["question"], "query": query, "result": result}, config
        )
        return {
            "question": value["question"],
            "query": query,
            "result": result,
            "answer": text_of(reply),
        }

    return RunnableLambda(run, name="SQLAnswerChain")
