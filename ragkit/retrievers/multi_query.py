"""MultiQueryRetriever: an LLM rewrites the question several ways; each version is searched.

The model's reply is parsed into one query per line (numbering, bullets, quotes
and preambles such as ``"Here are three versions:"`` are stripped; a JSON list of
strings is accepted too). A chain that already returns a list of strings
(LangChain's ``LineListOutputParser`` pattern) gives the queries as they are; one
that returns a dict is read at ``parser_key`` (default: its only key, or ``"text"``).
The generated queries are logged at INFO as ``"Generated queries: [...]"`` under
LangChain's logger name, ``langchain.retrievers.multi_query`` (or
``langchain_classic.retrievers.multi_query``, langchain-classic's, if that is the
one enabled), unless ``verbose=False``. The queries are searched concurrently and the results
merged: ``fusion="union"`` keeps every distinct document in query order (LangChain's
behaviour), ``fusion="rrf"`` ranks them by reciprocal-rank fusion (RAG-fusion).
If the reply holds no usable line, the original question is searched alone.

Example:
    >>> from ragkit.models import FakeChatModel
    >>> from ragkit.retrievers import BM25Retriever
    >>> base = BM25Retriever.from_texts(["bike brakes squeal", "chain lube for rain"], k=1)
    >>> llm = FakeChatModel(["1. brake noise\\n2. lubricating a chain"])
    >>> mq = MultiQueryRetriever.from_llm(base, llm)
    >>> sorted(d.page_content for d in mq.invoke("bike care"))
    ['bike brakes squeal', 'chain lube for rain']
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Hashable, Sequence
from typing import Any

from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig
from ragkit.core.executor import run_all
from ragkit.documents import Document
from ragkit.errors import ConfigurationError
from ragkit.parsers import StrOutputParser
from ragkit.prompts import BasePromptTemplate, PromptTemplate
from ragkit.retrievers._util import check_choice, check_query, doc_key
from ragkit.retrievers.composite import CompositeRetriever
from ragkit.retrievers.fusion import reciprocal_rank_fusion

logger = logging.getLogger("ragkit.retrievers.multi_query")
#: The names LangChain's docs and langchain-classic log the generated queries under.
QUERY_LOGGERS = (
    logging.getLogger("langchain.retrievers.multi_query"),
    logging.getLogger("langchain_classic.retrievers.multi_query"),
)


def log_generated_queries(queries: list[str]) -> None:
    """``Generated queries: [...]`` at INFO, once, under the first LangChain logger enabled."""
    for query_logger in QUERY_LOGGERS:
        if query_logger.isEnabledFor(logging.INFO):
            query_logger.info("Generated queries: %s", queries)
            return


DEFAULT_PROMPT = PromptTemplate.from_template(
    "You help a search engine find documents. Write {num_queries} different versions of the "
    "user's question below, each worded differently (other terms, other angle) but asking for "
    "the same information. Put each version on its own line, with no numbering and no other "
    "text.\nQuestion: {question}"
)
FUSIONS = ("union", "rrf")
_BULLET = re.compile(
    r"^\s*(?:[-*•·]+|\(?\d{1,2}[.):]|\(?[a-zA-Z][.)]|#+|q\d+[.):]|query\s*\d*[.):])\s*", re.I
)
_PREAMBLE = re.compile(
    r"^(?:sure|here|certainly|okay|ok|of course|below|these|alternative|the following)\b.*[:!]$",
    re.I,
)


def parse_queries(text: str, limit: int | None = None) -> list[str]:
    """Queries from an LLM reply: one per line, or a JSON list of strings; cleaned and de-duplicated.

    >>> parse_queries('Here are 2 versions:\\n1. "Brake noise?"\\n\\n2) brake noise?\\n- squeaky brakes')
    ['Brake noise?', 'squeaky brakes']
    """
    text = text.strip()
    candidates: list[str]
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.S)
    body = fenced.group(1) if fenced else text
    try:
        parsed = json.loads(body)
    except ValueError:
        parsed = None
    if isinstance(parsed, list) and all(isinstance(x, str) for x in parsed):
        candidates = parsed
    else:
        candidates = [line for line in body.splitlines() if not line.strip().startswith("```")]
    out: list[str] = []
    seen: set[str] = set()
    for raw in candidates:
        line = _BULLET.sub("", raw.replace("**", "").strip()).strip()
        line = line.strip("\"'`“”‘’").strip()
        if not line or _PREAMBLE.match(line) or not re.search(r"\w", line):
            continue
        key = " ".join(line.lower().split()).rstrip("?.! ")
        if key in seen:
            continue
        seen.add(key)
        out.append(line)
    return out[:limit] if limit is not None else out


class MultiQueryRetriever(CompositeRetriever):
    """Search several LLM-written versions of the question and merge the results.

    Args:
        retriever: The retriever each version is sent to (per-call kwargs such as ``k`` are passed on).
        llm_chain: A runnable from ``{"question": ..., "num_queries": ...}`` to the reply text.
        include_original: Also search the question as asked (first).
        fusion: ``"union"`` (distinct documents in query order) or ``"rrf"`` (RAG-fusion ranking).
        num_queries: How many versions to ask for (and keep at most).
        c: The RRF constant for ``fusion="rrf"``.
        id_key: Metadata key identifying the same document across results.
        verbose: Log the generated queries at INFO (LangChain's flag, on by default).
        parser_key: For a chain that returns a dict: the key holding the queries.
    """

    def __init__(
        self,
        retriever: Runnable[str, list[Document]],
        llm_chain: Runnable[Any, Any],
        include_original: bool = False,
        fusion: str = "union",
        num_queries: int = 3,
        c: float = 60,
        id_key: str | None = None,
        verbose: bool = True,
        parser_key: str | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        check_choice(fusion, FUSIONS, "MultiQueryRetriever fusion")
        if isinstance(num_queries, bool) or not isinstance(num_queries, int) or num_queries < 1:
            raise ConfigurationError(
                f"MultiQueryRetriever num_queries must be an integer >= 1, got {num_queries!r}"
            )
        super().__init__(tags=tags, metadata=metadata)
        self.retriever = retriever
        self.llm_chain = llm_chain
        self.include_original = include_original
        self.fusion = fusion
        self.num_queries = num_queries
        self.c = c
        self.id_key = id_key
        self.verbose = verbose
        self.parser_key = parser_key

    @classmethod
    def from_llm(
        cls,
        retriever: Runnable[str, list[Document]],
        llm: Runnable[Any, Any],
        prompt: BasePromptTemplate | None = None,
        parser_key: str | None = None,
        include_original: bool = False,
        *,
        fusion: str = "union",
        num_queries: int = 3,
        **kwargs: Any,
    ) -> MultiQueryRetriever:
        """Build from a chat model (or any runnable) and an optional prompt with ``{question}``.

        The prompt may also use ``{num_queries}``. ``parser_key`` is accepted for LangChain's
        signature (its chain here returns text, so there is no key to pick).
        """
        prompt = prompt or DEFAULT_PROMPT
        if "question" not in prompt.input_variables:
            raise ConfigurationError(
                f"MultiQueryRetriever prompt must have a {{question}} variable; it has {prompt.input_variables}"
            )
        chain = prompt | llm | StrOutputParser()
        return cls(
            retriever,
            chain,
            include_original=include_original,
            fusion=fusion,
            num_queries=num_queries,
            parser_key=parser_key,
            **kwargs,
        )

    # -- query generation ----------------------------------------------------------
    def _chain_input(self, question: str) -> dict[str, Any]:
        return {"question": question, "num_queries": self.num_queries}

    def _reply_value(self, reply: Any) -> Any:
        """The part of the chain's reply holding the queries (``parser_key`` for dicts)."""
        if not isinstance(reply, dict):
            return reply
        key = self.parser_key
        if key is None:
            key = next(iter(reply)) if len(reply) == 1 else "text"
        if key not in reply:
            raise ConfigurationError(
                f"MultiQueryRetriever: the chain returned a dict with keys {sorted(reply)} and "
                f"no {key!r}; set parser_key to the key that holds the queries"
            )
        return reply[key]

    def _queries(self, question: str, reply: Any) -> list[str]:
        value = self._reply_value(reply)
        if isinstance(value, (list, tuple)):
            if not all(isinstance(q, str) for q in value):
                raise ConfigurationError(
                    "MultiQueryRetriever: the chain must return text or a list of strings, got a "
                    f"list with {sorted({type(q).__name__ for q in value})}"
                )
            queries = [q for q in value if q.strip()]
            text = "\n".join(value)
        else:
            text = value if isinstance(value, str) else getattr(value, "content", str(value))
            queries = parse_queries(str(text), limit=self.num_queries)
        if self.verbose:
            log_generated_queries(queries)
        if not queries:
            logger.warning(
                "MultiQueryRetriever: no query could be parsed from the LLM reply %r; "
                "searching the original question only",
                str(text)[:200],
            )
        if self.include_original or not queries:
            queries = [question] + [
                q for q in queries if q.strip().lower() != question.strip().lower()
            ]
        return queries

    def generate_queries(self, question: str, config: RunnableConfig | None = None) -> list[str]:
        """The queries that will be searched for ``question`` (calls the LLM)."""
        return self._queries(question, self.llm_chain.invoke(self._chain_input(question), config))

    async def agenerate_queries(
        self, question: str, config: RunnableConfig | None = None
    ) -> list[str]:
        return self._queries(
            question, await self.llm_chain.ainvoke(self._chain_input(question), config)
        )

    # -- retrieval -----------------------------------------------------------------
    def _merge(self, lists: Sequence[Sequence[Document]]) -> list[Document]:
        if self.fusion == "rrf":
            return reciprocal_rank_fusion(
                lists, k=self.c, weights=[1.0] * len(lists), id_key=self.id_key
            )
        by_id = self.id_key is None and all(d.id is not None for docs in lists for d in docs)
        seen: set[Hashable] = set()
        out: list[Document] = []
        for docs in lists:
            for d in docs:
                key = (
                    doc_key(d, self.id_key) if (self.id_key or by_id) else ("text", d.page_content)
                )
                if key not in seen:
                    seen.add(key)
                    out.append(d)
        return out

    def _retrieve(self, query: str, config: RunnableConfig, **kwargs: Any) -> list[Document]:
        check_query(query, "MultiQueryRetriever")
        if not query.strip():
            return []
        queries = self.generate_queries(query, config)
        thunks = [lambda q=q: self.retriever.invoke(q, config, **kwargs) for q in queries]
        return self._merge(run_all(thunks, config.get("max_concurrency")))

    async def _aretrieve(self, query: str, config: RunnableConfig, **kwargs: Any) -> list[Document]:
        check_query(query, "MultiQueryRetriever")
        if not query.strip():
            return []
        queries = await self.agenerate_queries(query, config)
        lists = await asyncio.gather(
            *(self.retriever.ainvoke(q, config, **kwargs) for q in queries)
        )
        return self._merge(lists)
