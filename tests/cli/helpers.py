"""Run the real ``ragkit`` command in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


# RAGKIT_* settings a command run by a test keeps: they change how fast, never what it does
# (tests/conftest.py sets RAGKIT_ONNX_THREADS=1 in each pytest-xdist worker)
SPEED_ONLY = ("RAGKIT_ONNX_THREADS",)


def without_settings(drop: tuple[str, ...]) -> dict[str, str]:
    """This process's environment without the ``RAGKIT_*`` settings (but SPEED_ONLY) and
    without the variables in ``drop``."""
    return {
        k: v
        for k, v in os.environ.items()
        if (not k.startswith("RAGKIT_") or k in SPEED_ONLY) and k not in drop
    }


def env(**extra: str) -> dict[str, str]:
    base = without_settings(
        (
            "GOOGLE_API_KEY",
            "GEMINI_API_KEY",
            "GOOGLE_GEMINI_BASE_URL",
            "OPENAI_API_KEY",
            "OPENAI_API_BASE",
            "OPENAI_BASE_URL",
        )
    )
    base["PYTHONPATH"] = str(REPO) + os.pathsep + base.get("PYTHONPATH", "")
    return {**base, **extra}


def ragkit(
    *args: object, check_json: bool = False, timeout: float = 120, **env_extra: str
) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "ragkit", *map(str, args)]
    proc = subprocess.run(
        cmd, capture_output=True, text=True, timeout=timeout, env=env(**env_extra)
    )
    if check_json:
        proc.data = json.loads(proc.stdout)  # type: ignore[attr-defined]
    return proc


def start(*args: object, **env_extra: str) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "ragkit", *map(str, args)]
    return subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env(**env_extra)
    )
