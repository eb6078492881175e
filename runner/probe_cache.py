"""What a run learned by probing this machine's tools (a CLI's ``--version``, that a judge SDK imports), kept
across processes for as long as the probed files stay the same.

Why: a first click in a fresh editor paid every probe again (issue 45: ~4 s between "starting: planning" and the
agent's start, 3 s of it importing the judge's SDK only to prove it imports, 0.3 s asking ``codex --version``),
although nothing had changed since the last process asked. A record is keyed by the identity of the files the
answer came from (:func:`file_key`: path, resolved path, inode, size, mtime and ctime), so replacing, upgrading or
touching the CLI or the SDK asks again. Only successes are kept: a CLI that does not run or an SDK that does not
import is asked again every time, so a fixed install is seen at once. A cache that cannot be read or written is
no cache (never an error); ``EVALENS_CACHE_DIR`` moves it, ``EVALENS_CACHE_DIR=`` (empty) turns it off.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

MAX_ENTRIES = 64  # per kind: a machine has a handful of CLIs and SDKs; old entries fall off
_lock = threading.Lock()


def cache_dir() -> Path | None:
    """``$EVALENS_CACHE_DIR``, else ``$XDG_CACHE_HOME/evalens``, else ``~/.cache/evalens``; None: off."""
    env = os.environ.get("EVALENS_CACHE_DIR")
    if env is not None:
        return Path(env) if env else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "evalens"


def file_key(path: str | os.PathLike[str]) -> list[Any] | None:
    """The identity of a file as a probe's answer depends on it: the path and what it resolves to (a
    ``node_modules/.bin`` link), with inode, size, mtime and ctime of the file itself (an ``npm install`` or
    ``pip install`` replaces files: a new inode, a new ctime). None when it cannot be read."""
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
    except OSError:
        return None
    return [os.fspath(path), real, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _file(kind: str) -> Path | None:
    base = cache_dir()
    return base / f"{kind}.json" if base is not None else None


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def recall(kind: str, name: str, key: Any) -> Any | None:
    """The value remembered for ``name`` under exactly ``key``; None when there is none or the key changed."""
    path = _file(kind)
    if path is None or key is None:
        return None
    entry = _read(path).get(name)
    if not isinstance(entry, dict) or entry.get("key") != json.loads(json.dumps(key)):
        return None
    return entry.get("value")


def remember(kind: str, name: str, key: Any, value: Any) -> None:
    """Keep ``value`` for ``name`` under ``key`` (written atomically: concurrent runs never read half a file)."""
    path = _file(kind)
    if path is None or key is None:
        return
    with _lock:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            data = _read(path)
            data.pop(name, None)
            data[name] = {"key": key, "value": value}
            while len(data) > MAX_ENTRIES:
                data.pop(next(iter(data)))
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{kind}-")
        except OSError:
            return
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh)
            os.replace(tmp, path)
        except (OSError, TypeError, ValueError):
            with contextlib.suppress(OSError):
                os.unlink(tmp)
