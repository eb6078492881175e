"""The verdict words, declared once: every model, report, view, wire message and the verdict function share
them, so a fifth word cannot reach one face and not another (issue #23)."""

from __future__ import annotations

from typing import Literal

Verdict = Literal["PASS", "FAIL", "SKIP", "ERROR"]
"""One unit-run's verdict (``runner/verdicts.py`` decides it)."""

State = Literal["PASS", "FAIL", "FLAKY", "SKIP", "ERROR", "BUDGET"]
"""A unit's state over its repeated runs, derived from their verdicts (docs/repeats.md): FLAKY when it both
passed and failed, BUDGET when a budget cut it short."""

CheckStatus = Literal["PASS", "FAIL"]
"""One deterministic check's outcome."""

JudgeRuling = Literal["PASS", "FAIL", "ERROR"]
"""The judge's ruling on a unit-run (ERROR: the judge failed, never a guess)."""
