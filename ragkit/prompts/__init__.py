"""Prompt templates: PromptTemplate, ChatPromptTemplate, MessagesPlaceholder, and the few-shot
templates (``FewShotPromptTemplate``, ``FewShotChatMessagePromptTemplate``).

Example:
    >>> prompt = ChatPromptTemplate.from_messages(
    ...     [("system", "Answer from the context: {context}"), ("placeholder", "{history}"), ("human", "{question}")]
    ... )
    >>> value = prompt.invoke({"context": "Paris is in France.", "question": "Where is Paris?"})
    >>> [m.type for m in value.to_messages()]
    ['system', 'human']
    >>> PromptTemplate.from_template("Hello {name}!").format(name="Ada")
    'Hello Ada!'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

_LAZY = {
    "AIMessagePromptTemplate": "ragkit.prompts.chat",
    "BasePromptTemplate": "ragkit.prompts.base",
    "ChatPromptTemplate": "ragkit.prompts.chat",
    "ChatPromptValue": "ragkit.prompt_values",
    "FewShotChatMessagePromptTemplate": "ragkit.prompts.few_shot",
    "FewShotPromptTemplate": "ragkit.prompts.few_shot",
    "HumanMessagePromptTemplate": "ragkit.prompts.chat",
    "MessagesPlaceholder": "ragkit.prompts.chat",
    "PromptTemplate": "ragkit.prompts.base",
    "PromptValue": "ragkit.prompt_values",
    "StringPromptValue": "ragkit.prompt_values",
    "SystemMessagePromptTemplate": "ragkit.prompts.chat",
}

if TYPE_CHECKING:
    from ragkit.prompt_values import ChatPromptValue, PromptValue, StringPromptValue
    from ragkit.prompts.base import BasePromptTemplate, PromptTemplate
    from ragkit.prompts.chat import (
        AIMessagePromptTemplate,
        ChatPromptTemplate,
        HumanMessagePromptTemplate,
        MessagesPlaceholder,
        SystemMessagePromptTemplate,
    )
    from ragkit.prompts.few_shot import FewShotChatMessagePromptTemplate, FewShotPromptTemplate
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)

__all__ = [
    "AIMessagePromptTemplate",
    "BasePromptTemplate",
    "ChatPromptTemplate",
    "ChatPromptValue",
    "FewShotChatMessagePromptTemplate",
    "FewShotPromptTemplate",
    "HumanMessagePromptTemplate",
    "MessagesPlaceholder",
    "PromptTemplate",
    "PromptValue",
    "StringPromptValue",
    "SystemMessagePromptTemplate",
]
