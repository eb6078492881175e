"""The in-process CLI runner the fast tier uses (tests/in_process.py) answers what a real ``python -m evalens``
answers: the same exit code, stdout and stderr, for successes, findings, usage errors and refusals. Without
this, a test converted to run in-process could pass on a behaviour the real command does not have."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.ci_helpers import make_case, make_report
from tests.conftest import REPO
from tests.in_process import evalens, evalens_subprocess

EXAMPLE = REPO / "examples" / "pdf-tools"


def _reports(tmp: Path) -> tuple[Path, Path]:
    before = tmp / "before.json"
    after = tmp / "after.json"
    before.write_text(make_report([make_case("a", "PASS"), make_case("b", "PASS")]).model_dump_json())
    after.write_text(make_report([make_case("a", "PASS"), make_case("b", "FAIL")]).model_dump_json())
    return before, after


CASES = {
    "help": lambda tmp: ["--help"],
    "usage error": lambda tmp: ["eval", "--no-such-flag"],
    "findings as JSON": lambda tmp: ["validate", "--format", "json", str(EXAMPLE)],
    "a missing report": lambda tmp: ["show", str(tmp / "missing.json")],
    "a regression gate": lambda tmp: ["eval", "diff", *map(str, _reports(tmp)), "--fail-on", "regression"],
    "GitHub annotations": lambda tmp: ["report", "ci", str(_reports(tmp)[1]), "--annotations", "on"],
}


@pytest.mark.parametrize("name", CASES)
def test_in_process_answers_what_the_real_command_answers(name: str, tmp_path: Path) -> None:
    args = CASES[name](tmp_path)
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120", "GITHUB_ACTIONS": "true"}
    inside = evalens(args, cwd=tmp_path, env=env)
    real = evalens_subprocess(args, cwd=tmp_path, env=env)
    assert (inside.returncode, inside.stdout, inside.stderr) == (real.returncode, real.stdout, real.stderr)
    assert real.stdout or real.stderr  # every case says something: an empty pair would prove nothing


def test_the_environment_and_directory_are_restored(tmp_path: Path) -> None:
    """The call's env and cwd are the command's alone: the test process gets its own back."""
    before_env, before_cwd = dict(os.environ), Path.cwd()
    out = evalens(
        ["validate", "--format", "json", str(EXAMPLE)], cwd=tmp_path, env={"PATH": os.environ["PATH"]}
    )
    assert out.returncode == 1 and json.loads(out.stdout)
    assert dict(os.environ) == before_env and Path.cwd() == before_cwd


async def test_a_coroutine_is_told_to_use_a_subprocess() -> None:
    with pytest.raises(RuntimeError, match="use a subprocess"):
        evalens(["--help"])
