"""Reading a file only if it is a regular file: a FIFO, device or socket named in an eval file is never opened."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def read_regular_bytes(path: str | Path, limit: int) -> bytes | None:
    """Up to ``limit + 1`` bytes of a regular file (so callers can tell an oversized one), or None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(limit + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
