"""Making permission bits bind root too: child processes without CAP_DAC_OVERRIDE/READ_SEARCH.

The suite may run as root, for whom ``chmod 000`` denies nothing. A child started with
``preexec_fn=drop_file_access_override`` loses the two capabilities that let root bypass
permission bits (dropped from the bounding set, so they are gone after ``exec``); it keeps
uid 0 and so still owns and reaches the files it created. As a normal user this does nothing:
permission bits already apply.

Example:
    >>> # subprocess.run([...], preexec_fn=drop_file_access_override)
"""

from __future__ import annotations

import ctypes
import os

PR_CAPBSET_DROP = 24
CAP_DAC_OVERRIDE = 1
CAP_DAC_READ_SEARCH = 2


def drop_file_access_override() -> None:
    """Drop root's power to ignore permission bits for this process's future ``exec``."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"prctl(PR_CAPBSET_DROP, {cap}) failed: {os.strerror(err)}")
