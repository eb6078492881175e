"""The VS Code extension end to end in real VS Code: code-server + the built .vsix + the real evalens server,
driven by playwright-core and Debian's chromium (recipe: shared/reference/editors-e2e.md §3).

One code-server start serves every test in this module (CI has little time): the module fixture runs the
driver once and the tests assert on what it saw. Clicking "Run eval" runs the real ``claude`` CLI against the
fake model server (tests/fakemodel). Screenshots and logs land in build/e2e/vscode/.
"""

from __future__ import annotations

import pytest

from tests.editors.code_server import REPO, code_server_session
from tests.editors.code_server import step as _step

pytestmark = pytest.mark.editors

ARTIFACTS = REPO / "build" / "e2e" / "vscode"
LENS_CASE = "extract-text"
FAIL_CASE = "block-secrets"  # the fake agent writes a file and is not blocked: `agent-blocked` fails


@pytest.fixture(scope="module")
def vscode_session(tmp_path_factory: pytest.TempPathFactory):
    driver_env = {"RUN_LENS": "1", "CASE_NAME": LENS_CASE, "FAIL_CASE_NAME": FAIL_CASE}
    with code_server_session(
        tmp_path_factory.mktemp("vscode-e2e"), ARTIFACTS, "drive.js", driver_env
    ) as result:
        yield result


def test_broken_case_has_squiggle_and_problems(vscode_session):
    _step(vscode_session, "workbench")
    _step(vscode_session, "diagnostics")
    assert vscode_session["squiggles"] >= 1
    problems = " | ".join(vscode_session["problems"])
    assert "pdf-tool" in problems, problems  # target skill:pdf-tool does not exist
    assert "evalens" in problems, problems  # the diagnostics' source
    assert "evalens" in vscode_session["status"]


def test_invalid_case_lens_says_fix_to_run(vscode_session):
    """03-broken.yaml has errors: its lens reads "✗ N errors: fix to run" instead of ▶ Run eval, and a click
    puts the cursor on the first problem (line 2, the `name` that breaks the pattern)."""
    _step(vscode_session, "invalid-lens")
    assert (
        vscode_session["invalidLens"].startswith("✗ ")
        and "errors: fix to run" in vscode_session["invalidLens"]
    )
    assert vscode_session["invalidLensHasRun"] == 0, "no Run eval lens on a case with errors"
    assert vscode_session["invalidLensCursor"].startswith("Ln 2,"), vscode_session["invalidLensCursor"]


def test_invalid_lens_count_follows_a_quick_fix(vscode_session):
    """#27 defect 4: "Create empty `report.pdf`" creates the file outside the buffer, and the "✗ N errors" lens
    counts one problem fewer without a keystroke (it kept its old count until the next edit)."""
    _step(vscode_session, "invalid-lens")
    _step(vscode_session, "invalid-lens-after-fix")
    assert vscode_session["reportPdfCreated"], "the quick fix created evals/fixtures/report.pdf"
    before = int(vscode_session["invalidLens"].split()[1])
    after = vscode_session["invalidLensAfterFix"]
    assert after == f"✗ {before - 1} errors: fix to run", (vscode_session["invalidLens"], after)


def test_new_case_lens_opens_the_prompt(vscode_session):
    _step(vscode_session, "new-case")
    assert "New eval case" in vscode_session["newCaseLens"]
    assert vscode_session["newCaseTab"].startswith("04-pdf-tools-new-case.yaml"), vscode_session["newCaseTab"]
    assert vscode_session["newCaseCursor"] == "Ln 4, Col 12", vscode_session["newCaseCursor"]
    text = vscode_session["newCaseText"]
    assert "target: skill:pdf-tools" in text and "name: pdf-tools-new-case" in text, text


def test_hover_explains_the_field(vscode_session):
    _step(vscode_session, "hover")
    assert "target" in vscode_session["hover"].lower(), vscode_session["hover"]


def test_completion_offers_expected_keys(vscode_session):
    _step(vscode_session, "completion")
    completions = vscode_session["completions"]
    assert any(k in completions for k in ("files-created", "agent-blocked", "not-contains")), (
        completions,
        vscode_session.get("completionTries"),
    )


def test_run_eval_lens_is_shown(vscode_session):
    _step(vscode_session, "lens")
    assert "Run eval" in vscode_session["lensBefore"]


def test_dry_run_command_runs_the_case_at_the_cursor(vscode_session):
    _step(vscode_session, "dry-run-command")
    assert f"Dry run of {LENS_CASE}" in vscode_session["dryRunToast"], vscode_session["dryRunToast"]


def test_lens_click_shows_verdict_in_lens_and_test_explorer(vscode_session):
    _step(vscode_session, "lens-run")
    assert vscode_session["statusWhileRunning"] == "evalens: 1 running", vscode_session["statusWhileRunning"]
    assert "PASS" in vscode_session["lensAfter"], vscode_session["lensAfter"]
    _step(vscode_session, "test-explorer")
    rows = vscode_session["testExplorerRows"]
    row = next((r for r in rows if r["label"].startswith(f"{LENS_CASE} (")), None)
    assert row is not None, rows
    assert row["state"] == "passed", row  # from the row's state icon (tests/editors/vscode/lib.js testRows)
    shot = ARTIFACTS / "lens-verdict-editor.png"
    assert shot.exists()


def test_test_explorer_run_shows_failure_message(vscode_session):
    _step(vscode_session, "test-explorer-run")
    row = vscode_session["failRow"]
    assert row and row["state"] == "failed", row
    assert "agent-blocked" in vscode_session["failurePeek"], vscode_session["failurePeek"]


def test_test_results_show_the_agents_turns(vscode_session):
    _step(vscode_session, "test-results-turns")
    text = vscode_session["testResultsText"]
    assert f"{FAIL_CASE}: the agent's turns" in text, text[-2000:]
    assert "▸ " in text and "💬" in text, text[-2000:]  # a tool call and the reply, as they arrived


def test_show_run_opens_the_run_page_beside_at_the_failed_check(vscode_session):
    _step(vscode_session, "show-run")
    shown = vscode_session["showRun"]
    # the check as the case writes it (#27 #11), not the report's `agent_blocked` `True`
    assert shown["verdict"] == "FAIL" and "agent-blocked\ttrue\t" in shown["failedCheck"], shown
    assert shown["anchor"].startswith(f"u-{FAIL_CASE}-check-"), shown
    assert shown["calls"] >= 1 and " in / " in shown["usage"] and "$" in shown["usage"], shown  # Claude: cost


def test_compare_with_previous_run_opens_the_comparison(vscode_session):
    _step(vscode_session, "compare-runs")
    shown = vscode_session["compare"]
    assert shown["title"] == f"evalens · compare {FAIL_CASE}", shown
    assert shown["headers"][1].startswith("previous") and shown["headers"][2].startswith("latest"), shown
    previous, latest = shown["verdicts"]
    assert latest == "FAIL", shown
    assert previous or "Only one run of this unit so far" in shown["note"], shown  # the case ran once here


def test_pass_is_not_a_problem(vscode_session):
    _step(vscode_session, "pass-no-problem")
    assert vscode_session["passSquiggles"] == 0, "a PASS draws no squiggle on `name`"
    rows = " | ".join(vscode_session["passProblems"])
    assert "eval PASS" not in rows and "eval-pass" not in rows, rows
    assert "01-extract-text.yaml" not in rows, rows


def test_a_failed_run_is_not_a_problem(vscode_session):
    """#27 defect 5: a FAIL shows in the lens and the Test Explorer; the Problems panel gets no "eval FAIL" errors
    for it (they piled up there and went stale)."""
    _step(vscode_session, "fail-no-problem")
    assert "✗ FAIL" in vscode_session["failLens"], vscode_session["failLens"]
    rows = " | ".join(vscode_session["failProblems"])
    assert "eval FAIL" not in rows and "eval-fail" not in rows, rows


def test_dry_run_leaves_the_last_result_alone(vscode_session):
    _step(vscode_session, "dry-run-keeps-result")
    row = vscode_session["failRowAfterDryRun"]
    assert row and row["state"] == "failed", row


def test_run_failed_profile_runs_only_the_failed_case(vscode_session):
    """The Run failed profile (palette: Run Failed Evals in Workspace) asks the server which cases failed last:
    one new report, holding only the failed case; the passing case keeps its result (docs/repeats.md)."""
    _step(vscode_session, "run-failed-profile")
    question = vscode_session["runFailedQuestion"]  # asked once, naming what runs (#27 #8)
    assert "Run 1 eval (failed in the workspace)?" in question and FAIL_CASE in question, question
    assert vscode_session["runFailedReports"] == [[FAIL_CASE]], vscode_session["runFailedReports"]
    failed, passed = vscode_session["failRowAfterRunFailed"], vscode_session["passRowAfterRunFailed"]
    assert failed and failed["state"] == "failed", failed
    assert passed and passed["state"] == "passed", passed


def test_extension_page_shows_the_icon(vscode_session):
    _step(vscode_session, "extension-page")
    icon = vscode_session["extensionIcon"]
    assert icon["width"] >= 128 and "icon.png" in icon["src"], icon
    assert "evalens" in vscode_session["extensionHeader"], vscode_session["extensionHeader"]
    assert (ARTIFACTS / "extension-page.png").exists()


def test_output_channel_is_clean(vscode_session):
    """No errors or warnings for normal events in the evalens channel (one timestamp per line)."""
    lines = vscode_session["ext_log"].splitlines()
    assert not [line for line in lines if "Cancel notification for unknown message id" in line]
    assert not [line for line in lines if "[error]" in line and "exited with code 0" in line]
    assert not [line for line in lines if "[Info  -" in line or "[Error -" in line], "doubled timestamps"


def test_test_explorer_follows_edits(vscode_session):
    _step(vscode_session, "test-explorer-sync")
    labels = vscode_session["rowsAfterEdit"]
    assert any(label.startswith("renamed-case (") for label in labels), labels
    assert not any(label.startswith("Broken Case (") for label in labels), labels


def test_open_last_report_command(vscode_session):
    _step(vscode_session, "open-last-report")
    assert vscode_session["reportTab"].endswith(".json"), vscode_session["reportTab"]
    assert any(u.startswith("FAIL ") for u in vscode_session["reportUnits"]), vscode_session["reportUnits"]
