"""The agent retry policy (issue 21): only transient statuses, only while retries and time are left, with an
exponential, jittered, capped backoff."""

from __future__ import annotations

import pytest

from evalens.runner.agent_retry import (
    BACKOFF_CAP_SECONDS,
    backoff,
    exhausted_suffix,
    retries_allowed,
    retry_wait,
)
from tests.in_process import evalens as evalens_cli


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504, 529, 408, 409])
def test_transient_statuses_are_retried(status: int) -> None:
    assert retry_wait(status, 0, 2, 600) is not None


@pytest.mark.parametrize("status", [None, 400, 401, 403, 404, 413])
def test_other_failures_are_not(status: int | None) -> None:
    assert retry_wait(status, 0, 2, 600) is None


def test_retries_and_time_run_out() -> None:
    assert retry_wait(500, 2, 2, 600) is None  # used up
    assert retry_wait(500, 0, 0, 600) is None  # none allowed
    assert retry_wait(500, 0, 2, 3.0) is None  # no time for a useful attempt


def test_backoff_doubles_with_jitter_and_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVALENS_RETRY_BACKOFF", raising=False)
    for retry, (low, high) in {1: (1.0, 2.0), 2: (2.0, 4.0), 3: (4.0, 8.0)}.items():
        waits = [backoff(retry) for _ in range(50)]
        assert all(low <= w <= high for w in waits) and len(set(waits)) > 1
    assert backoff(20) <= BACKOFF_CAP_SECONDS


def test_allowed_from_flag_env_or_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVALENS_AGENT_RETRIES", raising=False)
    assert retries_allowed() == 2 and retries_allowed(5) == 5 and retries_allowed(-1) == 0
    monkeypatch.setenv("EVALENS_AGENT_RETRIES", "0")
    assert retries_allowed() == 0
    monkeypatch.setenv("EVALENS_AGENT_RETRIES", "lots")
    assert retries_allowed() == 2
    assert exhausted_suffix(["a"]) == " (after 1 retry)" and exhausted_suffix([]) == ""


@pytest.mark.parametrize("command", ["eval", "run"])
def test_a_bad_retry_or_limit_flag_is_a_usage_error_not_a_traceback(command: str, tmp_path) -> None:

    for flag, value in (("--agent-retries", "-1"), ("--max-turns", "0"), ("--limit", "ram=3")):
        target = ["--package", str(tmp_path)] if command == "eval" else [str(tmp_path / "evals.json")]
        out = evalens_cli([command, *target, flag, value, "--dry-run"])
        assert out.returncode == 2 and "Traceback" not in out.stderr, (flag, out.stderr[-800:])
