"""Error handling shared by the ``ragkit`` commands: a clear message and the right exit code.

Exit codes: 0 success, 1 some files (or the job) failed, 2 usage errors (bad
options, missing paths, wrong model), 130 interrupted.

Example:
    >>> @guarded
    ... def ok() -> int:
    ...     return 1
    >>> ok()
    1
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

from ragkit._cli import output


def fail(err: Exception) -> None:
    """Print ``err`` and exit 2 (usage) or 1 (everything else)."""
    from ragkit.errors import ConfigurationError, IndexMismatchError, InvalidQueryError

    output.err(f"error: {err}")
    usage = (ConfigurationError, IndexMismatchError, InvalidQueryError)
    sys.exit(2 if isinstance(err, usage) else 1)


def guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Runs a command body: ragkit errors become a message and exit 1 or 2, Ctrl-C exits 130."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from ragkit.errors import RagkitError

        try:
            return fn(*args, **kwargs)
        except (RagkitError, OSError) as err:
            fail(err)
        except ImportError as err:
            output.err(
                f"error: {err}. This feature needs an optional dependency or a ragkit part that is not "
                "installed: pip install 'ragkit[local]' (or [google], [eval])"
            )
            sys.exit(1)
        except KeyboardInterrupt:
            output.err("interrupted: the index is left as it was before this run; rerun to resume")
            sys.exit(130)

    return wrapper
