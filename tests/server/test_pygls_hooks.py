"""The private pygls behaviour evalens relies on, each used in one place (server/protocol.py): when pygls
changes it, these tests fail and point at the hook to fix."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from evalens.server.protocol import EvalensProtocol
from evalens.server.server import create_server


class _Writer:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.sent.append(json.loads(data.split(b"\r\n\r\n", 1)[1]))


async def test_cancel_request_reaches_on_cancel():
    """``$/cancelRequest`` for a running executeCommand cancels pygls' future of that request; evalens'
    ``EvalensProtocol.on_cancel`` hooks it (run cancellation from the editor depends on it)."""
    server = create_server()
    proto = server.protocol
    assert isinstance(proto, EvalensProtocol)
    proto.set_writer(_Writer())  # type: ignore[arg-type]
    proto.initialize_seen = True
    started = asyncio.Event()
    cancelled: list[int] = []

    @server.command("test.wait")
    async def wait(ls: Any, *args: Any) -> None:
        assert ls.protocol.on_cancel(ls.protocol.msg_id, lambda: cancelled.append(1))
        started.set()
        await asyncio.sleep(30)

    proto.dispatch(
        {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "workspace/executeCommand",
            "params": {"command": "test.wait", "arguments": []},
        }
    )
    await asyncio.wait_for(started.wait(), 5)
    proto.dispatch({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 7}})
    for _ in range(100):
        if cancelled:
            break
        await asyncio.sleep(0.01)
    assert cancelled == [1]
    assert proto.on_cancel(12345, lambda: None) is False  # no such request: nothing to hook


def test_bookkeeping_sizes_are_public():
    proto = create_server().protocol
    assert isinstance(proto, EvalensProtocol)
    assert proto.bookkeeping() == {"requestFutures": 0, "resultTypes": 0}
