"""The lens of a unit that will not run counts what it says (issue 45 #8): "✗ 2 problems" stood beside four
Problems entries, since it counts only the errors that stop the unit while the panel lists warnings too. It
says "errors", and the SKIP answer's reason says the same."""

from __future__ import annotations

from evalens.core.config import Tuning
from evalens.core.problems import Severity
from evalens.core.validate import validate_text
from evalens.server.features import run_invalid

CASE = """name: Broken Case
target: skill:x
input:
  prompt: hi
  bogus: 1
expected:
  nope: 2
judge:
  criteria: The reply is good.
"""


def test_the_lens_counts_errors_and_says_errors():
    v = validate_text("/nowhere/pkg/evals/cases/a.yaml", CASE, None, None, Tuning())
    errors = run_invalid.unit_errors(v, None, [])
    others = [p for p in v.problems if p.severity != Severity.ERROR]
    assert errors and others, [(p.code, p.severity) for p in v.problems]  # the panel lists more than the lens
    n = len(errors)
    assert run_invalid.lens_title(n) == f"✗ {n} error{'s' if n != 1 else ''}: fix to run"
    assert run_invalid.lens_title(1) == "✗ 1 error: fix to run"
    reason = run_invalid.reason(errors)
    assert reason.startswith(f"not run: {n} error{'s' if n != 1 else ''} to fix first: line ")
