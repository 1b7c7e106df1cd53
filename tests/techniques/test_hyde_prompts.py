"""HyDE's prompts are LangChain's: the same keys, wording and variable names (issue 25).

Regression: ``mr_tydi`` was missing, and ``trec_covid``, ``fiqa``, ``dbpedia_entity`` and
``trec_news`` took other variable names and other words than LangChain's.
"""

from __future__ import annotations

import warnings

from ragkit.embeddings import HashEmbeddings
from ragkit.llms import FakeListLLM
from ragkit.techniques.hyde import PROMPT_MAP, HypotheticalDocumentEmbedder

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_classic.chains.hyde.prompts import PROMPT_MAP as LC_PROMPT_MAP


def test_prompt_keys_wording_and_variables_are_langchains():
    assert sorted(PROMPT_MAP) == sorted(LC_PROMPT_MAP)
    for key, theirs in LC_PROMPT_MAP.items():
        ours = PROMPT_MAP[key]
        assert ours.template == theirs.template, key
        assert ours.input_variables == theirs.input_variables, key
        values = dict.fromkeys(theirs.input_variables, "what wears a chain?")
        assert ours.format(**values) == theirs.format(**values)


def test_each_prompt_key_sends_langchains_text_to_the_model():
    for key, theirs in LC_PROMPT_MAP.items():
        llm = FakeListLLM(responses=["a passage"])
        hyde = HypotheticalDocumentEmbedder.from_llm(llm, HashEmbeddings(16), prompt_key=key)
        hyde.embed_query("q")
        assert llm.prompts == [theirs.format(**{theirs.input_variables[0]: "q"})]
