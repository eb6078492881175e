"""The JSON-RPC side of the server: every request answered, the LSP lifecycle enforced, nothing leaked.

pygls decodes a message inside ``json.loads(..., object_hook=...)``: when a request's params do not fit
its type (``42``, ``null``, a negative line), the error escapes the decoder with the request id lost, and
the client waits forever. Here a message is decoded first and structured second, so a bad message gets
``InvalidParams`` (or ``InvalidRequest`` / ``ServerNotInitialized``) naming what is wrong. Frames come
from :mod:`evalens.server.transport`; the loop is :func:`serve`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import re
from collections.abc import Callable, Generator
from typing import Any

import attrs
import cattrs
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
    JsonRpcServerNotInitialized,
)
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage
from pygls.protocol.language_server import lsp_method

from evalens.core.kinds import published
from evalens.server import uris
from evalens.server.transport import Frame, FrameReader, stdin_source

log = logging.getLogger("evalens.server.protocol")

PARENT_POLL = 2.0
"""Seconds between two looks at the editor process named in ``initialize``'s ``processId``."""

_ID_BEFORE_PARAMS = re.compile(rb'"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\\r\n]|\\.){0,200}")')


def recover_id(raw: bytes) -> int | str | None:
    """The id of a request whose JSON is broken, when it stands before ``params`` (where document text
    could hold anything); None when unknown."""
    head = raw.split(b'"params"', 1)[0]
    m = _ID_BEFORE_PARAMS.search(head)
    if m is None:
        return None
    try:
        value = json.loads(m.group(1))
    except ValueError:
        return None
    return value if isinstance(value, int | str) else None


def describe(exc: BaseException) -> str:
    """What cattrs found wrong, in LSP's spelling (``$.params.textDocument``), with validator messages."""
    try:
        where = cattrs.transform_error(exc) if isinstance(exc, cattrs.BaseValidationError) else [str(exc)]
    except Exception:  # noqa: BLE001 - a description must never fail the answer
        where = [str(exc)]
    leaves: list[str] = []
    stack: list[BaseException] = [exc]
    while stack:
        e = stack.pop()
        subs = getattr(e, "exceptions", None)
        if subs:
            stack.extend(subs)
        elif isinstance(e, ValueError) and str(e) not in leaves:
            leaves.append(str(e))
    text = "; ".join(re.sub(r"_([a-z])", lambda m: m.group(1).upper(), w) for w in where[:5])
    return text + (f" ({' '.join(leaves[:3])})" if leaves else "")


_NEEDS_OPEN = {types.TEXT_DOCUMENT_DID_CHANGE, types.TEXT_DOCUMENT_DID_CLOSE}


def experimental_capabilities() -> dict[str, Any]:
    """``capabilities.experimental`` of the initialize result: evalens' own section."""
    return {"evalens": {"fileKinds": published()}}


def _valid_id(value: Any) -> bool:
    return isinstance(value, int | str) and not isinstance(value, bool)


class EvalensProtocol(LanguageServerProtocol):
    """pygls' LSP protocol with tolerant decoding, the lifecycle rules and no leaked bookkeeping."""

    def __init__(self, server: Any, converter: Any) -> None:
        super().__init__(server, converter)
        self.initialize_seen = False
        self.exit_code: int | None = None
        self.stopped: asyncio.Future[None] | None = None
        self._parent_watch: asyncio.Task[None] | None = None
        self._finished: list[tuple[Any, Any]] = []
        self.before_handling: Callable[[], None] | None = None  # startup.Startup.activate, until it ran

    # ------------------------------------------------------------------------------------ initialize
    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Generator[Any, Any, types.InitializeResult]:
        """pygls' initialize, plus what editors need from evalens itself: the file kinds it handles
        (``capabilities.experimental.evalens.fileKinds``, see docs/architecture.md)."""
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        result.capabilities.experimental = experimental_capabilities()
        return result

    # ------------------------------------------------------------------------------------ decoding
    def receive(self, frame: Frame) -> None:
        """Handle one frame from the transport; a bad one is logged in one line and, when its request id
        can be recovered, answered with ``ParseError``."""
        self._forget_finished()
        try:
            data = json.loads(frame.body)
        except (ValueError, RecursionError) as exc:
            self._parse_error(
                frame.body,
                f"framing: {frame.problem}" if frame.problem else f"invalid JSON: {str(exc)[:200]}",
            )
            return
        if frame.problem is not None:
            log.warning("framing: %s; handled the message it held", frame.problem)
        self.dispatch(data)

    def _parse_error(self, raw: bytes, why: str) -> None:
        msg_id = recover_id(raw)
        log.warning(
            "%s (%d bytes%s)", why, len(raw), f", request {msg_id!r} answered" if msg_id is not None else ""
        )
        if msg_id is not None:
            self._reply_error(msg_id, JsonRpcParseError(why))

    def _reply_error(self, msg_id: int | str, error: JsonRpcException) -> None:
        self._send_response(msg_id, error=error.to_response_error())

    def dispatch(self, data: Any) -> None:
        """Check one decoded message against JSON-RPC and the LSP lifecycle, structure it, handle it."""
        if not isinstance(data, dict):
            log.warning("ignored a message that is not a JSON object (%s)", type(data).__name__)
            return
        has_id, method = "id" in data, data.get("method")
        msg_id: Any = data.get("id")
        if "method" not in data:
            self._client_response(data)
            return
        if has_id and isinstance(msg_id, float) and math.isfinite(msg_id):
            # LSP ids are integers or strings; a client that sent 1.5 still waits for an answer (issue 28)
            self._send_response(
                msg_id,  # type: ignore[arg-type]
                error=JsonRpcInvalidRequest(
                    "the request id must be an integer or a string, not a fraction"
                ).to_response_error(),
            )
            return
        if has_id and not _valid_id(msg_id):
            log.warning("ignored %r: its id is neither a number nor a string", str(method)[:80])
            return
        if not isinstance(method, str) or data.get("jsonrpc") != "2.0":
            log.warning("ignored a message that is not JSON-RPC 2.0 (method %r)", str(method)[:80])
            if has_id:
                self._reply_error(msg_id, JsonRpcInvalidRequest("not a JSON-RPC 2.0 request"))
            return
        if method == types.EXIT:
            self.exit(0 if self._shutdown else 1)
            return
        refusal = self._lifecycle_refusal(method, has_id)
        if refusal is not None:
            if has_id:
                self._reply_error(msg_id, refusal)
            else:
                log.info("dropped notification %s: %s", method, refusal.message)
            return
        message_type = self.get_message_type(method) or self._generic_type(has_id)
        if has_id and "id" not in attrs.fields_dict(message_type):
            self._reply_error(msg_id, JsonRpcInvalidRequest(f"{method} is a notification, not a request"))
            return
        try:
            message = self._converter.structure(data, message_type)
        except Exception as exc:  # noqa: BLE001 - cattrs raises several kinds; all mean "bad params"
            why = f"invalid params for {method}: {describe(exc)}"
            log.warning("%s", why)
            if has_id:
                self._reply_error(msg_id, JsonRpcInvalidParams(why))
            return
        if (
            method in _NEEDS_OPEN
            and self.workspace.text_documents.get(uris.key(message.params.text_document.uri)) is None
        ):
            log.warning(
                "ignored %s for %s: the document is not open", method, message.params.text_document.uri[:200]
            )
            return
        self._about_to_handle(method, message)
        self.handle_message(message)

    def _about_to_handle(self, method: str, message: Any) -> None:
        if method == types.INITIALIZE:
            self.initialize_seen = True
            self._watch_parent(getattr(message.params, "process_id", None))
        elif self.before_handling is not None:
            self.before_handling()  # the features load before the first message after initialize is handled

    @staticmethod
    def _generic_type(has_id: bool) -> Any:
        return JsonRPCRequestMessage if has_id else JsonRPCNotification

    def _lifecycle_refusal(self, method: str, is_request: bool) -> JsonRpcException | None:
        """The LSP rules: nothing but ``initialize`` before it, it only once, nothing after ``shutdown``."""
        if not self.initialize_seen:
            if method != types.INITIALIZE:
                return JsonRpcServerNotInitialized(
                    f"{method}: the server is not initialized; send initialize first"
                )
            return None
        if method == types.INITIALIZE:
            return JsonRpcInvalidRequest("initialize was already received; it may be sent only once")
        if self._shutdown:
            return JsonRpcInvalidRequest(f"{method}: the server is shutting down (shutdown was received)")
        return None

    def _client_response(self, data: dict[str, Any]) -> None:
        """An answer to one of our requests; a malformed one fails that request at once (no waiting)."""
        msg_id: Any = data.get("id")
        if not _valid_id(msg_id) or ("result" not in data and "error" not in data):
            log.warning("ignored a message with neither method nor result")
            return
        expected = self._result_types.pop(msg_id, None)
        try:
            message = self._converter.structure(
                data, types.ResponseErrorMessage if "error" in data else expected or JsonRPCResponseMessage
            )
        except Exception as exc:  # noqa: BLE001 - cattrs raises several kinds
            log.warning("malformed response to request %r: %s", msg_id, describe(exc)[:300])
            future = self._request_futures.pop(msg_id, None)
            if future is not None and not future.done():
                future.set_exception(JsonRpcInvalidParams(f"malformed response: {describe(exc)[:300]}"))
            return
        self.handle_message(message)

    # ------------------------------------------------------------------------------------ lifecycle
    def exit(self, code: int) -> None:
        log.info("exit (code %d)", code)
        self.exit_code = code
        if self.stopped is not None and not self.stopped.done():
            self.stopped.set_result(None)

    def _watch_parent(self, pid: Any) -> None:
        if not isinstance(pid, int) or pid <= 0 or pid == os.getpid() or self._parent_watch is not None:
            return
        try:
            self._parent_watch = asyncio.get_running_loop().create_task(self._parent_alive(pid))
        except RuntimeError:  # no loop (unit tests structure messages directly)
            return

    async def _parent_alive(self, pid: int) -> None:
        """Exit when the editor process dies (LSP: ``processId``), so orphaned servers do not pile up."""
        while True:  # polled: a process that is not our child has no event to wait for
            if not await asyncio.to_thread(parent_alive, pid):  # /proc is a file read: off the loop
                break
            await asyncio.sleep(PARENT_POLL)
        log.warning("the editor process %d is gone; exiting", pid)
        self.exit(1)

    # ------------------------------------------------------------------------------------ pygls hooks
    # The one place evalens relies on pygls internals (``_request_futures``, ``_result_types``, the
    # ``_execute_handler`` / ``_handle_response`` / ``_send_handler_result`` steps); tests/server/test_pygls_hooks.py
    # and test_protocol.py::test_pygls_still_leaks_bookkeeping fail when pygls changes them.
    def on_cancel(self, msg_id: Any, callback: Callable[[], None]) -> bool:
        """Call ``callback`` (on the event loop) when the client cancels request ``msg_id``.

        pygls keeps one future per incoming request in ``_request_futures`` and cancels it on
        ``$/cancelRequest``; for commands that future is not the handler's task, so cancelling the request
        does not cancel the work: callers hook here. False when no such request is running."""
        future = self._request_futures.get(msg_id) if msg_id is not None else None
        if future is None or future.done():
            return False
        loop = asyncio.get_running_loop()

        def done(f: Any) -> None:
            if f.cancelled():
                loop.call_soon_threadsafe(callback)

        future.add_done_callback(done)
        return True

    @property
    def shutdown_received(self) -> bool:
        """Whether the client sent ``shutdown`` (the exit code after ``exit`` or end of input depends on it)."""
        return bool(self._shutdown)

    def bookkeeping(self) -> dict[str, int]:
        """Sizes of pygls' per-request maps (``evalens/stats``: they must not grow without bound)."""
        return {"requestFutures": len(self._request_futures), "resultTypes": len(self._result_types)}

    def _execute_handler(
        self, msg_id: Any, handler: Any, callback: Any, args: Any = None, kwargs: Any = None
    ):
        """Drop pygls' bookkeeping entry once a handler is done.

        pygls files the future of every async, threaded and generator handler under ``_request_futures``,
        but only a request's answer removes it: notifications (``didOpen``, ``didChange``, ...) and the
        steps of its built-in generator handlers stay there for good (two entries per opened file).
        ``tests/server/test_protocol.py::test_pygls_still_leaks_bookkeeping`` fails once pygls fixes it."""
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        future = self._request_futures.get(msg_id)
        if future is not None:
            future.add_done_callback(lambda done, key=msg_id: self._finished.append((key, done)))  # type: ignore[misc]

    def _forget_finished(self) -> None:
        """Remove finished handlers' entries (not from the done callback itself: pygls' ``shutdown``
        iterates the dict while cancelling, which runs those callbacks)."""
        while self._finished:
            key, done = self._finished.pop()
            if self._request_futures.get(key) is done:
                del self._request_futures[key]

    def _handle_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        """A late answer to a request we gave up on (a start-up timeout) is dropped, not an error."""
        future = self._request_futures.get(msg_id)
        if future is not None and future.done():
            self._request_futures.pop(msg_id, None)
            log.info("dropped a late response to request %r", msg_id)
            return
        super()._handle_response(msg_id, result, error)

    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        """Expected refusals (bad params, a command that cannot run) are one log line, not a traceback."""
        if not future.cancelled() and isinstance(future.exception(), JsonRpcException):
            self._request_futures.pop(msg_id, None)
            exc = future.exception()
            log.warning("request %r refused: %s", msg_id, exc.message)
            self._send_response(msg_id, error=exc.to_response_error())
            return
        super()._send_handler_result(future, msg_id=msg_id)


def parent_alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie counts as dead: its parent just has not reaped it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[-1].split()[0]
        return state not in (b"Z", b"X")
    except (OSError, IndexError):
        return True


async def serve(server: Any, fd: int | None = None, read: Any = None) -> int:
    """Read frames from ``fd`` (or the ``read()`` coroutine function) until ``exit``, end of stream or the
    editor's death; the exit code."""
    proto: EvalensProtocol = server.protocol
    loop = asyncio.get_running_loop()
    stopped: asyncio.Future[None] = loop.create_future()
    proto.stopped = stopped
    if read is None and fd is None:
        raise ValueError("serve needs a file descriptor or a read coroutine function")
    reader = FrameReader(read if read is not None else stdin_source(fd, loop))  # type: ignore[arg-type]
    while proto.exit_code is None:
        frame_task: asyncio.Future[Any] = asyncio.ensure_future(reader.next())
        await asyncio.wait({frame_task, stopped}, return_when=asyncio.FIRST_COMPLETED)
        if not frame_task.done():
            frame_task.cancel()
            break
        frame = frame_task.result()
        if frame is None:
            log.info("end of input; exiting")
            proto.exit_code = 0 if proto.shutdown_received else 1
            break
        try:
            proto.receive(frame)
        except Exception:  # noqa: BLE001 - a bug in one message's handling must not end the session
            log.exception("unexpected error while handling a message")
    return proto.exit_code if proto.exit_code is not None else 1
