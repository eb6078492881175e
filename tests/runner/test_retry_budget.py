"""A retried agent run keeps to its time budget (docs/verdicts.md, "Transient API errors"): the first attempt
gets the whole timeout, a retry only what is left of it, in the UAAPS suite as in the file suites (both run
``agent_retry.run_retrying``). A scripted stand-in for `claude` (EVALENS_CLAUDE_BIN) answers HTTP 529 after a
while; when evalens announces the retry, the test swaps the script for one that hangs, so the retry is cut at
the run's remaining time, not at a fresh full timeout."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from evalens.runner.agent_retry import run_retrying
from evalens.runner.api import RunRequest, run_cases
from evalens.runner.api_types import ProgressEvent
from evalens.runner.run_log import log_path, read_log
from tests.runner.runner_helpers import case, install_scripted_claude, make_package, write_script

OVERLOADED = """#!/bin/sh
if [ "$1" = "--version" ]; then echo "9.9.9 (scripted)"; exit 0; fi
sleep 2
echo '{"type":"system","subtype":"init","model":"scripted-model","session_id":"s-1"}'
echo '{"type":"result","subtype":"error","is_error":true,"api_error_status":529,"result":"Overloaded","session_id":"s-1"}'
"""
HANGS = """#!/bin/sh
if [ "$1" = "--version" ]; then echo "9.9.9 (scripted)"; exit 0; fi
echo '{"type":"system","subtype":"init","model":"scripted-model","session_id":"s-2"}'
exec sleep 120
"""
TIMEOUT = 9.0


@pytest.fixture
def flaky_claude(monkeypatch: pytest.MonkeyPatch, sandbox_dir: Path) -> Iterator[Path]:
    agent = install_scripted_claude(monkeypatch, sandbox_dir, OVERLOADED, name="overloaded-claude")
    monkeypatch.setenv("EVALENS_RETRY_BACKOFF", "0.05")
    yield agent
    agent.unlink(missing_ok=True)


async def test_a_uaaps_retry_gets_only_the_time_left(
    tmp_path: Path, flaky_claude: Path, sandbox_dir: Path
) -> None:
    pkg = make_package(tmp_path / "pkg", cases={"slow": case("pass", contains=["GREETING-OK"])})

    def progress(event: ProgressEvent) -> None:
        if event.stage == "agent" and event.message.startswith("retrying:"):
            write_script(flaky_claude, HANGS)  # the retry hangs: only the run's timeout stops it

    started = time.monotonic()
    outcome = await run_cases(
        RunRequest(package_root=pkg, no_judge=True, timeout=TIMEOUT, agent_retries=2), progress
    )
    elapsed = time.monotonic() - started
    result = outcome.results[0]
    assert result.verdict == "ERROR", result
    given = re.search(r"timed out after ([\d.]+) s", result.error or "")
    assert given is not None, result.error
    # the first attempt took 2 s or more, so the retry had at most the 7 s left (it had 9 s before)
    assert float(given.group(1)) <= TIMEOUT - 2, result.error
    assert elapsed < TIMEOUT + 6, elapsed  # setup, the kill and the report; a second full timeout is 9 s more
    assert outcome.report_path is not None
    record = json.loads(next(outcome.report_path.with_suffix("").rglob("record.json")).read_text())
    assert [r.split(";")[0] for r in record["retries"]] == ["attempt 1: API status 529"]
    # the run log has the attempt that counts, not the discarded one
    finished = list(read_log(log_path(outcome.report_path)).finished.values())
    assert len(finished) == 1 and "timed out" in (finished[0].error or ""), finished
    assert list(sandbox_dir.iterdir()) == []


async def test_each_retry_is_given_what_is_left_of_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop itself: attempts that each take 1 s and fail with 503, in a 20 s budget, three retries."""
    monkeypatch.setenv("EVALENS_RETRY_BACKOFF", "0.05")
    limits: list[float] = []
    notes: list[list[str]] = []

    async def attempt(limit: float, retried: list[str]) -> int:
        limits.append(limit)
        notes.append(retried)
        await asyncio.sleep(1.0)
        return 503

    heard: list[str] = []
    status = await run_retrying(attempt, lambda s: s, timeout=20.0, retries=3, on_retry=heard.append)
    assert status == 503 and len(limits) == 4 and notes[-1] == heard and len(heard) == 3
    assert limits[0] == 20.0
    for before, after in zip(limits, limits[1:], strict=False):
        assert before - after >= 1.0, limits  # each attempt's second (and the backoff) is spent
    assert limits[-1] <= 20.0 - 3.0


async def test_a_strict_replay_divergence_is_never_retried(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Issue 44: strict replay refuses a request that differs from its cassette with HTTP 409, the status a
    provider uses for a transient conflict, and the policy ran the attempt twice more; the same request meets
    the same cassette every time. An attempt whose tape refused is not retried (its tape opened in a task of
    its own, as the launch may do); an attempt that met a provider's own 409 still is."""
    from evalens.runner.replay import ReplaySettings, cassettes, open_tape

    monkeypatch.setenv("EVALENS_RETRY_BACKOFF", "0.01")
    attempts: list[int] = []

    async def diverging(limit: float, retried: list[str]) -> int:
        async def launch() -> int:
            tape = await open_tape("u", 1, "claude-code", tmp_path / "sandbox")
            assert tape is not None
            answer = tape.decide("agent", "POST", "/v1/messages", b'{"messages": []}')  # no cassette
            assert answer is not None
            return answer.status

        attempts.append(1)
        return await asyncio.ensure_future(launch())

    async def provider_conflict(limit: float, retried: list[str]) -> int:
        attempts.append(1)
        return 409

    async with cassettes(ReplaySettings("strict", tmp_path)):
        status = await run_retrying(diverging, lambda s: s, timeout=60.0, retries=2)
        assert status == 409 and len(attempts) == 1
        attempts.clear()
        assert await run_retrying(provider_conflict, lambda s: s, timeout=60.0, retries=2) == 409
        assert len(attempts) == 3  # a 409 from the provider is transient: two retries
