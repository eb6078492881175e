"""A Claude Code plugin with two `claude plugin eval` cases, shared by the VS Code and Neovim e2e tests of issue 38:
``greets`` (the scripted agent writes the file and says GREETING-OK: every grader passes) and ``no-greeting`` (it
writes the file without the greeting: the regex grader fails, score 0.75). The cases and their graders are the
runner tests' own (tests/runner/test_agents_plugin_eval_run.py), so an editor shows the verdicts those tests pin;
what each editor shows is checked against the report the run wrote, through the server's own presentation of a
result (``verdict_title``), so the lens and the report cannot drift apart unnoticed."""

from __future__ import annotations

from pathlib import Path

from evalens.runner.report import NotAReport, load_report, reports_newest_first
from evalens.runner.results import UnitResult, result_from_report_case
from evalens.runner.suites.plugin_eval import PluginEvalSuite
from evalens.server.features.run_present import verdict_title
from tests.fakemodel.server import FakeModelServer
from tests.runner.test_agents_plugin_eval_differential import _official, _remove_kept
from tests.runner.test_agents_plugin_eval_run import GRADERS, WRITES, make_plugin

PLUGIN = "greet-plugin"
PASS_CASE, FAIL_CASE = "greets", "no-greeting"
#: the scripted agent's scenario for each case (tests/fakemodel: `pass` greets, `fail-contains` does not)
SCENARIOS = {PASS_CASE: "pass", FAIL_CASE: "fail-contains"}
#: a case only `claude plugin eval` itself runs, never evalens (its verdict comes from the CLI's result document)
CLI_CASES = {"cli-no-greeting": "fail-contains"}


def write_plugin(parent: Path, scenarios: dict[str, str] = SCENARIOS) -> Path:
    """The plugin ``parent/greet-plugin``: one skill and a case per scenario (the two of :data:`SCENARIOS` unless
    told), each with a regex, a file_exists and an llm grader (the fake judge passes it). Returns the plugin."""
    graders = {name: text.format(judge="pass") for name, text in GRADERS.items()}
    cases = {case: (WRITES.format(scenario=scenario), graders) for case, scenario in scenarios.items()}
    return make_plugin(parent / PLUGIN, cases)


def prompt_md(plugin: Path, case: str) -> Path:
    """The case's prompt.md, the file its lens is on."""
    return plugin / "evals" / case / "prompt.md"


def reported(plugin: Path) -> dict[str, UnitResult]:
    """Case name → its newest result in the plugin's reports (evals/reports/), as the server restores one."""
    found: dict[str, UnitResult] = {}
    for path in reports_newest_first(plugin):
        try:
            report = load_report(path)
        except NotAReport:
            continue  # a batch's run log beside the reports
        for case in report.cases:
            if case.format == "plugin-eval-prompt":
                found.setdefault(case.name, result_from_report_case(case, report, path, plugin))
    return found


def expected_titles(plugin: Path) -> dict[str, str]:
    """Case name → the verdict lens title its reported result makes (what each editor must draw)."""
    return {name: verdict_title(result) for name, result in reported(plugin).items()}


def run_the_cli(
    plugin: Path, fake: FakeModelServer, home: Path, cases: dict[str, str] = SCENARIOS
) -> dict[str, Path]:
    """Each of ``cases`` run by `claude plugin eval` itself, outside evalens (as the differential test runs it: one
    run, no ablation, Write granted), which leaves its result document in ``evals/results/<timestamp>/``. Returns
    the case name → that document."""
    found = {}
    results = plugin / "evals" / "results"
    for case in cases:
        before = set(results.glob("*/aggregate-result.json")) if results.is_dir() else set()
        for run in _official(plugin, case, "none", fake, home)["arms"]["with"]:
            _remove_kept(run)
        (written,) = set(results.glob("*/aggregate-result.json")) - before
        found[case] = written
    return found


def restored_titles(plugin: Path, cases: dict[str, str] = SCENARIOS) -> dict[str, str]:
    """Case name → the verdict lens title of its newest result document written by the CLI itself."""
    out = {}
    for case in cases:
        for name, restored in PluginEvalSuite.restore(
            "plugin-eval-prompt", prompt_md(plugin, case), None
        ).items():
            out[name] = verdict_title(restored.result)
    return out
