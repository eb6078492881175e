"""Transient API errors of the agent are retried, in a fresh sandbox, before a run is ERROR (issue 21).

A 429 or a 5xx from the model provider says nothing about the skill; on a busy CI runner it is common. The
engines report the status in their structured events (Claude Code's ``api_error_status``, Codex's error info),
and only that status decides, never text the agent printed. A run whose attempt failed that way is run again
from scratch (the attempt may have changed its workspace), after a backoff, while its time budget lasts; each
retry is recorded (``retries`` in the run record), and when the retries run out the run is ERROR as before, its
reason saying how many were tried.
"""

from __future__ import annotations

import os
import random

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
