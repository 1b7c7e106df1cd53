"""One real local Ray cluster for the tests of this folder (it takes ~10 s to start; it stops
when they are done, so its dozen processes do not idle through the rest of the suite).

The workers import the test models from this repository (``tests.distributed.models``), so
the repository goes on their ``PYTHONPATH``. Ray not installed is a failure, not a skip:
``make setup`` installs it (the ``ray`` extra is in ``all``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import ray

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="package")
def ray_cluster():
    """The cluster of tests/distributed; yields its GCS address (for drivers in other processes)."""
    if ray.is_initialized():
        ray.shutdown()
    path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), path) if p)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()
        if path:
            os.environ["PYTHONPATH"] = path
        else:
            os.environ.pop("PYTHONPATH", None)
