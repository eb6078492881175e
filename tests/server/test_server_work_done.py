"""``evalens.server.features.work_done``: the cancellable progress of a run, on a real server whose client side
is stubbed at the protocol (the requests and notifications it would send): none for a client without
work-done progress or one that does not create it, begin / report / end in order, and the editor's Cancel
calling the run's cancel on the loop."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from lsprotocol import types

from evalens.server.features import work_done
from evalens.server.server import EvalensServer
from tests.server.server_in_process import capabilities, make_server


class Wire:
    """What the server sends its client: requests (answered with ``answer``, or raising it) and notifications."""

    def __init__(self, answer: Any = None) -> None:
        self.answer = answer
        self.requests: list[tuple[str, Any]] = []
        self.notes: list[Any] = []

    async def send_request_async(self, method: str, params: Any = None, **_: Any) -> Any:
        self.requests.append((method, params))
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer

    def notify(self, method: str, params: Any = None) -> None:
        self.notes.append((method, params.value))


def _server(monkeypatch: pytest.MonkeyPatch, wire: Wire, progress: bool = True) -> EvalensServer:
    ls = make_server(None, capabilities(work_done=progress))
    monkeypatch.setattr(ls.protocol, "send_request_async", wire.send_request_async)
    monkeypatch.setattr(ls.protocol, "notify", wire.notify)
    return ls


def test_no_progress_for_a_client_without_it(monkeypatch: pytest.MonkeyPatch) -> None:
    wire = Wire()
    ls = _server(monkeypatch, wire, progress=False)
    assert asyncio.run(work_done.begin(ls, "Run", "starting", lambda: None)) is None
    assert wire.requests == [] and wire.notes == []
    work_done.report(ls, None, "ignored", 50)
    work_done.end(ls, None, "ignored")
    assert wire.notes == []


def test_no_progress_when_the_client_refuses_to_create_it(monkeypatch: pytest.MonkeyPatch) -> None:
    wire = Wire(answer=RuntimeError("no"))
    ls = _server(monkeypatch, wire)
    assert asyncio.run(work_done.begin(ls, "Run", "starting", lambda: None)) is None
    ((method, _params),) = wire.requests
    assert method == types.WINDOW_WORK_DONE_PROGRESS_CREATE
    assert wire.notes == []  # never begun


def test_begin_report_end(monkeypatch: pytest.MonkeyPatch) -> None:
    wire = Wire()
    ls = _server(monkeypatch, wire)

    async def run() -> str | None:
        token = await work_done.begin(ls, "Run extract-text", "starting", lambda: None)
        work_done.report(ls, token, "1 of 2", 50)
        work_done.end(ls, token, "done")
        return token

    token = asyncio.run(run())
    assert token is not None and token.startswith("evalens-run-")
    ((method, params),) = wire.requests
    assert method == types.WINDOW_WORK_DONE_PROGRESS_CREATE and params.token == token
    begin, report, end = (value for _, value in wire.notes)
    assert {m for m, _ in wire.notes} == {types.PROGRESS}
    assert begin == types.WorkDoneProgressBegin(
        title="Run extract-text", message="starting", cancellable=True, percentage=0
    )
    assert report == types.WorkDoneProgressReport(message="1 of 2", percentage=50)
    assert end == types.WorkDoneProgressEnd(message="done")
    assert token not in ls.work_done_progress.tokens  # forgotten at the end


def test_each_run_gets_its_own_token(monkeypatch: pytest.MonkeyPatch) -> None:
    ls = _server(monkeypatch, Wire())

    async def two() -> tuple[str | None, str | None]:
        return (
            await work_done.begin(ls, "a", "", lambda: None),
            await work_done.begin(ls, "b", "", lambda: None),
        )

    first, second = asyncio.run(two())
    assert first is not None and second is not None and first != second


def test_the_editors_cancel_calls_cancel_on_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    ls = _server(monkeypatch, Wire())
    cancelled: list[str] = []

    async def run() -> None:
        token = await work_done.begin(ls, "Run", "starting", lambda: cancelled.append("run"))
        assert token is not None
        # what pygls does on window/workDoneProgress/cancel (its handler is a generator the dispatcher drives)
        for _ in ls.protocol.lsp_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token)):
            pass
        assert ls.work_done_progress.tokens[token].cancelled()
        await asyncio.sleep(0)  # call_soon_threadsafe: on the loop's next turn
        await asyncio.sleep(0)

    asyncio.run(run())
    assert cancelled == ["run"]


def test_ending_without_cancel_does_not_cancel(monkeypatch: pytest.MonkeyPatch) -> None:
    ls = _server(monkeypatch, Wire())
    cancelled: list[str] = []

    async def run() -> None:
        token = await work_done.begin(ls, "Run", "starting", lambda: cancelled.append("run"))
        work_done.end(ls, token)
        await asyncio.sleep(0)

    asyncio.run(run())
    assert cancelled == []
