"""`claude plugin eval` cases in real VS Code (code-server + the built .vsix + the real evalens server, issue 38):
clicking the "▶ Run" lens on each case's prompt.md runs it (on claude-code: the real `claude plugin eval` in
evalens's sandbox, against the scripted fake model), and the verdict lens and the Test Explorer row say what the
run's report says: PASS for ``greets``, FAIL for ``no-greeting``. After a window reload (a new server) the
verdict lenses come back from the report, and a case run by `claude plugin eval` itself shows the verdict of
the CLI's own result document. Screenshots land in build/e2e/vscode-plugin-eval/."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.editors.code_server import REPO, code_server_session, step
from tests.editors.plugin_eval_package import (
    CLI_CASES,
    FAIL_CASE,
    PASS_CASE,
    PLUGIN,
    SCENARIOS,
    expected_titles,
    reported,
    restored_titles,
    run_the_cli,
    write_plugin,
)
from tests.fakemodel.server import FakeModelServer

pytestmark = pytest.mark.editors

ARTIFACTS = REPO / "build" / "e2e" / "vscode-plugin-eval"
STATES = {PASS_CASE: "passed", FAIL_CASE: "failed"}


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory):
    """The plugin's two cases to run from their lenses, and a third that `claude plugin eval` itself ran before
    the editor opened (its result document is the only result it has)."""
    run = tmp_path_factory.mktemp("vscode-plugin-eval")

    def prepare(ws: Path) -> None:
        plugin = write_plugin(ws, {**SCENARIOS, **CLI_CASES})
        (run / "cli-home").mkdir()
        with FakeModelServer(idle_timeout=300, log_dir=run / "cli-model-log") as fake:
            run_the_cli(plugin, fake, run / "cli-home", CLI_CASES)

    driver_env = {"PLUGIN": PLUGIN, "CASES": f"{PASS_CASE},{FAIL_CASE}", "SHOWN": ",".join(CLI_CASES)}
    with code_server_session(
        run / "cs", ARTIFACTS, "drive_plugin_eval.js", driver_env, prepare=prepare, timeout=900
    ) as result:
        yield result


@pytest.fixture(scope="module")
def titles(session) -> dict[str, str]:
    """The verdict lens title each case's reported result makes."""
    plugin = Path(session["workspace"]) / PLUGIN
    results = reported(plugin)
    assert results[PASS_CASE].verdict == "PASS" and results[FAIL_CASE].verdict == "FAIL", results
    assert results[FAIL_CASE].details["score"] == pytest.approx(0.75)  # the regex grader (1 of 4) failed
    return expected_titles(plugin)


@pytest.mark.parametrize("case", [PASS_CASE, FAIL_CASE])
def test_lens_click_shows_the_reported_verdict(session, titles, case: str):
    """The lens line of the case's prompt.md: "▶ Run" before, the report's verdict after the click."""
    step(session, f"run-{case}")
    seen = session["lenses"][case]
    assert any(line.startswith("▶ Run") for line in seen["before"]), seen
    icon = "✓ PASS" if case == PASS_CASE else "✗ FAIL: score 0.75"
    assert titles[case].startswith(icon), titles
    assert any(titles[case] in line for line in seen["after"]), (titles[case], seen["after"])


@pytest.mark.parametrize("case", [PASS_CASE, FAIL_CASE])
def test_test_explorer_shows_the_reported_verdict(session, titles, case: str):
    step(session, "test-explorer")
    rows = session["testExplorerRows"]
    row = next((r for r in rows if r["label"].startswith(f"{case} (")), None)
    assert row is not None, rows
    assert row["state"] == STATES[case], row
    assert (ARTIFACTS / "test-explorer.png").exists()


@pytest.mark.parametrize("case", [PASS_CASE, FAIL_CASE])
def test_verdict_lens_survives_a_window_reload(session, titles, case: str):
    step(session, "reload")
    lines = session["restored"][case]
    assert any(titles[case] in line for line in lines), (titles[case], lines)


def test_the_clis_own_result_shows_on_the_lens(session):
    """A case run only by `claude plugin eval` itself: its lens shows the verdict of the CLI's own result document
    (``evals/results/<ts>/aggregate-result.json``) as soon as it is opened, and again after the reload."""
    step(session, "cli-results")
    step(session, "reload")
    titles = restored_titles(Path(session["workspace"]) / PLUGIN, CLI_CASES)
    for case in CLI_CASES:
        assert titles[case].startswith("✗ FAIL: score 0.75"), titles
        assert any(titles[case] in line for line in session["shown"][case]), (titles[case], session["shown"])
        assert any(titles[case] in line for line in session["restored"][case]), (
            titles[case],
            session["restored"],
        )
