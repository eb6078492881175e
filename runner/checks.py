"""Deterministic checks of a case's `expected` block against the agent's output, workspace and event stream.

Each declared entry yields one :class:`CheckResult` naming the exact value that failed (the missing `contains`
string, the absent `files-created` path), so editors can point at it. Kinds use the report's snake_case names.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any, Literal

from evalens.core.models.uaaps import CaseExpected
from evalens.runner.engines.base import Transcript
from evalens.runner.results import CheckResult
from evalens.runner.verdicts import check_status

CheckKind = Literal["contains", "not_contains", "files_created", "agent_blocked"]
__all__ = [
    "CheckKind",
    "CheckResult",
    "CheckNotRun",
    "CheckTimedOut",
    "check_deadline",
    "files_created",
    "run_checks",
    "summarise",
]


class CheckNotRun(Exception):
    """A check that executes code from the eval file could not run inside a sandbox (no bubblewrap here): the
    unit is ERROR "check not run: …", never a PASS or FAIL of a check that did not run. The message says why."""


class CheckTimedOut(Exception):
    """A check ran past its deadline (a backtracking regex, a stuck reader): the unit is ERROR
    "check timed out: …", never a hung run. The message says which check."""


def check_deadline(case_timeout: float) -> float:
    """Seconds a run's checks may take together, inside the case budget: a quarter of the case timeout, between 5
    and 60 s (``EVALENS_CHECK_TIMEOUT`` overrides)."""
    try:
        configured = float(os.environ.get("EVALENS_CHECK_TIMEOUT", ""))
        if configured > 0:
            return configured
    except ValueError:
        pass
    return max(5.0, min(60.0, case_timeout / 4))


def not_a_real_file(workspace: Path, rel: str) -> str | None:
    """Why ``rel`` in the workspace does not count as a created file (a dangling link, a link out of the
    workspace, a FIFO or device), or None when it is a regular file there."""
    path = workspace / rel
    try:
        target = Path(os.path.realpath(path))
        st = os.stat(path)
    except OSError:
        return f"{rel} is a dangling link" if os.path.islink(path) else f"{rel} is missing"
    root = os.path.realpath(workspace)
    if target != Path(root) and not str(target).startswith(root.rstrip(os.sep) + os.sep):
        return f"{rel} is a link out of the workspace"
    if not stat.S_ISREG(st.st_mode):
        return f"{rel} is not a regular file"
    return None


def run_checks(
    expected: CaseExpected, transcript: Transcript, files_created: list[str], workspace: Path | None = None
) -> list[CheckResult]:
    """All declared checks (not fail-fast within the list: every failing entry is reported). With ``workspace``
    (still present), a created path only counts when it is a regular file there (never a dangling link)."""
    results: list[CheckResult] = []

    def add(kind: str, value: Any, ok: bool, failed: str, location: list[str | int]) -> None:
        results.append(
            CheckResult(
                kind=kind,
                value=value,
                status=check_status(ok),
                detail="" if ok else failed,
                location=location,
            )
        )

    output = transcript.output
    for i, needle in enumerate(expected.contains):
        add(
            "contains",
            needle,
            needle in output,
            f"output does not contain {needle!r}",
            ["expected", "contains", i],
        )
    for i, needle in enumerate(expected.not_contains):
        add(
            "not_contains",
            needle,
            needle not in output,
            f"output contains forbidden {needle!r}",
            ["expected", "not-contains", i],
        )
    created = set(files_created)
    for i, path in enumerate(expected.files_created):
        norm = path.strip()[2:] if path.strip().startswith("./") else path.strip()
        why = not_a_real_file(workspace, norm) if norm in created and workspace is not None else None
        add(
            "files_created",
            path,
            norm in created and why is None,
            f"the agent did not create {path}" + (f" ({why})" if why else ""),
            ["expected", "files-created", i],
        )
    if expected.agent_blocked is not None:
        add(
            "agent_blocked",
            expected.agent_blocked,
            transcript.blocked == expected.agent_blocked,
            "expected the agent to be blocked by a hook, but no tool call was denied"
            if expected.agent_blocked
            else "the agent was blocked: " + "; ".join(transcript.blocked_reasons)[:300],
            ["expected", "agent-blocked"],
        )
    return results


def summarise(results: list[CheckResult]) -> dict[str, str]:
    """Per-kind PASS/FAIL for the report's `deterministic_checks` (a kind fails if any entry fails)."""
    out: dict[str, str] = {}
    for r in results:
        if out.get(r.kind) != "FAIL":
            out[r.kind] = r.status
    return out


def files_created(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> list[str]:
    """Paths that exist after the run and did not before, or whose size/mtime changed (an empty placeholder
    that the agent filled counts as created)."""
    return sorted(p for p, meta in after.items() if before.get(p) != meta)
