"""The Runnable core: the protocol every ragkit component implements, and its combinators.

Names load on first use; the core itself imports only pydantic.

Example:
    >>> from ragkit.core import RunnableLambda, RunnableParallel
    >>> RunnableParallel(double=RunnableLambda(lambda x: x * 2), same=lambda x: x).invoke(3)
    {'double': 6, 'same': 3}
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "AsyncCallbackManagerForLLMRun",
    "AsyncCallbackManagerForToolRun",
    "CallbackManagerForLLMRun",
    "CallbackManagerForToolRun",
    "BaseCallbackHandler",
    "CallbackManager",
    "ConfigurableField",
    "ConfigurableFieldMultiOption",
    "ConfigurableFieldSingleOption",
    "ConfigurableFieldSpec",
    "Graph",
    "Run",
    "RunLog",
    "RunLogPatch",
    "Runnable",
    "RunnableAssign",
    "RunnableBinding",
    "RunnableBranch",
    "RunnableConfig",
    "RunnableConfigurableAlternatives",
    "RunnableConfigurableFields",
    "RunnableGenerator",
    "RunnableLambda",
    "RunnableMap",
    "RunnableParallel",
    "RunnablePassthrough",
    "RunnablePick",
    "RunnableRetry",
    "RunnableSequence",
    "RunnableWithFallbacks",
    "StreamingRunnable",
    "adispatch_custom_event",
    "chain",
    "coerce_to_runnable",
    "dispatch_custom_event",
    "ensure_config",
    "merge_configs",
    "patch_config",
]

_LAZY = {
    "AsyncCallbackManagerForLLMRun": "ragkit.core.llm_run",
    "AsyncCallbackManagerForToolRun": "ragkit.core.llm_run",
    "CallbackManagerForToolRun": "ragkit.core.llm_run",
    "CallbackManagerForLLMRun": "ragkit.core.llm_run",
    "Runnable": "ragkit.core.base",
    "StreamingRunnable": "ragkit.core.base",
    "coerce_to_runnable": "ragkit.core.base",
    "RunnableBinding": "ragkit.core.binding",
    "RunnableBranch": "ragkit.core.branch",
    "BaseCallbackHandler": "ragkit.core.callbacks",
    "CallbackManager": "ragkit.core.callbacks",
    "Run": "ragkit.core.callbacks",
    "adispatch_custom_event": "ragkit.core.callbacks",
    "dispatch_custom_event": "ragkit.core.callbacks",
    "RunnableConfig": "ragkit.core.config",
    "ConfigurableField": "ragkit.core.configurable",
    "ConfigurableFieldMultiOption": "ragkit.core.configurable",
    "ConfigurableFieldSingleOption": "ragkit.core.configurable",
    "ConfigurableFieldSpec": "ragkit.core.configurable",
    "RunnableConfigurableAlternatives": "ragkit.core.configurable",
    "RunnableConfigurableFields": "ragkit.core.configurable",
    "Graph": "ragkit.core.graph",
    "ensure_config": "ragkit.core.config",
    "merge_configs": "ragkit.core.config",
    "patch_config": "ragkit.core.config",
    "RunnableWithFallbacks": "ragkit.core.fallbacks",
    "RunnableGenerator": "ragkit.core.lambdas",
    "RunnableLambda": "ragkit.core.lambdas",
    "chain": "ragkit.core.lambdas",
    "RunLog": "ragkit.core.log",
    "RunLogPatch": "ragkit.core.log",
    "RunnableMap": "ragkit.core.parallel",
    "RunnableParallel": "ragkit.core.parallel",
    "RunnableAssign": "ragkit.core.passthrough",
    "RunnablePassthrough": "ragkit.core.passthrough",
    "RunnablePick": "ragkit.core.passthrough",
    "RunnableRetry": "ragkit.core.retry",
    "RunnableSequence": "ragkit.core.sequence",
}

if TYPE_CHECKING:
    from ragkit.core.base import Runnable, StreamingRunnable, coerce_to_runnable
    from ragkit.core.binding import RunnableBinding
    from ragkit.core.branch import RunnableBranch
    from ragkit.core.callbacks import (
        BaseCallbackHandler,
        CallbackManager,
        Run,
        adispatch_custom_event,
        dispatch_custom_event,
    )
    from ragkit.core.config import RunnableConfig, ensure_config, merge_configs, patch_config
    from ragkit.core.configurable import (
        ConfigurableField,
        ConfigurableFieldMultiOption,
        ConfigurableFieldSingleOption,
        ConfigurableFieldSpec,
        RunnableConfigurableAlternatives,
        RunnableConfigurableFields,
    )
    from ragkit.core.fallbacks import RunnableWithFallbacks
    from ragkit.core.graph import Graph
    from ragkit.core.lambdas import RunnableGenerator, RunnableLambda, chain
    from ragkit.core.llm_run import (
        AsyncCallbackManagerForLLMRun,
        AsyncCallbackManagerForToolRun,
        CallbackManagerForLLMRun,
        CallbackManagerForToolRun,
    )
    from ragkit.core.log import RunLog, RunLogPatch
    from ragkit.core.parallel import RunnableMap, RunnableParallel
    from ragkit.core.passthrough import RunnableAssign, RunnablePassthrough, RunnablePick
    from ragkit.core.retry import RunnableRetry
    from ragkit.core.sequence import RunnableSequence
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
