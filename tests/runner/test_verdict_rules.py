"""Fast checks of the honest-verdict rules that need no agent: the judge's deadline and failures through the real
SDKs against the fake server, ``evalens doctor`` with each missing piece, the preflight refusing a run before any
agent starts, and commands that must end with one line instead of a traceback (docs/verdicts.md)."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evalens.runner.judge import judge_case, resolve_judge
from tests.in_process import evalens as in_process
from tests.runner.runner_helpers import case, make_package

REPO = Path(__file__).resolve().parents[2]
JUDGES = ["claude-judge", "openai:gpt-judge"]


def evalens_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return in_process([*args], env={**os.environ, **(env or {})})


# --------------------------------------------------------------------------- the judge's deadline and failures


@pytest.mark.parametrize("judge", JUDGES)
async def test_judge_http_errors_are_error_with_the_status(model_env, judge: str) -> None:
    spec = resolve_judge(judge, default_provider="anthropic")
    for status in (429, 500):
        outcome = await judge_case(spec, f"verdict please JUDGE=err{status}", dict(os.environ), deadline=20)
        assert outcome.verdict == "ERROR", outcome
        assert f"HTTP {status}" in outcome.reason and "after 1 retry" in outcome.reason


@pytest.mark.parametrize("judge", JUDGES)
async def test_a_hanging_judge_costs_its_deadline_not_minutes(model_env, judge: str) -> None:
    spec = resolve_judge(judge, default_provider="anthropic")
    import anthropic  # noqa: F401 - the SDKs' first import (seconds on a loaded machine) is not the deadline's
    import openai  # noqa: F401

    t0 = time.monotonic()
    outcome = await judge_case(spec, "verdict please JUDGE=hang", dict(os.environ), deadline=2)
    elapsed = time.monotonic() - t0
    assert outcome.verdict == "ERROR" and "did not answer within 2 s" in outcome.reason, outcome
    assert elapsed < 6, elapsed


def test_judge_deadline_defaults_and_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    from evalens.runner.judge import judge_deadline

    monkeypatch.delenv("EVALENS_JUDGE_TIMEOUT", raising=False)
    assert judge_deadline(25) == 12.5 and judge_deadline(600) == 60 and judge_deadline(4) == 10
    assert judge_deadline(None) == 60 and judge_deadline(120, 7) == 7
    monkeypatch.setenv("EVALENS_JUDGE_TIMEOUT", "30")
    assert judge_deadline(25) == 30


# --------------------------------------------------------------------------- evalens doctor


def _doctor(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, dict]:
    from evalens.cli import doctor as cli_doctor

    code = cli_doctor.main(["--json", *args])
    return code, json.loads(capsys.readouterr().out)


def _check(report: dict, name: str) -> dict:
    return next(c for c in report["checks"] if c["name"] == name)


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.chdir(tmp_path)  # no package around: defaults apply


def test_doctor_all_present(keys, monkeypatch, capsys) -> None:
    code, report = _doctor(monkeypatch, capsys)
    if not report["ok"]:
        pytest.skip(
            f"agent CLIs not installed here: {[c for c in report['checks'] if c['status'] == 'missing']}"
        )
    assert code == 0 and report["engine"] == "claude-code"
    assert {c["name"] for c in report["checks"]} >= {
        "claude-code CLI",
        "claude-code agent key",
        "judge provider",
        "judge SDK",
        "judge key",
        "sandbox",
        "temp space",
        "codex CLI",
    }
    from evalens.cli import doctor as cli_doctor

    assert cli_doctor.main([]) == 0
    assert "ready" in capsys.readouterr().out


def test_doctor_without_the_cli_on_path(keys, monkeypatch, capsys, tmp_path: Path) -> None:
    from evalens.runner.engines import base

    monkeypatch.setattr(base, "tools_bin_dirs", lambda: [])
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("EVALENS_CLAUDE_BIN", raising=False)
    code, report = _doctor(monkeypatch, capsys)
    cli = _check(report, "claude-code CLI")
    assert code == 1 and not report["ok"] and cli["status"] == "missing"
    assert cli["fix"].startswith("npm install -g @anthropic-ai/claude-code")
    codex = _check(report, "codex CLI")
    assert codex["status"] == "missing" and codex["required"] is False
    assert codex["fix"].startswith("npm install -g @openai/codex")
    code, report = _doctor(monkeypatch, capsys, "--engine", "codex")
    assert code == 1 and _check(report, "codex CLI")["required"] is True


def test_doctor_cli_that_does_not_run(keys, monkeypatch, capsys, tmp_path: Path) -> None:
    from evalens.runner.engines.base import forget_versions

    broken = tmp_path / "claude"
    broken.write_text("#!/bin/sh\nexit 3\n")
    broken.chmod(broken.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("EVALENS_CLAUDE_BIN", str(broken))
    forget_versions()
    code, report = _doctor(monkeypatch, capsys)
    cli = _check(report, "claude-code CLI")
    assert code == 1 and cli["status"] == "missing" and "does not run" in cli["detail"]
    assert "npm install -g @anthropic-ai/claude-code" in cli["fix"]


def test_doctor_without_keys(monkeypatch, capsys, tmp_path: Path) -> None:
    for var in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "CODEX_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    code, report = _doctor(monkeypatch, capsys)
    assert code == 1
    assert _check(report, "claude-code agent key")["fix"] == "export ANTHROPIC_API_KEY=<your key>"
    assert _check(report, "judge key")["fix"] == "export ANTHROPIC_API_KEY=<your key>"
    code, report = _doctor(monkeypatch, capsys, "--engine", "codex", "--judge", "openai:gpt-5-mini")
    assert code == 1 and _check(report, "codex agent key")["fix"] == "export OPENAI_API_KEY=<your key>"
    assert _check(report, "judge key")["fix"] == "export OPENAI_API_KEY=<your key>"


def test_doctor_judge_sdk_missing_and_unknown_provider(keys, monkeypatch, capsys) -> None:
    import importlib.util

    real = importlib.util.find_spec
    # both keys set: the claude-code agent's default judge is of the other family, OpenAI (issue #25)
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "openai" else real(name, *a)
    )
    code, report = _doctor(monkeypatch, capsys)
    sdk = _check(report, "judge SDK")
    assert code == 1 and sdk["status"] == "missing" and "pip install" in sdk["fix"]
    monkeypatch.setattr(importlib.util, "find_spec", real)
    code, report = _doctor(monkeypatch, capsys, "--judge", "mistral:large")
    provider = _check(report, "judge provider")
    assert (
        code == 1 and provider["status"] == "missing" and "anthropic:MODEL or openai:MODEL" in provider["fix"]
    )


def test_doctor_without_bubblewrap_names_the_fallback(keys, monkeypatch, capsys) -> None:
    monkeypatch.setenv("EVALENS_NO_BWRAP", "1")
    _code, report = _doctor(monkeypatch, capsys)
    sandbox = _check(report, "sandbox")
    assert sandbox["status"] == "warn" and sandbox["required"] is False
    assert "fallback: the engine's own sandbox" in sandbox["detail"]


def test_doctor_low_temp_space(keys, monkeypatch, capsys) -> None:
    import shutil
    from collections import namedtuple

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda _p: usage(10 << 30, 10 << 30, 1 << 20))
    code, report = _doctor(monkeypatch, capsys)
    temp = _check(report, "temp space")
    assert code == 1 and temp["status"] == "missing" and "EVALENS_SANDBOX_DIR" in temp["fix"]


def test_concurrent_preflights_share_the_sandbox_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Runs started together in one process (Run all, several lenses) probe the same folder at the same time."""
    from concurrent.futures import ThreadPoolExecutor

    from evalens.runner.preflight import sandbox_checks

    monkeypatch.setenv("EVALENS_SANDBOX_DIR", str(tmp_path))
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _i: sandbox_checks(), range(64)))
    temp = [c for checks in results for c in checks if c.name == "temp space"]
    assert len(temp) == 64 and {c.status for c in temp} == {"ok"}, [
        c.detail for c in temp if c.status != "ok"
    ]
    assert not list(tmp_path.iterdir())


# --------------------------------------------------------------------------- the preflight refuses before any agent


def test_evalens_run_refuses_without_the_cli(
    tmp_path: Path, model_env, sandbox_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`evalens run` (and through run_file the lens and the Test Explorer) stop with the install command."""
    skill = tmp_path / "hello"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: hello\ndescription: Says hello.\n---\nSay hello.\n")
    evals = skill / "evals" / "evals.json"
    evals.write_text(
        json.dumps(
            {
                "skill_name": "hello",
                "evals": [
                    {"id": 1, "prompt": "SCENARIO=pass", "expected_output": "hi", "assertions": ["says hi"]}
                ],
            }
        )
    )
    before = len(model_env.records)
    out = evalens_cli("run", str(evals), env={"EVALENS_CLAUDE_BIN": str(tmp_path / "nope")})
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert (
        out.stderr.startswith("evalens run: cannot start (no agent was started)")
        and out.stderr.count("\n") == 1
    )

    from evalens.runner.api import FileRunRequest, UsageError, run_file

    monkeypatch.setenv("ANTHROPIC_API_KEY", "")
    with pytest.raises(UsageError) as err:
        asyncio.run(run_file(FileRunRequest(file=evals, engine="claude-code")))
    assert "export ANTHROPIC_API_KEY=<your key>" in str(err.value)
    assert len(model_env.records) == before and list(sandbox_dir.iterdir()) == []


# --------------------------------------------------------------------------- one line, never a traceback


def test_validate_into_a_closed_pipe_is_quiet() -> None:
    proc = subprocess.run(
        f"{sys.executable} -m evalens validate --format json {REPO / 'examples'} {REPO / 'tests'} "
        "| head -c 20",
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr
    assert len(proc.stdout) == 20


def test_rejudge_and_diff_of_a_file_that_is_not_a_report(tmp_path: Path, model_env) -> None:
    not_report = tmp_path / "tasks.json"
    not_report.write_text(json.dumps({"tasks": [{"id": 1}], "version": "x"}))
    not_json = tmp_path / "notes.json"
    not_json.write_text("hello\n")
    pkg = make_package(tmp_path / "pkg", cases={"a": case("pass")})
    for args in (
        ["eval", "--package", str(pkg), "--rejudge", str(not_report)],
        ["eval", "--package", str(pkg), "--rejudge", str(not_json)],
        ["eval", "diff", str(not_report), str(not_json)],
        ["eval", "--rejudge", str(tmp_path / "missing.json")],
    ):
        out = evalens_cli(*args)
        assert out.returncode == 2, (args, out.stderr)
        assert (
            out.stderr.count("\n") == 1
            and "Traceback" not in out.stderr
            and "validation error" not in out.stderr
        )
        assert (
            "not an evalens eval report" in out.stderr
            or "is not JSON" in out.stderr
            or "cannot read" in out.stderr
        ), out.stderr


def test_rescoring_results_with_a_failed_run_never_passes(tmp_path: Path, capsys) -> None:
    """`evalens run results.json` (skilljack's score/report) counts a run that errored as a failure reason."""
    from evalens.cli import run as cli_run
    from tests.conftest import CORPUS

    sources = sorted((CORPUS / "skilljack-results-json").glob("*.json"))
    if not sources:
        pytest.skip("corpus not available")
    data = json.loads(sources[0].read_text())
    data["failureReasons"], data["passed"] = [], True
    entry = data["tasks"][0]
    runs = entry.get("runDetails") or [{"result": entry["result"], "score": entry["score"]}]
    runs[0]["result"].update(isError=True, errorMessage="agent error (API status 500): fake 500")
    entry["runDetails"] = runs
    dest = tmp_path / "results" / "r.json"
    dest.parent.mkdir()
    dest.write_text(json.dumps(data))
    assert (
        cli_run.main(
            [
                str(dest),
                "--json",
                str(tmp_path / "out.json"),
                "--threshold-discovery",
                "0",
                "--threshold-score",
                "0",
            ]
        )
        == 1
    )
    again = json.loads((tmp_path / "out.json").read_text())
    assert not again["passed"] and any(
        "failed runs (agent or judge error)" in r for r in again["failureReasons"]
    )
    capsys.readouterr()
