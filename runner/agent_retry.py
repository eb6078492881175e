"""Transient API errors of the agent are retried, in a fresh sandbox, before a run is ERROR (issue 21).

A 429 or a 5xx from the model provider says nothing about the skill; on a busy CI runner it is common. The
engines report the status in their structured events (Claude Code's ``api_error_status``, Codex's error info),
and only that status decides, never text the agent printed. A run whose attempt failed that way is run again
from scratch (the attempt may have changed its workspace), after a backoff, while its time budget lasts; each
retry is recorded (``retries`` in the run record), and when the retries run out the run is ERROR as before, its
reason saying how many were tried. :func:`run_retrying` is that loop, for every suite's agent runs (the file
suites' session and the UAAPS case run). A strict replay's refusal answers 409 too, but it is deterministic: an
attempt whose tape refused a request is never retried, whatever its status (issue 44).
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from evalens.core.models.run_record import sum_usage
from evalens.runner import replay

Outcome = TypeVar("Outcome")

# 408 timeout, 409 conflict (Anthropic's overloaded lock), 429 rate limit, 5xx server errors, 529 overloaded
TRANSIENT_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
DEFAULT_RETRIES = 2
BACKOFF_SECONDS = 2.0  # the first wait; doubled per retry, with jitter, at most BACKOFF_CAP_SECONDS
BACKOFF_CAP_SECONDS = 30.0


def retries_allowed(asked: int | None = None) -> int:
    """``--agent-retries``, else ``$EVALENS_AGENT_RETRIES``, else 2."""
    if asked is not None:
        return max(0, asked)
    raw = os.environ.get("EVALENS_AGENT_RETRIES", "")
    return max(0, int(raw)) if raw.strip().isdigit() else DEFAULT_RETRIES


def backoff(retry: int) -> float:
    """The wait before retry number ``retry`` (1-based): exponential with jitter, so parallel runs that failed
    together do not retry together. ``$EVALENS_RETRY_BACKOFF`` sets the first wait (tests use a short one)."""
    raw = os.environ.get("EVALENS_RETRY_BACKOFF", "")
    try:
        base = float(raw) if raw else BACKOFF_SECONDS
    except ValueError:
        base = BACKOFF_SECONDS
    return min(BACKOFF_CAP_SECONDS, base * 2 ** (retry - 1)) * random.uniform(0.5, 1.0)


def retry_wait(status: int | None, retried: int, allowed: int, time_left: float) -> float | None:
    """How long to wait before running the attempt again, or None: the status is not transient, the retries
    are used up, or the wait plus a useful attempt would not fit in the run's time budget."""
    if status not in TRANSIENT_STATUSES or retried >= allowed:
        return None
    wait = backoff(retried + 1)
    return wait if time_left > wait + MIN_ATTEMPT_SECONDS else None


MIN_ATTEMPT_SECONDS = 5.0  # an attempt given less time than this could not do anything worth a verdict


def retry_note(attempt: int, status: int, wait: float) -> str:
    return f"attempt {attempt}: API status {status}; retried after {wait:.1f} s"


def exhausted_suffix(retries: list[str]) -> str:
    """What an ERROR after retries adds to its reason."""
    n = len(retries)
    return f" (after {n} retr{'y' if n == 1 else 'ies'})" if n else ""


def with_discarded(record: Any, spent: list[Any]) -> None:
    """The run ``record`` of the attempt that counts, its usage summed with ``spent`` (the usage of the attempts
    discarded before it). A discarded attempt is no run of the unit, but the provider answered its model calls
    and billed them: without this the report counted 2 calls where the provider answered 3, and the budget
    and cost were short by the discarded attempts' (issue 44)."""
    if record is not None and spent:
        record.usage = sum_usage([*spent, record.usage])


def after_retries(record: Any, error: str | None, status: int | None, retried: list[str]) -> str | None:
    """The attempt that follows ``retried``: its run ``record`` lists them, and its API error (``status`` not
    None) says how many were made; returns the error as the run reports it."""
    if not retried:
        return error
    record.retries = list(retried)
    return error + exhausted_suffix(retried) if error and status is not None else error


async def run_retrying(
    attempt: Callable[[float, list[str]], Awaitable[Outcome]],
    status: Callable[[Outcome], int | None],
    *,
    timeout: float,
    retries: int | None,
    on_retry: Callable[[str], None] = lambda _note: None,
) -> Outcome:
    """One run: ``attempt(time_limit, retried)`` until ``status`` of its outcome (the API status of its error,
    None without one) is not transient, the retries are used up (``retries``: :func:`retries_allowed`) or the
    run's ``timeout`` has no room for another. The first attempt gets the whole timeout, a retry only what is
    left of it, so a run never takes longer than its timeout (docs/verdicts.md); ``retried`` are the notes of
    the retries before the attempt. ``on_retry`` hears each note before the backoff: the caller discards the
    failed attempt there (it is not a run of the unit)."""
    allowed = retries_allowed(retries)
    started = time.monotonic()
    retried: list[str] = []
    limit = timeout
    while True:
        with replay.watch_attempt() as tapes:
            outcome = await attempt(limit, list(retried))
        found = None if replay.refusal(tapes) else status(outcome)
        wait = retry_wait(found, len(retried), allowed, timeout - (time.monotonic() - started))
        if wait is None:
            return outcome
        retried.append(retry_note(len(retried) + 1, found or 0, wait))
        on_retry(retried[-1])
        await asyncio.sleep(wait)
        limit = max(timeout - (time.monotonic() - started), 1.0)
