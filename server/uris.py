"""URIs and files, in one place: how a URI names a document, and how a file is read without blocking.

pygls keys open documents by the *unquoted* URI (``file:///space dir ü/a.yaml``) while clients and
``from_fs_path`` send the quoted one (``file:///space%20dir%20%C3%BC/a.yaml``): every comparison of the two
spellings goes through :func:`key`. Files are read only when ``os.stat`` says they are regular and small:
opening a FIFO at an eval path would block the event loop forever.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from urllib.parse import unquote

from pygls.uris import from_fs_path, to_fs_path

from evalens.core.regular_files import read_regular_bytes

MAX_READ = 4 * 1024 * 1024
"""Bytes read from disk at most (the parser refuses files over 2 MB anyway and says so)."""


def key(uri: str) -> str:
    """The identity of a document: the same for every spelling of its URI (as pygls keys open documents)."""
    return unquote(uri)


def path_of(uri: str) -> str | None:
    """The file system path of a ``file:`` URI, else None (never raises on a malformed URI)."""
    try:
        return to_fs_path(uri)
    except Exception:  # noqa: BLE001 - a hostile URI is no path
        return None


def usable_path(uri: str) -> str | None:
    """The path of ``uri`` if the file system can even look it up (no NUL, no component over 255 bytes,
    at most 4,096 bytes), else None: ``Path.is_dir`` raises instead of answering False on such names."""
    path = path_of(uri)
    if not path or "\x00" in path or len(os.fsencode(path)) > 4096:
        return None
    if any(len(os.fsencode(part)) > 255 for part in Path(path).parts):
        return None
    return path


def uri_of(path: str | Path) -> str | None:
    try:
        return from_fs_path(str(path))
    except Exception:  # noqa: BLE001
        return None


def is_regular_file(path: str | Path) -> bool:
    """``Path.is_file`` that never raises (names over 255 bytes, NUL bytes, permission errors)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def read_regular(path: str | Path) -> str | None:
    """The text of a regular file (FIFOs, devices and sockets are never opened), or None."""
    raw = read_regular_bytes(path, MAX_READ)
    if raw is None:
        return None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
