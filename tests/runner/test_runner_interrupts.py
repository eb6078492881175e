"""``evalens.runner.interrupts`` in process: the exit code of a signal, the line a cut-short command prints, the
remembered signal :func:`check` raises, and :func:`run_interruptibly` cancelling its task on the first signal,
not on the second, and putting the handlers it replaced back (``test_interrupts.py`` covers the swallowed signal
in a child process)."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from evalens.runner import interrupts
from evalens.runner.interrupts import Interrupted, interrupted_line, run_interruptibly


@pytest.fixture(autouse=True)
def _fresh_state(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test sees no remembered signal, and gets the handlers and unraisable hook it found back."""
    monkeypatch.setattr(interrupts, "_received", [])
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)
    saved = {sig: signal.getsignal(sig) for sig in interrupts.SIGNALS}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_interrupted_exit_code_is_128_plus_the_signal(sig: int, code: int) -> None:
    exc = Interrupted(sig)
    assert exc.signum == sig
    assert exc.exit_code == code
    assert not isinstance(exc, Exception)  # a bare `except Exception` must not swallow it


def test_interrupted_line_without_a_partial_report() -> None:
    assert interrupted_line("evalens eval", None) == "evalens eval: interrupted"
    assert interrupted_line("evalens run", "") == "evalens run: interrupted"


def test_interrupted_line_names_the_report_and_the_resume_folder() -> None:
    line = interrupted_line("evalens eval", "out/2026-01-01T00-00-00Z.json")
    assert line == (
        "evalens eval: interrupted; partial report: out/2026-01-01T00-00-00Z.json "
        "(finish it: evalens eval --resume out/2026-01-01T00-00-00Z)"
    )


def test_interrupted_line_keeps_a_folder_as_it_is() -> None:
    line = interrupted_line("evalens run", "reports/run-1")
    assert line.endswith("(finish it: evalens run --resume reports/run-1)")
    assert "partial report: reports/run-1 " in line


def test_check_raises_the_first_remembered_signal_until_caught() -> None:
    interrupts.check()  # nothing remembered: no exception
    interrupts._received.extend([signal.SIGTERM, signal.SIGINT])
    with pytest.raises(Interrupted) as info:
        interrupts.check()
    assert info.value.signum == signal.SIGTERM
    with pytest.raises(Interrupted):  # still remembered: check does not forget it by raising
        interrupts.check()
    interrupts.caught()
    interrupts.check()


def test_the_raising_handler_remembers_the_signal() -> None:
    with pytest.raises(Interrupted) as info:
        interrupts._raise(signal.SIGHUP, None)
    assert info.value.signum == signal.SIGHUP
    assert interrupts._received == [signal.SIGHUP]


def test_unraisable_hook_hides_only_interrupted() -> None:
    seen: list[object] = []
    interrupts._unraisable(SimpleNamespace(exc_value=Interrupted(signal.SIGINT)), seen.append)
    assert seen == []
    other = SimpleNamespace(exc_value=ValueError("boom"))
    interrupts._unraisable(other, seen.append)
    assert seen == [other]


def test_install_raises_interrupted_and_keeps_ignored_signals_ignored() -> None:
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    interrupts.install()
    assert sys.unraisablehook is interrupts._unraisable
    assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN  # nohup's choice stands
    assert signal.getsignal(signal.SIGTERM) is interrupts._raise
    with pytest.raises(Interrupted) as info:
        signal.raise_signal(signal.SIGTERM)
    assert info.value.exit_code == 143
    assert interrupts._received == [signal.SIGTERM]


def test_run_interruptibly_returns_the_result_when_no_signal_came() -> None:
    async def work() -> str:
        await asyncio.sleep(0)
        return "done"

    assert run_interruptibly(work(), "evalens eval") == ("done", None)


def test_run_interruptibly_raises_a_remembered_signal_without_starting() -> None:
    started: list[bool] = []

    async def work() -> None:
        started.append(True)

    interrupts._received.append(signal.SIGINT)
    coro = work()
    with pytest.raises(Interrupted) as info:
        run_interruptibly(coro, "evalens eval")
    assert info.value.signum == signal.SIGINT
    assert started == []
    assert coro.cr_frame is None  # closed, so no "never awaited" warning


def test_first_signal_cancels_the_task_and_handlers_come_back() -> None:
    before = {sig: signal.getsignal(sig) for sig in interrupts.SIGNALS}
    cleaned: list[bool] = []

    async def work() -> str:
        signal.raise_signal(signal.SIGTERM)
        try:
            await asyncio.sleep(30)
        finally:
            cleaned.append(True)
        return "never"

    result, signum = run_interruptibly(work(), "evalens run")
    assert (result, signum) == (None, signal.SIGTERM)
    assert cleaned == [True]
    assert {sig: signal.getsignal(sig) for sig in interrupts.SIGNALS} == before


@pytest.fixture
def sigint_as_in_a_terminal() -> Iterator[None]:
    """SIGINT handled as a terminal's Ctrl-C is (a pytest-xdist worker ignores it, and an ignored signal is left
    ignored: the test would wait out its sleep), put back afterwards."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def test_second_signal_only_says_cleanup_is_under_way(
    capsys: pytest.CaptureFixture[str], sigint_as_in_a_terminal: None
) -> None:
    async def work() -> str:
        signal.raise_signal(signal.SIGINT)
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            signal.raise_signal(signal.SIGINT)  # the impatient second Ctrl-C, during cleanup
            await asyncio.sleep(0.01)
            return "partial"
        return "never"

    result, signum = run_interruptibly(work(), "evalens eval")
    assert (result, signum) == ("partial", signal.SIGINT)
    err = capsys.readouterr().err
    assert err.count("evalens eval: still cleaning up") == 1


def test_ignored_signals_are_left_to_their_ignoring() -> None:
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)

    async def work() -> str:
        signal.raise_signal(signal.SIGHUP)  # ignored: the task goes on
        await asyncio.sleep(0.01)
        return "finished"

    try:
        assert run_interruptibly(work(), "evalens eval") == ("finished", None)
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, before)  # the worker's own handling, for the tests after this one


def test_tasks_left_pending_are_cancelled_before_the_loop_closes() -> None:
    stopped: list[bool] = []

    async def forever() -> None:
        try:
            await asyncio.sleep(30)
        finally:
            stopped.append(True)

    async def work() -> int:
        asyncio.get_running_loop().create_task(forever())
        await asyncio.sleep(0)
        return 7

    assert run_interruptibly(work(), "evalens run") == (7, None)
    assert stopped == [True]


def test_quiet_exception_handler_prints_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    interrupts._quiet_exception_handler(None, {"message": "Task exception", "exception": OSError("gone")})
    interrupts._quiet_exception_handler(None, {"exception": asyncio.CancelledError()})
    interrupts._quiet_exception_handler(None, {})
    assert capsys.readouterr().err.splitlines() == [
        "evalens: Task exception: OSError: gone",
        "evalens: error in the event loop",
    ]
