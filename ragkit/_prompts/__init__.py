"""Prompt templates beyond the basic ones, one module each; import them from :mod:`ragkit.prompts`.

Example:
    >>> from ragkit.prompts import FewShotPromptTemplate
    >>> FewShotPromptTemplate.__module__
    'ragkit._prompts.few_shot'
"""
