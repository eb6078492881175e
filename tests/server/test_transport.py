"""The framing of ``server/transport.py`` in process: every bad frame is reported and the next good one
is still found (the live-server versions are in ``tests/server/test_protocol.py``)."""

from __future__ import annotations

import asyncio
import json

import pytest

from evalens.server import transport
from evalens.server.transport import Frame, FrameReader


def _msg(msg_id: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "m"}).encode()


def _frame(body: bytes, length: int | None = None, name: bytes = b"Content-Length") -> bytes:
    return name + b": " + str(len(body) if length is None else length).encode() + b"\r\n\r\n" + body


async def _frames(chunks: list[bytes], pause_after: int | None = None) -> list[Frame]:
    """Feed ``chunks`` (end of stream after the last), pausing past the idle timeout after one of them."""
    queue = list(chunks)

    async def read() -> bytes:
        if not queue:
            return b""
        if pause_after is not None and len(chunks) - len(queue) == pause_after:
            await asyncio.sleep(transport.IDLE * 1.5)
        return queue.pop(0)

    reader = FrameReader(read)
    out = []
    while (frame := await reader.next()) is not None:
        out.append(frame)
    return out


def _ids(frames: list[Frame]) -> list[object]:
    out = []
    for f in frames:
        try:
            out.append(json.loads(f.body)["id"])
        except ValueError:
            out.append("broken")
    return out


async def test_good_frames_in_any_chunking():
    data = _frame(_msg(1)) + b"Content-Length: 30\r\nContent-Type: x\r\n\r\n" + b" " * 30 + _frame(_msg(2))
    for size in (1, 7, 64, len(data)):
        frames = await _frames([data[i : i + size] for i in range(0, len(data), size)])
        assert [f.problem for f in frames] == [None, None, None]
        assert _ids([frames[0], frames[2]]) == [1, 2]


async def test_lower_case_header_is_accepted():
    frames = await _frames([_frame(_msg(1), name=b"content-length")])
    assert _ids(frames) == [1] and frames[0].problem is None


@pytest.mark.parametrize("length", ["-5", "abc", "99999999999"])
async def test_unusable_length_skips_to_the_next_header(length: str):
    frames = await _frames([b"Content-Length: " + length.encode() + b"\r\n\r\n" + _msg(1) + _frame(_msg(2))])
    assert _ids(frames) == [1, 2]  # the orphaned body is reported as bytes outside any frame
    assert frames[0].problem and frames[1].problem is None


async def test_too_short_length_gives_a_broken_frame_then_the_next_one():
    body = _msg(1)
    frames = await _frames([_frame(body, len(body) - 5) + _frame(_msg(2))])
    assert _ids(frames) == ["broken", "broken", 2]
    assert frames[1].problem


async def test_too_long_length_is_cut_at_the_next_header():
    body = _msg(1)
    frames = await _frames([_frame(body, len(body) + 30), _frame(_msg(2))])
    assert _ids(frames) == [1, 2] and "larger" in (frames[0].problem or "")
    frames = await _frames([_frame(body, len(body) + 30) + _frame(_msg(3))])  # both in one chunk
    assert _ids(frames) == [1, 3]


async def test_too_long_length_then_silence_delivers_the_message():
    body = _msg(1)
    frames = await _frames([_frame(body, len(body) + 30), b""], pause_after=1)
    assert _ids(frames) == [1]


async def test_message_without_header_is_delivered_after_silence():
    frames = await _frames([b"Content-Type: x\r\n\r\n" + _msg(4), b""], pause_after=1)
    assert _ids(frames) == [4] and frames[0].problem


async def test_end_of_stream_inside_a_body():
    frames = await _frames([_frame(_msg(1), 500)])
    assert len(frames) == 1 and "ended" in (frames[0].problem or "")
