"""The Ray engine: files read, split and embedded on a Ray cluster
(:mod:`~ragkit.indexing.ray.engine`), and, for a PostgreSQL index, written by the workers
themselves (:mod:`~ragkit.indexing.ray.write`). Needs ``pip install 'ragkit[ray]'``; Ray is
imported only when a run starts.

Example:
    >>> from ragkit.indexing.ray import RayEngine
    >>> RayEngine("auto", actors=2)
    RayEngine(address='auto', actors=2, gpus_per_actor=0.0)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragkit._lazy import lazy_exports

__all__ = [
    "RayEngine",
]

_LAZY = {
    "RayEngine": "ragkit.indexing.ray.engine",
}

if TYPE_CHECKING:
    from ragkit.indexing.ray.engine import RayEngine
else:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)
