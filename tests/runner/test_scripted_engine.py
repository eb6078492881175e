"""Runner behaviour that does not depend on a real agent, exercised with a scripted stand-in for `claude`
(selected with EVALENS_CLAUDE_BIN): fast, so these run in every test pass."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from evalens.runner.api import RunError, RunRequest, run_cases
from tests.in_process import evalens as evalens_cli
from tests.runner.runner_helpers import case, make_package


async def test_keep_sandbox_and_package_install(
    tmp_path: Path, scripted_claude: Path, sandbox_dir: Path
) -> None:
    pkg = make_package(
        tmp_path / "pkg",
        cases={"kept": case("pass", contains=["GREETING-OK"], files_created=["output/result.txt"])},
    )
    (pkg / "agents" / "reviewer").mkdir(parents=True)
    (pkg / "agents" / "reviewer" / "AGENT.md").write_text("---\nname: reviewer\n---\nReview.\n")
    outcome = await run_cases(RunRequest(package_root=pkg, no_judge=True, keep_sandbox=True))
    result = outcome.results[0]
    assert result.verdict == "PASS" and result.engine_version == "9.9.9 (scripted)"
    assert result.agent_model == "scripted-model"
    kept = Path(result.sandbox_path)
    try:
        ws = kept / "ws"
        assert (ws / "output" / "result.txt").is_file()
        assert (ws / ".claude" / "skills" / "greeter" / "SKILL.md").is_file()
        assert (ws / ".claude" / "agents" / "reviewer.md").is_file()
        settings = json.loads((ws / ".claude" / "settings.json").read_text())
        assert settings["hooks"]["PreToolUse"][0]["matcher"] == "Write|Edit|Bash"
        assert json.loads((ws / "package.agent.json").read_text())["version"] == "1.2.3"
    finally:
        shutil.rmtree(kept)


async def test_reserved_engine_in_config_is_refused(tmp_path: Path, scripted_claude: Path) -> None:
    pkg = make_package(tmp_path / "pkg", engine="cursor", cases={"a": case("pass")})
    with pytest.raises(RunError, match="unsupported engine 'cursor'"):
        await run_cases(RunRequest(package_root=pkg))


def test_cli_exit_codes_and_json(tmp_path: Path, scripted_claude: Path, sandbox_dir: Path) -> None:
    pkg = make_package(
        tmp_path / "pkg",
        cases={
            "good": case("pass", contains=["GREETING-OK"]),
            "bad": {**case("pass", contains=["GREETING-OK"]), "input": {"prompt": "FAILME"}},
            "no-checks": case("pass"),
        },
    )
    env = {**os.environ}
    out = evalens_cli(
        [
            "eval",
            "--package",
            str(pkg),
            "--no-judge",
            "--json",
            "--jobs",
            "3",
            "-o",
            str(tmp_path / "out" / "r.json"),
        ],
        env=env,
    )
    assert out.returncode == 1, out.stderr
    report = json.loads(out.stdout)
    assert {c["name"]: c["verdict"] for c in report["cases"]} == {
        "good": "PASS",
        "bad": "FAIL",
        "no-checks": "SKIP",
    }
    assert json.loads((tmp_path / "out" / "r.json").read_text())["id"] == report["id"]
    assert "evalens eval" in out.stderr and "bad" in out.stderr  # the summary table
    ok = evalens_cli(["eval", "--package", str(pkg), "--no-judge", "good"], env=env)
    assert ok.returncode == 0, ok.stderr
    assert list(sandbox_dir.iterdir()) == []
