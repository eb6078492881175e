"""Headless Neovim 0.7.2 and 0.11 with the README's setup (issue 45, item 10): a batch lens starts several paid
agent runs, so it asks first, as the palette and VS Code do (vscode-extension/src/spendConfirm.ts). On a package of
three cases, the eval config's "▶ Run all evals" asks "Run 3 evals (every eval of eval-config.json)? Each one is a
real agent run and may cost money." naming the three; declined, the fake model gets no request and no report is
written; accepted, the batch runs exactly the named cases. One case edited afterwards makes "↻ Run stale (1)",
whose question names that case alone, and accepting runs it alone. The typed commands (`:EvalensRunAll`,
`:EvalensRunStale[!]`) ask the same question: declined, nothing starts; accepted, the named case runs alone. The real ``claude`` runs against the fake
model; which cases ran is read from the reports the batches wrote."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evalens.runner.report import NotAReport, load_report, reports_newest_first
from tests.editors.nvim_session import Neovim, claude_or_skip, example_package
from tests.fakemodel.server import FakeModelServer

pytestmark = pytest.mark.editors

CASES = ("alpha", "beta", "gamma")
STALE = "beta"
CASE = """\
name: {name}
description: The fake model says DONE
target: skill:pdf-tools
input:
  prompt: "Say DONE. MARKER={marker}"
expected:
  contains:
    - "DONE"
judge:
  criteria: >
    The reply says DONE. JUDGE=pass
"""
MONEY = "Each one is a real agent run and may cost money."


def reported_cases(pkg: Path) -> list[str]:
    """The case of each report in the package, oldest first (a case run from the editor writes a report of its
    own, one case each)."""
    out = []
    for path in reversed(reports_newest_first(pkg)):
        try:
            report = load_report(path)
        except NotAReport:
            continue
        out += [c.name for c in report.cases]
    return out


def named(question: str) -> list[str]:
    """The units a question names, one `• name` line each."""
    return sorted(line[2:] for line in question.splitlines() if line.startswith("• "))


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_batch_lenses_ask_before_they_spend(version: str, tmp_path: Path):
    nvim = Neovim.or_skip(version)
    claude_or_skip()
    pkg = example_package(tmp_path)
    for old in (pkg / "evals" / "cases").glob("*.yaml"):
        old.unlink()
    for i, name in enumerate(CASES, 1):
        marker = f"m{os.urandom(5).hex()}"
        (pkg / "evals" / "cases" / f"0{i}-{name}.yaml").write_text(CASE.format(name=name, marker=marker))
    config = pkg / "evals" / "eval-config.json"
    log = tmp_path / "fakemodel-log"
    env = {
        "EVALENS_CONFIG": str(config),
        "EVALENS_STALE_CASE": str(pkg / "evals" / "cases" / f"02-{STALE}.yaml"),
        "EVALENS_FAKE_LOG": str(log / "requests.jsonl"),
    }
    with FakeModelServer(idle_timeout=600, log_dir=log) as fake:
        result = nvim.run_driver(
            "batch_confirm.lua", tmp_path, cwd=pkg, timeout=600, model=fake, sandboxes=True, env=env
        ).result
    assert result["version"] == version
    declined, run_all, run_stale = result["asked"][:3]

    # the palette's question, naming what the server says the batch runs; Cancel is the default
    first = declined["question"].splitlines()[0]
    assert first == f"Run 3 evals (every eval of eval-config.json)? {MONEY}", declined
    assert named(declined["question"]) == sorted(CASES), declined
    assert declined["choices"] == "&Run 3 evals\n&Cancel" and declined["default"] == 2, declined
    # declined: no agent started, nothing written
    assert result["requests_after_decline"] == 0 and result["reports_after_decline"] == 0, result
    assert "evalens: not run (every eval of eval-config.json)" in result["notes"], result["notes"]
    assert run_all["question"] == declined["question"]

    # accepted: exactly the named units ran, in one batch; then the stale lens asked for beta alone and ran it
    assert result["run_stale"].startswith("↻ Run stale (1"), result["run_stale"]
    stale_first = run_stale["question"].splitlines()[0]
    assert stale_first == f"Run 1 eval (stale in eval-config.json)? {MONEY}", run_stale
    assert named(run_stale["question"]) == [STALE], run_stale
    ran = reported_cases(pkg)
    assert result["reports_after_run_all"] == 3, result
    assert sorted(ran[:3]) == named(run_all["question"]) and ran[3:4] == named(run_stale["question"]), ran
    assert result["requests_after_run_all"] > 0

    # the typed commands ask the same question (they asked none): declined, nothing starts; accepted, alpha runs
    commands = [t["command"] for t in result["typed"]]
    assert commands == ["EvalensRunAll", "EvalensRunStale!", "EvalensRunStale", "EvalensRunStale"], commands
    questions = [t["question"] for t in result["typed"]]
    assert questions[0] == declined["question"], questions[0]
    assert questions[1].splitlines()[0] == f"Run 1 eval (stale in the workspace)? {MONEY}", questions[1]
    assert questions[2].splitlines()[0] == f"Run 1 eval (stale in 01-alpha.yaml)? {MONEY}", questions[2]
    assert all(named(q) == ["alpha"] for q in questions[1:]), questions
    declined_typed = (result["requests_after_typed_declines"], result["reports_after_typed_declines"])
    assert declined_typed == (0, 0), result
    assert result["reports_after_typed_run"] == 1, result
    assert reported_cases(pkg)[4:] == ["alpha"], reported_cases(pkg)
