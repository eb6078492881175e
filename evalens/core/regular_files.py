"""Reading a file only if it is a regular file: a FIFO, device or socket named in an eval file is never opened;
writing a JSON file atomically, so a reader never sees half of one."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any


@contextlib.contextmanager
def open_regular(path: str | Path, *, follow_links: bool = True) -> Iterator[int | None]:
    """A read-only descriptor of ``path`` if it is a regular file, never blocking on a FIFO; None when it is not,
    or cannot be opened. ``follow_links=False`` for a folder the agent wrote (it may have planted a link out)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow_links else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except (OSError, ValueError):
        yield None
        return
    try:
        yield fd if stat.S_ISREG(os.fstat(fd).st_mode) else None
    finally:
        os.close(fd)


def read_chunks(fd: int, limit: int) -> Iterator[bytes]:
    """The first ``limit`` bytes of ``fd``, a chunk at a time."""
    remaining = limit
    while remaining > 0 and (chunk := os.read(fd, min(1 << 20, remaining))):
        remaining -= len(chunk)
        yield chunk


def read_regular_bytes(path: str | Path, limit: int, *, follow_links: bool = True) -> bytes | None:
    """Up to ``limit + 1`` bytes of a regular file (so callers can tell an oversized one), or None."""
    try:
        with open_regular(path, follow_links=follow_links) as fd:
            return None if fd is None else b"".join(read_chunks(fd, limit + 1))
    except OSError:
        return None


MAX_INPUT_BYTES = 256 << 20  # a report, record or eval file the CLI reads whole (EVALENS_MAX_INPUT_MB)


class NotRegularFile(OSError):
    """A path the CLI was told to read is not a regular file (a FIFO, device, socket, folder) or is too large;
    ``strerror`` is the one-line reason, so callers that print ``exc.strerror`` say it plainly."""


def input_limit() -> int:
    try:
        return max(1, int(os.environ.get("EVALENS_MAX_INPUT_MB", ""))) << 20
    except ValueError:
        return MAX_INPUT_BYTES


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a folder"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def read_regular(path: str | Path, limit: int | None = None) -> bytes:
    """The whole content of a regular file of at most ``limit`` bytes (default :func:`input_limit`). A FIFO is
    never waited on, a device (``/dev/zero``) never read: both raise :class:`NotRegularFile`, as does a file
    over the limit; other failures raise ``OSError`` as usual."""
    limit = input_limit() if limit is None else limit
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = _kind(st.st_mode)
            raise NotRegularFile(
                0,
                f"it is {kind}, not a regular file" if kind.startswith("a ") else "it is not a regular file",
                str(path),
            )
        if st.st_size > limit:
            raise NotRegularFile(0, f"it is larger than {limit >> 20} MB (EVALENS_MAX_INPUT_MB)", str(path))
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(limit + 1)
        if len(data) > limit:
            raise NotRegularFile(0, f"it is larger than {limit >> 20} MB (EVALENS_MAX_INPUT_MB)", str(path))
        return data
    finally:
        os.close(fd)


class LinkRefused(OSError):
    """evalens will not write through a link: the file, or a folder between the repository root and it, is a
    symbolic link (a committed ``evals/cassettes/x.json.tmp -> ~/.bashrc``). ``strerror`` says which."""


def refuse_links(path: Path, below: Path | None = None) -> None:
    """Raise :class:`LinkRefused` when ``path`` is a link, or any folder from ``below`` (exclusive: the
    repository's own location may be reached through a link) down to ``path``'s parent is one."""
    path = Path(os.path.abspath(path))
    chain = [path]
    if below is not None:
        top = Path(os.path.abspath(below))
        with contextlib.suppress(ValueError):
            rel = path.parent.relative_to(top)
            chain += [top.joinpath(*rel.parts[: i + 1]) for i in range(len(rel.parts))]
    for part in chain:
        if os.path.islink(part):
            raise LinkRefused(
                0, f"{part} is a symbolic link; evalens does not write through links", str(part)
            )


def write_text_atomic(
    path: Path, text: str, *, below: Path | None = None, durable: bool = False, mode: int = 0o644
) -> Path:
    """Write ``text`` to ``path`` without ever following a link: links refused (:func:`refuse_links`), the
    content written to a fresh temporary file beside it (``O_CREAT | O_EXCL`` with a random name, which a
    committed link cannot be waiting at) and renamed over ``path`` (a rename replaces a name, never writes
    through it). ``durable``: fsynced first, so a crash leaves the old file or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    refuse_links(path, below)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path


def write_json_atomic(
    path: Path,
    data: Any,
    *,
    indent: int,
    ensure_ascii: bool = True,
    durable: bool = False,
    below: Path | None = None,
) -> Path:
    """Write ``data`` as JSON through :func:`write_text_atomic` (a temporary file renamed into place, never
    through a link; ``durable``: fsynced first, so a crash leaves the old file or the new one, never an empty
    one)."""
    text = json.dumps(data, indent=indent, ensure_ascii=ensure_ascii) + "\n"
    return write_text_atomic(path, text, below=below, durable=durable, mode=0o600)
