"""Example selectors: which few-shot examples go into a prompt (LangChain's names).

Example:
    >>> from ragkit.example_selectors import LengthBasedExampleSelector
    >>> from ragkit.prompts import PromptTemplate
    >>> selector = LengthBasedExampleSelector(
    ...     examples=[{"q": "2+2", "a": "4"}, {"q": "3+3", "a": "6"}],
    ...     example_prompt=PromptTemplate.from_template("{q} = {a}"), max_length=7)
    >>> selector.select_examples({"q": "5+5"})
    [{'q': '2+2', 'a': '4'}, {'q': '3+3', 'a': '6'}]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "BaseExampleSelector",
    "LengthBasedExampleSelector",
    "MaxMarginalRelevanceExampleSelector",
    "NGramOverlapExampleSelector",
    "SemanticSimilarityExampleSelector",
    "ngram_overlap_score",
]

_LAZY = {
    "BaseExampleSelector": "ragkit.example_selectors.base",
    "LengthBasedExampleSelector": "ragkit.example_selectors.length_based",
    "NGramOverlapExampleSelector": "ragkit.example_selectors.ngram_overlap",
    "ngram_overlap_score": "ragkit.example_selectors.ngram_overlap",
    "MaxMarginalRelevanceExampleSelector": "ragkit.example_selectors.semantic_similarity",
    "SemanticSimilarityExampleSelector": "ragkit.example_selectors.semantic_similarity",
}

if TYPE_CHECKING:
    from ragkit.example_selectors.base import BaseExampleSelector
    from ragkit.example_selectors.length_based import LengthBasedExampleSelector
    from ragkit.example_selectors.ngram_overlap import (
        NGramOverlapExampleSelector,
        ngram_overlap_score,
    )
    from ragkit.example_selectors.semantic_similarity import (
        MaxMarginalRelevanceExampleSelector,
        SemanticSimilarityExampleSelector,
    )
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
