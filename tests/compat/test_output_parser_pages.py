"""LangChain's output-parser how-to pages, run on LangChain and on ragkit.

Sources: https://python.langchain.com/docs/how_to/output_parser_structured/ (``Joke`` with
``PydanticOutputParser``), https://python.langchain.com/docs/how_to/output_parser_json/
(``JsonOutputParser(pydantic_object=Joke)``), https://python.langchain.com/docs/how_to/output_parser_xml/
(``XMLOutputParser(tags=[...])``), https://python.langchain.com/docs/how_to/output_parser_yaml/
(``YamlOutputParser``) and the datetime and structured parsers of
https://python.langchain.com/docs/concepts/output_parsers/.

Each page puts ``parser.get_format_instructions()`` into the prompt; the text a model would
receive (``prompt.invoke(...).to_string()``) and the parsed replies must be the same. The
model is a fake with a scripted reply. Only the imports differ.
"""

from __future__ import annotations

from tests.compat.snippet import Snippet, plain

PARSERS = Snippet(
    langchain="""
        from langchain_core.language_models.fake_chat_models import FakeListChatModel as Fake
        from langchain_core.output_parsers import JsonOutputParser, PydanticOutputParser
        from langchain_core.output_parsers import XMLOutputParser
        from langchain_classic.output_parsers import DatetimeOutputParser, YamlOutputParser
        from langchain_classic.output_parsers import ResponseSchema, StructuredOutputParser
        from langchain_core.prompts import PromptTemplate
        from pydantic import BaseModel, Field, model_validator
    """,
    ragkit="""
        from ragkit.models import FakeChatModel as Fake
        from ragkit.parsers import JsonOutputParser, PydanticOutputParser
        from ragkit.parsers import XMLOutputParser
        from ragkit.parsers import DatetimeOutputParser, YamlOutputParser
        from ragkit.parsers import ResponseSchema, StructuredOutputParser
        from ragkit.prompts import PromptTemplate
        from pydantic import BaseModel, Field, model_validator
    """,
    body="""
        class Joke(BaseModel):
            setup: str = Field(description="question to set up a joke")
            punchline: str = Field(description="answer to resolve the joke")

            @model_validator(mode="before")
            @classmethod
            def question_ends_with_question_mark(cls, values: dict) -> dict:
                setup = values.get("setup")
                if setup and setup[-1] != "?":
                    raise ValueError("Badly formed question!")
                return values

        def run(parser, reply, query="Tell me a joke."):
            prompt = PromptTemplate(
                template="Answer the user query.\\n{format_instructions}\\n{query}\\n",
                input_variables=["query"],
                partial_variables={"format_instructions": parser.get_format_instructions()},
            )
            sent = prompt.invoke({"query": query}).to_string()
            chain = prompt | Fake(responses=[reply]) | parser
            return sent, chain.invoke({"query": query})

        joke = '{"setup": "Why did the chicken cross the road?", "punchline": "To get to the other side"}'
        pydantic_page = run(PydanticOutputParser(pydantic_object=Joke), joke)
        json_page = run(JsonOutputParser(pydantic_object=Joke), joke)
        xml_page = run(
            XMLOutputParser(tags=["movies", "actor", "film", "name", "genre"]),
            "<movies><actor><name>Tom Hanks</name><film><name>Big</name></film></actor></movies>",
            "Generate the shortened filmography for Tom Hanks.",
        )
        yaml_page = run(
            YamlOutputParser(pydantic_object=Joke),
            "```yaml\\nsetup: Why?\\npunchline: Because.\\n```",
        )
        datetime_page = run(DatetimeOutputParser(), "2009-01-03T18:15:05.000000Z", "When?")
        structured_page = run(
            StructuredOutputParser.from_response_schemas(
                [
                    ResponseSchema(name="answer", description="answer to the user's question"),
                    ResponseSchema(name="source", description="source used to answer"),
                ]
            ),
            '```json\\n{"answer": "Paris", "source": "atlas"}\\n```',
            "what's the capital of france?",
        )
    """,
)


def test_the_output_parser_pages_send_and_parse_the_same():
    lc, rk = PARSERS.run_both()
    for page in (
        "pydantic_page",
        "json_page",
        "xml_page",
        "yaml_page",
        "datetime_page",
        "structured_page",
    ):
        lc_sent, lc_parsed = lc[page]
        rk_sent, rk_parsed = rk[page]
        assert rk_sent == lc_sent, page  # the prompt text a model receives
        assert plain(rk_parsed) == plain(lc_parsed), page
