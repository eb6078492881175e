"""LSP base-protocol framing that survives a hostile or buggy client.

pygls' reader trusts every frame: a negative or wrong ``Content-Length``, a header block without it, or a
lower-case header name leave it waiting forever or reading garbage. This reader finds frames by their
headers (names case-insensitive, as in HTTP and vscode-jsonrpc), reports each bad frame in one log line
and resynchronises on the next ``Content-Length`` header it sees. What a bad frame held is still handed on
(``Frame.problem`` set) so the protocol can answer a ``ParseError`` when a request id can be recovered.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from types import ModuleType

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # not on Windows: the pipe keeps its default size
    fcntl = None

log = logging.getLogger("evalens.server.transport")

MAX_BODY = 64 * 1024 * 1024
"""A declared length above this is treated as a framing error (nothing legitimate is this big)."""
MAX_JUNK = 1024 * 1024
"""Bytes kept while looking for the next header; older ones are dropped."""
CHUNK = 1024 * 1024
"""Bytes asked for per read of the client's stream."""
AHEAD = 8
"""Chunks the reader thread may read before the loop has taken them."""
IDLE = 0.5
"""Seconds without new bytes after which unframed bytes, or a body shorter than declared, are looked at."""

_HEADER_END = re.compile(rb"\r?\n\r?\n")
_HEADER_LINE = re.compile(rb"^[!#-'*+.0-9A-Z^-z|~-]+[ \t]*:")  # an RFC 7230 token, then a colon
_CONTENT_LENGTH = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)


@dataclass(slots=True)
class Frame:
    """One message body, or bytes that could not be framed (``problem`` says why)."""

    body: bytes
    problem: str | None = None


def _find_content_length(buf: bytearray, start: int, end: int) -> int:
    """Where ``content-length:`` (any case) starts in ``buf[start:end]``, or -1. ``bytes.find`` on a
    lower-cased copy: a case-insensitive regex took 0.3 s over a 10 MB body."""
    lowered = bytes(buf[start:end]).lower()
    i = lowered.find(b"content-length")
    while i >= 0:
        if _CONTENT_LENGTH.match(lowered, i):
            return start + i
        i = lowered.find(b"content-length", i + 1)
    return -1


def _split_junk(head: bytes) -> tuple[bytes, list[bytes]]:
    """(bytes before the headers, header lines). Junk is what a wrong length left behind, glued to the next
    header (``...}Content-Length: 52``)."""
    lines = head.split(b"\n")
    headers: list[bytes] = []
    while lines:
        line = lines[-1].rstrip(b"\r")
        if _HEADER_LINE.match(line):
            headers.insert(0, line)
            lines.pop()
            continue
        found = None
        for m in _CONTENT_LENGTH.finditer(line):
            found = m
        if found is not None:
            headers.insert(0, line[found.start() :])
            lines[-1] = line[: found.start()]
        break
    return b"\n".join(lines), headers


def _content_length(headers: list[bytes]) -> tuple[int | None, str | None]:
    """The declared body length, or why there is none usable."""
    values = [
        h.split(b":", 1)[1].strip()
        for h in headers
        if h.split(b":", 1)[0].strip().lower() == b"content-length"
    ]
    if not values:
        return None, "header without Content-Length"
    raw = values[-1]
    if not raw.isdigit():
        return None, f"invalid Content-Length {raw[:20].decode('ascii', 'replace')!r}"
    length = int(raw)
    if length > MAX_BODY:
        return None, f"Content-Length {length} is over the {MAX_BODY}-byte limit"
    return length, None


def complete_json(data: bytes) -> int | None:
    """Where the JSON value at the start of ``data`` ends when nothing but whitespace follows, else None."""
    text = data.decode("utf-8", errors="replace")
    stripped = text.lstrip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        _, end = json.JSONDecoder().raw_decode(stripped)
    except (ValueError, RecursionError):
        return None
    return len((text[: len(text) - len(stripped)] + stripped[:end]).encode("utf-8"))


class FrameReader:
    """Frames from an async byte source (``read()`` returns ``b""`` at end of stream)."""

    def __init__(self, read: Callable[[], Awaitable[bytes]]) -> None:
        self._read = read
        self._buf = bytearray()
        self._eof = False
        self._pending: asyncio.Future[bytes] | None = None

    async def _fill(self, timeout: float | None = None) -> bool:
        """Read one chunk; False on end of stream or when ``timeout`` passes without new bytes."""
        if self._eof:
            return False
        if self._pending is None:
            self._pending = asyncio.ensure_future(self._read())
        done, _ = await asyncio.wait({self._pending}, timeout=timeout)
        if not done:
            return False
        chunk = self._pending.result()
        self._pending = None
        if not chunk:
            self._eof = True
            return False
        self._buf += chunk
        return True

    def _take(self, n: int) -> bytes:
        out = bytes(self._buf[:n])
        del self._buf[:n]
        return out

    async def next(self) -> Frame | None:
        """The next frame, or None at end of stream."""
        while True:
            m = _HEADER_END.search(self._buf)
            if m is None:
                if self._eof:
                    rest = self._take(len(self._buf))
                    return (
                        Frame(rest, "bytes without a header before end of stream") if rest.strip() else None
                    )
                if len(self._buf) > MAX_JUNK:
                    self._take(len(self._buf) - 64)
                    log.warning("framing: dropped %d bytes without a header", MAX_JUNK)
                if not self._buf.strip():
                    await self._fill()
                elif not await self._fill(IDLE) and not self._eof:
                    if not _CONTENT_LENGTH.search(self._buf):  # idle, and no header has begun
                        return Frame(self._take(len(self._buf)), "a message without a Content-Length header")
                    await self._fill()
                continue
            junk, headers = _split_junk(bytes(self._buf[: m.start()]))
            if junk.strip():
                self._take(len(junk))
                return Frame(junk, "bytes outside any frame (a wrong Content-Length before them?)")
            length, problem = _content_length(headers)
            if length is None:
                self._take(m.end())
                if headers:
                    log.warning("framing: %s; skipped to the next header", problem)
                continue
            return await self._body(m.end(), length)

    async def _body(self, start: int, length: int) -> Frame:
        scanned = start  # where the look for a next header resumes (each byte is scanned once)
        while len(self._buf) < start + length:
            got = await self._fill(IDLE)
            if len(self._buf) >= start + length:
                break
            if self._eof:
                del self._buf[:start]
                return Frame(self._take(len(self._buf)), "stream ended inside a message body")
            end = None
            header = _find_content_length(self._buf, max(start, scanned - 20), len(self._buf))
            scanned = len(self._buf)
            if header >= 0:
                end = complete_json(bytes(self._buf[start:header]))
            if end is None and not got:  # idle: a whole message, shorter than declared?
                end = complete_json(bytes(self._buf[start:]))
            if end is not None:
                del self._buf[:start]
                return Frame(
                    self._take(end), f"Content-Length {length} is larger than the message ({end} bytes)"
                )
        del self._buf[:start]
        header = _find_content_length(self._buf, 0, length)
        if header >= 0:  # the declared length reaches into the next frame, which already arrived
            end = complete_json(bytes(self._buf[:header]))
            if end is not None:
                return Frame(
                    self._take(end), f"Content-Length {length} is larger than the message ({end} bytes)"
                )
        return Frame(self._take(length))


def stdin_source(fd: int, loop: asyncio.AbstractEventLoop) -> Callable[[], Awaitable[bytes]]:
    """Chunks of ``fd`` read by a daemon thread, at most ``AHEAD`` chunks ahead of the loop (memory stays
    bounded whatever the client sends).

    A daemon thread rather than an executor: a read blocked on an open pipe must not hold up the exit. The
    thread hands chunks over without waiting for the loop: a round trip per 64 kB chunk cost ~0.7 s on a
    10 MB message once the two threads contend for the GIL."""
    queue: asyncio.Queue[bytes] = asyncio.Queue()
    slots = threading.Semaphore(AHEAD)
    if fcntl is not None:  # bigger reads from a pipe (Linux): fewer chunks per large message
        try:
            fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), CHUNK)
        except OSError:
            pass

    def pump() -> None:
        while True:
            slots.acquire()
            try:
                chunk = os.read(fd, CHUNK)
            except OSError:
                chunk = b""
            try:
                loop.call_soon_threadsafe(queue.put_nowait, chunk)
            except RuntimeError:  # the loop is gone: the server has exited
                return
            if not chunk:
                return

    async def read() -> bytes:
        chunk = await queue.get()
        slots.release()
        return chunk

    threading.Thread(target=pump, name="evalens-stdin", daemon=True).start()
    return read
