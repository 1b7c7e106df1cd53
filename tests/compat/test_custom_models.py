"""LangChain's "custom LLM" and "custom chat model" how-to pages, run on LangChain and on ragkit.

Sources: https://python.langchain.com/docs/how_to/custom_llm/ (``CustomLLM``: ``_call``,
``_stream`` yielding ``GenerationChunk``\\ s and reporting ``on_llm_new_token``,
``_identifying_params``, ``_llm_type``; then invoke, ainvoke, batch, abatch, astream and a
prompt | llm chain) and https://python.langchain.com/docs/how_to/custom_chat_model/
(``ChatParrotLink``: ``_generate`` returning a ``ChatResult``, ``_stream`` yielding
``ChatGenerationChunk``\\ s with usage metadata; invoke, batch, stream, astream).

Only the import lines differ. A callback handler counts the tokens each side reports.
"""

from __future__ import annotations

import asyncio

from tests.compat.snippet import Snippet, plain

CUSTOM_LLM = Snippet(
    langchain="""
        from typing import Any, Dict, Iterator, List, Mapping, Optional
        from langchain_core.callbacks import BaseCallbackHandler
        from langchain_core.callbacks.manager import CallbackManagerForLLMRun
        from langchain_core.language_models.llms import LLM
        from langchain_core.outputs import GenerationChunk
        from langchain_core.prompts import ChatPromptTemplate
    """,
    ragkit="""
        from typing import Any, Dict, Iterator, List, Mapping, Optional
        from ragkit.core import BaseCallbackHandler
        from ragkit.core import CallbackManagerForLLMRun
        from ragkit.llms import LLM
        from ragkit.models import GenerationChunk
        from ragkit.prompts import ChatPromptTemplate
    """,
    body='''
        class CustomLLM(LLM):
            """A custom chat model that echoes the first `n` characters of the input."""

            n: int
            """The number of characters from the last message of the prompt to be echoed."""

            def _call(
                self,
                prompt: str,
                stop: Optional[List[str]] = None,
                run_manager: Optional[CallbackManagerForLLMRun] = None,
                **kwargs: Any,
            ) -> str:
                if stop is not None:
                    raise ValueError("stop kwargs are not permitted.")
                return prompt[: self.n]

            def _stream(
                self,
                prompt: str,
                stop: Optional[List[str]] = None,
                run_manager: Optional[CallbackManagerForLLMRun] = None,
                **kwargs: Any,
            ) -> Iterator[GenerationChunk]:
                for char in prompt[: self.n]:
                    chunk = GenerationChunk(text=char)
                    if run_manager:
                        run_manager.on_llm_new_token(chunk.text, chunk=chunk)
                    yield chunk

            @property
            def _identifying_params(self) -> Dict[str, Any]:
                """Return a dictionary of identifying parameters."""
                return {"model_name": "CustomChatModel"}

            @property
            def _llm_type(self) -> str:
                return "custom"

        class Tokens(BaseCallbackHandler):
            def __init__(self):
                self.tokens = []

            def on_llm_new_token(self, token, **kwargs):
                self.tokens.append(token)

        llm = CustomLLM(n=5)
        invoked = llm.invoke("This is a foobar thing")
        ainvoked = asyncio.run(llm.ainvoke("world"))
        batched = llm.batch(["woof woof woof", "meow meow meow"])
        abatched = asyncio.run(llm.abatch(["woof woof woof", "meow meow meow"]))
        streamed = list(llm.stream("hello there"))

        async def collect():
            return [token async for token in llm.astream("hello")]

        astreamed = asyncio.run(collect())
        handler = Tokens()
        with_handler = list(llm.stream("hello", config={"callbacks": [handler]}))
        params = llm._identifying_params
        llm_type = llm._llm_type

        prompt = ChatPromptTemplate.from_messages(
            [("system", "you are a bot"), ("human", "{input}")]
        )
        chain = prompt | CustomLLM(n=7)
        chained = chain.invoke({"input": "hello there!"})
        chain_stream = list(chain.stream({"input": "hello there!"}))
        stop_error = None
        try:
            llm.invoke("x", stop=["y"])
        except ValueError as e:
            stop_error = str(e)
    ''',
)


def test_the_custom_llm_page_runs_the_same():
    lc, rk = CUSTOM_LLM.run_both(asyncio=asyncio)
    for key in ("invoked", "ainvoked", "batched", "abatched", "streamed", "astreamed"):
        assert rk[key] == lc[key], key
    assert rk["invoked"] == "This " and rk["batched"] == ["woof ", "meow "]
    assert rk["streamed"] == list("hello") and all(isinstance(t, str) for t in rk["streamed"])
    assert rk["with_handler"] == lc["with_handler"] == list("hello")
    assert rk["handler"].tokens == lc["handler"].tokens == list("hello")
    assert rk["params"] == lc["params"] and rk["llm_type"] == lc["llm_type"] == "custom"
    assert rk["chained"] == lc["chained"] and rk["chain_stream"] == lc["chain_stream"]
    assert rk["stop_error"] == lc["stop_error"] == "stop kwargs are not permitted."


CUSTOM_CHAT_MODEL = Snippet(
    langchain="""
        from typing import Any, Dict, Iterator, List, Optional
        from langchain_core.callbacks import CallbackManagerForLLMRun
        from langchain_core.language_models import BaseChatModel
        from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
        from langchain_core.messages.ai import UsageMetadata
        from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
        from pydantic import Field
    """,
    ragkit="""
        from typing import Any, Dict, Iterator, List, Optional
        from ragkit.core import CallbackManagerForLLMRun
        from ragkit.models import BaseChatModel
        from ragkit.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
        from ragkit.messages import UsageMetadata
        from ragkit.models import ChatGeneration, ChatGenerationChunk, ChatResult
        from pydantic import Field
    """,
    body='''
        class ChatParrotLink(BaseChatModel):
            """A custom chat model that echoes the first `parrot_buffer_length` characters
            of the input."""

            model_name: str = Field(alias="model")
            """The name of the model"""
            parrot_buffer_length: int
            """The number of characters from the last message of the prompt to be echoed."""
            temperature: Optional[float] = None
            max_tokens: Optional[int] = None
            timeout: Optional[int] = None
            stop: Optional[List[str]] = None
            max_retries: int = 2

            def _generate(
                self,
                messages: List[BaseMessage],
                stop: Optional[List[str]] = None,
                run_manager: Optional[CallbackManagerForLLMRun] = None,
                **kwargs: Any,
            ) -> ChatResult:
                # Replace this with actual logic to generate a response from a list
                # of messages.
                last_message = messages[-1]
                tokens = last_message.content[: self.parrot_buffer_length]
                ct_input_tokens = sum(len(message.content) for message in messages)
                ct_output_tokens = len(tokens)
                message = AIMessage(
                    content=tokens,
                    additional_kwargs={},  # Used to add additional payload to the message
                    response_metadata={  # Use for response metadata
                        "time_in_seconds": 3,
                        "model_name": self.model_name,
                    },
                    usage_metadata={
                        "input_tokens": ct_input_tokens,
                        "output_tokens": ct_output_tokens,
                        "total_tokens": ct_input_tokens + ct_output_tokens,
                    },
                )
                generation = ChatGeneration(message=message)
                return ChatResult(generations=[generation])

            def _stream(
                self,
                messages: List[BaseMessage],
                stop: Optional[List[str]] = None,
                run_manager: Optional[CallbackManagerForLLMRun] = None,
                **kwargs: Any,
            ) -> Iterator[ChatGenerationChunk]:
                last_message = messages[-1]
                tokens = str(last_message.content[: self.parrot_buffer_length])
                ct_input_tokens = sum(len(message.content) for message in messages)

                for token in tokens:
                    usage_metadata = UsageMetadata(
                        {
                            "input_tokens": ct_input_tokens,
                            "output_tokens": 1,
                            "total_tokens": ct_input_tokens + 1,
                        }
                    )
                    ct_input_tokens = 0
                    chunk = ChatGenerationChunk(
                        message=AIMessageChunk(content=token, usage_metadata=usage_metadata)
                    )

                    if run_manager:
                        # This is optional in newer versions of LangChain
                        # The on_llm_new_token will be called automatically
                        run_manager.on_llm_new_token(token, chunk=chunk)

                    yield chunk

                # Let's add some other information (e.g., response metadata)
                chunk = ChatGenerationChunk(
                    message=AIMessageChunk(
                        content="",
                        response_metadata={"time_in_sec": 3, "model_name": self.model_name},
                    )
                )
                if run_manager:
                    # This is optional in newer versions of LangChain
                    # The on_llm_new_token will be called automatically
                    run_manager.on_llm_new_token(token, chunk=chunk)
                yield chunk

            @property
            def _llm_type(self) -> str:
                """Get the type of language model used by this chat model."""
                return "echoing-chat-model-advanced"

            @property
            def _identifying_params(self) -> Dict[str, Any]:
                """Return a dictionary of identifying parameters."""
                return {"model_name": self.model_name}

        model = ChatParrotLink(parrot_buffer_length=3, model="my_custom_model")
        conversation = model.invoke(
            [
                HumanMessage(content="hello!"),
                AIMessage(content="Hi there human!"),
                HumanMessage(content="Meow!"),
            ]
        )
        hello = model.invoke("hello")
        batched = model.batch(["hello", "goodbye"])
        streamed = [chunk.content for chunk in model.stream("cat")]

        async def collect():
            return [chunk.content async for chunk in model.astream("cat")]

        astreamed = asyncio.run(collect())
        params = model._identifying_params
    ''',
)


def _reply(message):
    return {
        "type": plain(message)["type"],
        "content": message.content,
        "usage": dict(message.usage_metadata or {}),
        "model_name": message.response_metadata["model_name"],
    }


def test_the_custom_chat_model_page_runs_the_same():
    lc, rk = CUSTOM_CHAT_MODEL.run_both(asyncio=asyncio)
    assert _reply(rk["conversation"]) == _reply(lc["conversation"])
    assert rk["conversation"].content == "Meo"
    assert _reply(rk["hello"]) == _reply(lc["hello"])
    assert [_reply(m) for m in rk["batched"]] == [_reply(m) for m in lc["batched"]]
    # LangChain 1.x ends every chat stream with one more empty chunk (chunk_position="last")
    assert rk["streamed"] == ["c", "a", "t", ""] and lc["streamed"][:4] == rk["streamed"]
    assert rk["astreamed"] == rk["streamed"] and lc["astreamed"] == lc["streamed"]
    assert rk["params"] == lc["params"] == {"model_name": "my_custom_model"}
