"""The HTTP proxy at the model bridge: a plain-HTTP server on 127.0.0.1 that an engine's base URL (or the judge
SDK's) points at for one unit-run. Every agent run goes through one, so the host side of the bridge sees and
decides every model request the sandbox makes (issue 42).

Forwarding, it sends each request to the real upstream (plain HTTP to a local model, TLS to a provider) and streams
the answer back as it arrives, keeping a copy. For an agent, a :class:`~evalens.runner.model_bridge.Guard` swaps the
placeholder key the agent holds for the real one, counts every call's tokens and refuses calls past a limit. Under
``--record`` / ``--replay`` a tape (:class:`evalens.runner.replay.Tape`) decides per request: answer from the
cassette, go live, or refuse. This module only speaks HTTP/1.1 (Content-Length and chunked bodies, keep-alive
towards the client, one upstream connection per request).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from evalens.runner.model_bridge import Guard
    from evalens.runner.replay import Tape

MAX_HEADER_BYTES = 64 << 10
MAX_BODY_BYTES = 64 << 20
# Hop-by-hop headers and the ones the proxy sets itself; Accept-Encoding goes so SSE arrives uncompressed.
DROP_REQUEST = frozenset({"host", "connection", "keep-alive", "proxy-connection", "content-length",
                          "transfer-encoding", "accept-encoding", "upgrade", "te"})  # fmt: skip
DROP_RESPONSE = frozenset({"connection", "keep-alive", "content-length", "transfer-encoding"})


class BadRequest(Exception):
    """The client sent something this proxy does not speak; the connection is closed."""


@dataclass(frozen=True, slots=True)
class ClientRequest:
    """One request read from the client: what the tape decides on and what is forwarded upstream."""

    method: str
    target: str
    headers: list[tuple[str, str]]
    body: bytes


@dataclass(slots=True)
class Upstream:
    """Where live requests go: scheme, host, port (TLS when https)."""

    scheme: str
    host: str
    port: int

    @classmethod
    def parse(cls, url: str) -> Upstream:
        parts = urlsplit(url)
        scheme = parts.scheme or "http"
        return cls(scheme, parts.hostname or "127.0.0.1", parts.port or (443 if scheme == "https" else 80))


async def _read_head(reader: asyncio.StreamReader) -> tuple[str, list[tuple[str, str]]] | None:
    try:
        raw = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        if not exc.partial.strip():
            return None
        raise BadRequest("truncated head") from None
    except asyncio.LimitOverrunError:
        raise BadRequest("head too large") from None
    lines = raw.decode("latin-1").split("\r\n")
    headers = []
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers.append((name.strip(), value.strip()))
    return lines[0], headers


def _header(headers: list[tuple[str, str]], name: str) -> str | None:
    return next((v for k, v in headers if k.lower() == name), None)


async def _read_body(
    reader: asyncio.StreamReader, headers: list[tuple[str, str]], *, until_eof: bool = False
) -> bytes:
    if (_header(headers, "transfer-encoding") or "").lower().endswith("chunked"):
        return b"".join([c async for c in _chunks(reader)])
    length = _header(headers, "content-length")
    if length is not None:
        n = int(length)
        if n > MAX_BODY_BYTES:
            raise BadRequest("body too large")
        return await reader.readexactly(n)
    return await reader.read(MAX_BODY_BYTES) if until_eof else b""


async def _chunks(reader: asyncio.StreamReader) -> Any:
    """The decoded chunks of a chunked body, as they arrive."""
    total = 0
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
        if size == 0:
            while (await reader.readuntil(b"\r\n")) != b"\r\n":  # trailers
                pass
            return
        total += size
        if total > MAX_BODY_BYTES:
            raise BadRequest("body too large")
        data = await reader.readexactly(size)
        await reader.readexactly(2)
        yield data


@dataclass(slots=True)
class Answer:
    """A response the proxy sends: status, headers, and either a whole body or SSE event blocks."""

    status: int
    content_type: str
    body: bytes = b""
    events: list[str] | None = None
    extra_headers: list[tuple[str, str]] = field(default_factory=list)


async def send_answer(writer: asyncio.StreamWriter, answer: Answer) -> None:
    head = [f"HTTP/1.1 {answer.status} {'OK' if answer.status < 400 else 'Error'}"]
    head.append(f"Content-Type: {answer.content_type}")
    head += [f"{k}: {v}" for k, v in answer.extra_headers]
    if answer.events is None:
        head.append(f"Content-Length: {len(answer.body)}")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + answer.body)
    else:
        head += ["Cache-Control: no-cache", "Transfer-Encoding: chunked"]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
        for event in answer.events:
            data = (event + "\n\n").encode("utf-8")
            writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        writer.write(b"0\r\n\r\n")
    await writer.drain()


def answer_bytes(answer: Answer) -> bytes:
    """An answer's body as the client reads it (a stream's events joined as sent), for counting its usage."""
    if answer.events is None:
        return answer.body
    return "".join(event + "\n\n" for event in answer.events).encode("utf-8")


def error_answer(status: int, message: str) -> Answer:
    """An error both wire protocols' clients read (Anthropic's ``type: error`` and OpenAI's ``error`` object),
    marked not to be retried."""
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": message, "code": "replay"}}
    return Answer(status, "application/json", json.dumps(body).encode(), None, [("x-should-retry", "false")])


class ModelProxy:
    """One local listener for one upstream and one source (the agent or the judge): an agent's carries its run's
    guard; under record/replay both carry the unit-run's tape."""

    def __init__(
        self, upstream_url: str, source: str, *, tape: Tape | None = None, guard: Guard | None = None
    ) -> None:
        self.tape = tape
        self.guard = guard
        self.upstream_url = upstream_url
        self.upstream = Upstream.parse(upstream_url)
        self.source = source
        self.server: asyncio.AbstractServer | None = None
        self.tasks: set[asyncio.Task] = set()
        self.port = 0

    @property
    def url(self) -> str:
        """The upstream URL with the proxy's plain-HTTP address in front of the same path."""
        path = urlsplit(self.upstream_url).path.rstrip("/")
        return f"http://127.0.0.1:{self.port}{path}"

    async def start(self) -> ModelProxy:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=MAX_HEADER_BYTES)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        """Close the listener and every open connection; never raises."""
        if self.server is None:
            return
        self.server.close()
        for task in list(self.tasks):
            task.cancel()
        if self.tasks:
            await asyncio.wait(list(self.tasks), timeout=1)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.server.wait_closed(), timeout=1)
        self.server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self.tasks.add(task)
        try:
            while True:
                head = await _read_head(reader)
                if head is None:
                    break
                request_line, headers = head
                method, target, _version = (request_line.split(" ", 2) + ["", ""])[:3]
                body = await _read_body(reader, headers)
                await self._one(writer, ClientRequest(method.upper(), target, headers, body))
                if (_header(headers, "connection") or "").lower() == "close":
                    break
        except (BadRequest, ConnectionError, OSError, asyncio.IncompleteReadError, ValueError):
            pass
        except asyncio.CancelledError:
            pass
        finally:
            writer.close()
            if task is not None:
                self.tasks.discard(task)

    async def _one(self, writer: asyncio.StreamWriter, request: ClientRequest) -> None:
        method, target, body = request.method, request.target, request.body
        guard = self.guard
        if guard is not None:
            await guard.before(method, target)
            refusal = guard.refusal(method, target)
            if refusal is not None:
                await send_answer(writer, refusal)
                return
            request = ClientRequest(method, target, guard.headers(request.headers), body)
        decision = self.tape.decide(self.source, method, target, body) if self.tape is not None else None
        if isinstance(decision, Answer):
            await send_answer(writer, decision)
            if guard is not None:
                guard.count(method, target, body, decision.content_type, answer_bytes(decision))
            return
        status, content_type, raw = await self._forward(writer, request)
        if guard is not None:
            guard.count(method, target, body, content_type, raw)
        if self.tape is not None:
            self.tape.recorded_live(self.source, method, target, body, status, content_type, raw)

    async def _forward(self, writer: asyncio.StreamWriter, request: ClientRequest) -> tuple[int, str, bytes]:
        """Send the request upstream and stream the answer to the client as it arrives; returns what came."""
        method, target, headers, body = request.method, request.target, request.headers, request.body
        up = self.upstream
        context = ssl.create_default_context() if up.scheme == "https" else None
        try:
            up_reader, up_writer = await asyncio.open_connection(
                up.host,
                up.port,
                ssl=context,
                server_hostname=up.host if context else None,
                limit=MAX_HEADER_BYTES,
            )
        except OSError as exc:
            answer = error_answer(
                502, f"evalens model bridge: upstream {up.host}:{up.port} unreachable: {exc}"
            )
            await send_answer(writer, answer)
            return 502, answer.content_type, answer.body
        try:
            host = up.host if up.port in (80, 443) else f"{up.host}:{up.port}"
            lines = [
                f"{method} {target} HTTP/1.1",
                f"Host: {host}",
                "Connection: close",
                "Accept-Encoding: identity",
            ]
            lines += [f"{k}: {v}" for k, v in headers if k.lower() not in DROP_REQUEST]
            if body or method in ("POST", "PUT", "PATCH"):
                lines.append(f"Content-Length: {len(body)}")
            up_writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
            await up_writer.drain()
            head = await _read_head(up_reader)
            if head is None:
                raise BadRequest("upstream closed without an answer")
            status_line, up_headers = head
            status = int(status_line.split(" ", 2)[1])
            content_type = _header(up_headers, "content-type") or "application/octet-stream"
            out = [status_line] + [f"{k}: {v}" for k, v in up_headers if k.lower() not in DROP_RESPONSE]
            collected: list[bytes] = []
            chunked = (_header(up_headers, "transfer-encoding") or "").lower().endswith("chunked")
            length = _header(up_headers, "content-length")
            if method == "HEAD" or status in (204, 304):
                writer.write(("\r\n".join(out + ["Content-Length: 0"]) + "\r\n\r\n").encode("latin-1"))
            elif length is not None and not chunked:
                data = await up_reader.readexactly(int(length))
                collected.append(data)
                out.append(f"Content-Length: {len(data)}")
                writer.write(("\r\n".join(out) + "\r\n\r\n").encode("latin-1") + data)
            else:
                writer.write(
                    ("\r\n".join(out + ["Transfer-Encoding: chunked"]) + "\r\n\r\n").encode("latin-1")
                )
                source = _chunks(up_reader) if chunked else _until_eof(up_reader)
                async for data in source:
                    collected.append(data)
                    writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                    await writer.drain()
                writer.write(b"0\r\n\r\n")
            await writer.drain()
            return status, content_type, b"".join(collected)
        finally:
            up_writer.close()


async def _until_eof(reader: asyncio.StreamReader) -> Any:
    total = 0
    while data := await reader.read(1 << 16):
        total += len(data)
        if total > MAX_BODY_BYTES:
            raise BadRequest("body too large")
        yield data
