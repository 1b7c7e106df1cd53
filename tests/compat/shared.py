"""What the two runs of a snippet share: the replacements for a snippet's external parts.

- :class:`LocalModelForLangChain`: the real local model (ragkit's ``LocalEmbeddings``, the
  int8 all-MiniLM-L6-v2) behind LangChain's ``Embeddings`` interface. One instance serves
  both runs, where a snippet had ``OpenAIEmbeddings()``: LangChain's classes take it as
  their own, ragkit's take any object with ``embed_documents``/``embed_query``.
- :class:`ToolCallingFakeChatModel`: LangChain's fake chat models have no ``bind_tools``, so
  ``with_structured_output`` and tool calling cannot run on them; this test double replays
  ``responses`` like ``FakeListChatModel`` and accepts tools. ragkit's ``FakeChatModel``
  does both already.
- :data:`BLOG_POST`: a small HTML page in the shape of the blog post LangChain's RAG tutorial
  loads (``post-title``, ``post-header``, ``post-content``), written for these tests, served
  on loopback by the ``blog_url`` fixture.
"""

from __future__ import annotations

import warnings
from typing import Any

from ragkit.embeddings import LocalEmbeddings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_core.embeddings import Embeddings as LCEmbeddings
    from langchain_core.language_models import BaseChatModel as LCBaseChatModel
    from langchain_core.messages import AIMessage as LCAIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult


class LocalModelForLangChain(LCEmbeddings):
    """ragkit's local model as a LangChain ``Embeddings`` (identical vectors for both)."""

    def __init__(self) -> None:
        self.model = LocalEmbeddings()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.model.embed_documents_array(list(texts)).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.model.embed_query_array(text).tolist()


class ToolCallingFakeChatModel(LCBaseChatModel):
    """LangChain's ``FakeListChatModel`` plus ``bind_tools`` (a test double, see above)."""

    responses: list[Any]
    i: int = 0
    calls: list[Any] = []

    @property
    def _llm_type(self) -> str:
        return "tool-calling-fake"

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any):
        reply = self.responses[self.i % len(self.responses)]
        self.i += 1
        self.calls.append((list(messages), kwargs))
        message = reply if isinstance(reply, LCAIMessage) else LCAIMessage(content=reply)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
        return self.bind(tools=list(tools), tool_choice=tool_choice, **kwargs)


BLOG_POST = """<!DOCTYPE html>
<html><head><title>Agents that plan</title>
<script>var tracking = "not part of the post";</script></head>
<body>
<nav class="site-nav"><a href="/">Home</a> | <a href="/archive">Archive</a></nav>
<div class="post-header"><h1 class="post-title">Agents that plan</h1>
<p class="post-meta">Date: 2024-02-01 | Reading time: 4 min</p></div>
<div class="post-content">
<h2>Task decomposition</h2>
<p>A hard task is easier once it is broken into smaller steps. Chain of thought asks the
model to think step by step, which turns one big problem into a sequence of simple ones.
Tree of thoughts goes further: it explores several reasoning paths at each step and keeps
the promising ones, searching the tree breadth-first or depth-first.</p>
<p>Task decomposition can be done in three ways: by prompting the model with a simple
instruction such as "Steps for writing a novel", by task-specific instructions written by a
person, or with human inputs that split the work by hand.</p>
<h2>Planning with outside tools</h2>
<p>Another approach hands long-horizon planning to a classical planner. The model
translates the problem into a planning language, the planner finds a plan, and the model
translates the plan back into natural language. This works in domains where such a
description exists.</p>
<h2>Self-reflection</h2>
<p>Self-reflection lets an agent improve by looking back at what it did. ReAct interleaves
reasoning traces with actions, so the agent can observe the result of a tool call before it
decides on the next step. Reflexion adds a memory of past failures: after an unsuccessful
attempt the agent writes a short lesson and reads it on the next try.</p>
<h2>Memory</h2>
<p>Short-term memory is the context window of the model. Long-term memory keeps
information over long periods in an external vector store that the agent searches with
maximum inner product search. Approximate nearest neighbour indexes such as HNSW and FAISS
make that search fast even over millions of entries.</p>
<h2>Tool use</h2>
<p>Tools extend what a model can do. A calculator answers arithmetic exactly, a search
engine brings in recent facts, and a code interpreter runs programs. The model decides when
to call a tool, writes its arguments as JSON, and reads the tool's output before answering.
MRKL systems route each request to an expert module, and Toolformer teaches a model to insert
API calls into its own text.</p>
<h2>Case studies</h2>
<p>Scientific discovery agents combine a model with expert tools for chemistry: they plan a
synthesis, look up reagents and check the safety of each step. Generative agents simulate a
small town of characters, each with a memory stream, reflection and planning, and show
believable social behaviour such as spreading news of a party.</p>
<h2>Challenges</h2>
<p>Finite context length limits how much history and instruction an agent can keep. Long
term planning is hard because models struggle to adjust plans when they meet unexpected
errors. Natural language interfaces are not always reliable: a model may produce badly
formatted output or refuse an instruction, so much agent code is spent parsing output.</p>
</div>
<footer class="site-footer">Copyright 2024</footer>
</body></html>
"""
