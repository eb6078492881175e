"""Transient judge failures (429, 5xx, a dropped connection) are retried after a backoff that honours the
server's Retry-After and stays inside the unit's judge deadline; the wait is recorded in the reason."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from evalens.runner import judge


class StatusError(Exception):
    def __init__(self, status: int, retry_after: str | None = None) -> None:
        super().__init__(f"HTTP {status} from the provider")
        self.status_code = status
        self.response = SimpleNamespace(headers={"retry-after": retry_after} if retry_after else {})


def _asker(monkeypatch: pytest.MonkeyPatch, failures: list[Exception]) -> list[float]:
    """``ask_text`` that raises ``failures`` in turn, then answers PASS; returns the call times."""
    calls: list[float] = []

    async def ask_text(*_args: object, **_kwargs: object) -> str:
        calls.append(time.monotonic())
        if len(calls) <= len(failures):
            raise failures[len(calls) - 1]
        return '{"verdict": "PASS", "reason": "greets"}'

    monkeypatch.setattr(judge, "ask_text", ask_text)
    return calls


SPEC = judge.resolve_judge("claude-judge", default_provider="anthropic")


async def test_a_rate_limit_waits_retry_after_then_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _asker(monkeypatch, [StatusError(429, retry_after="0.4")])
    outcome = await judge.judge_case(SPEC, "grade this", {}, deadline=10)
    assert outcome.verdict == "PASS", outcome
    assert len(calls) == 2 and calls[1] - calls[0] >= 0.4


async def test_a_request_error_is_not_waited_out_and_failures_record_the_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = _asker(monkeypatch, [StatusError(400), StatusError(400)])
    outcome = await judge.judge_case(SPEC, "grade this", {}, deadline=10)
    assert outcome.verdict == "ERROR" and "HTTP 400" in outcome.reason and "backed off" not in outcome.reason
    assert calls[1] - calls[0] < 0.3
    _asker(monkeypatch, [StatusError(503, retry_after="0.2"), StatusError(503)])
    outcome = await judge.judge_case(SPEC, "grade this", {}, deadline=10)
    assert outcome.verdict == "ERROR" and "(after 1 retry; backed off 0.2 s)" in outcome.reason, outcome


async def test_the_backoff_stays_inside_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    _asker(monkeypatch, [StatusError(429, retry_after="30")])
    started = time.monotonic()
    outcome = await judge.judge_case(SPEC, "grade this", {}, deadline=3)
    assert time.monotonic() - started < 3.5 and outcome.verdict == "PASS", outcome
    assert (
        judge.backoff_seconds(StatusError(500), 0) == 1.0
        and judge.backoff_seconds(StatusError(500), 2) == 4.0
    )
    assert judge.transient(ConnectionResetError()) and not judge.transient(StatusError(404))
