"""``--env NAME`` (``extra_env``; the editor's ``evalens.apiKeyEnvVars``) passes the caller's variable to the agent
for every format, as it did for a package's case only (issue 41: one meaning for every shared option). A scripted
`claude` prints what it sees; without the name, the variable stays out of the sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.runner.runner_helpers import install_scripted_claude, run_units

PRINTS_ITS_ENV = """#!/bin/sh
if [ "$1" = "--version" ]; then echo "9.9.9 (scripted)"; exit 0; fi
echo '{"type":"system","subtype":"init","model":"scripted-model","session_id":"s-1"}'
echo "{\\"type\\":\\"result\\",\\"subtype\\":\\"success\\",\\"is_error\\":false,\\"result\\":\\"seen=${EVALENS_PASSED_VAR:-none}\\",\\"session_id\\":\\"s-1\\"}"
"""


def _suite(root: Path) -> Path:
    (root / "skills" / "greeting").mkdir(parents=True)
    (root / "skills" / "greeting" / "SKILL.md").write_text(
        "---\nname: greeting\ndescription: Greets people by name.\n---\nGreet.\n"
    )
    (root / "tasks.yaml").write_text(
        "skill: greeting\ntasks:\n  - id: t1\n    prompt: What is an email?\n    expected_skill_load: none\n"
        "    deterministic: { expect_skill_activation: false }\n"
    )
    return root / "tasks.yaml"


@pytest.mark.parametrize("passed", [True, False])
async def test_a_file_run_passes_the_named_variable_and_no_other(
    tmp_path: Path, sandbox_dir: Path, monkeypatch: pytest.MonkeyPatch, passed: bool
) -> None:
    agent = install_scripted_claude(monkeypatch, sandbox_dir, PRINTS_ITS_ENV)
    monkeypatch.setenv("EVALENS_PASSED_VAR", "VALUE-42")
    try:
        tasks = _suite(tmp_path / "suite")
        [result] = await run_units(
            tasks,
            no_judge=True,
            output_dir=tmp_path / "results",
            extra_env=["EVALENS_PASSED_VAR"] if passed else [],
        )
    finally:
        agent.unlink(missing_ok=True)
    assert result.verdict == "PASS", result
    assert result.output_snippet == ("seen=VALUE-42" if passed else "seen=none")


def test_evalens_run_file_takes_env(
    tmp_path: Path, sandbox_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The verb takes ``--env`` for an eval file (it refused it as UAAPS-only before) and the run sees it."""
    import json

    from tests.in_process import evalens

    agent = install_scripted_claude(monkeypatch, sandbox_dir, PRINTS_ITS_ENV)
    monkeypatch.setenv("EVALENS_PASSED_VAR", "VALUE-42")
    tasks = _suite(tmp_path / "suite")
    try:
        out = evalens(
            [
                "run",
                tasks,
                "--no-judge",
                "--runs",
                "1",
                "--env",
                "EVALENS_PASSED_VAR",
                "-o",
                tmp_path / "r.json",
            ],
            cwd=tasks.parent,
        )
    finally:
        agent.unlink(missing_ok=True)
    assert out.returncode == 0, out.stderr
    [case] = json.loads((tmp_path / "r.json").read_text())["cases"]
    assert "seen=VALUE-42" in json.dumps(case)
