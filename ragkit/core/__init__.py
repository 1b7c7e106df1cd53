"""The Runnable core: the protocol every ragkit component implements, and its combinators.

Only pydantic is imported here; nothing heavy.
"""

from typing import TYPE_CHECKING, Any

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
from ragkit.core.fallbacks import RunnableWithFallbacks
from ragkit.core.lambdas import RunnableGenerator, RunnableLambda, chain
from ragkit.core.parallel import RunnableMap, RunnableParallel
from ragkit.core.passthrough import RunnableAssign, RunnablePassthrough, RunnablePick
from ragkit.core.retry import RunnableRetry
from ragkit.core.sequence import RunnableSequence

if TYPE_CHECKING:
    from ragkit.core.log import RunLog, RunLogPatch


def __getattr__(name: str) -> Any:
    # The log stream pulls in asyncio; load it only when asked for.
    if name in ("RunLog", "RunLogPatch"):
        from ragkit.core import log

        return getattr(log, name)
    raise AttributeError(f"module 'ragkit.core' has no attribute {name!r}")


__all__ = [
    "BaseCallbackHandler",
    "CallbackManager",
    "Run",
    "RunLog",
    "RunLogPatch",
    "Runnable",
    "RunnableAssign",
    "RunnableBinding",
    "RunnableBranch",
    "RunnableConfig",
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
