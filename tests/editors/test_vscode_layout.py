"""Issue 45's layout and restore defects end to end in code-server with the built .vsix, the real evalens server
and the real ``claude`` against the fake model (one code-server start, tests/editors/code_server.py):

- #3: with Show Run open beside a failed case, every lens of the case's line is on screen and ``Show run`` takes
  a click (the verdict, with its long reason, came before it and pushed it past the clipped end of the line);
- #8: the Test Explorer shows a run started from a terminal (`evalens run`: its ERROR), marks it once stale (the
  server's stale check, which the lens's ``· stale`` reads), and shows it again after a reload;
- #10: an open run page comes back after a window reload, drawn again from the run log (no panel serializer:
  it was gone);
- #10: no "Ignore" quick fix for a rule the runner enforces whatever its level (``path-escape``,
  ``plugin-eval-template``), while a tunable rule on the same file keeps its own.

Screenshots land in build/e2e/vscode-layout/ (with EVALENS_DOCS_IMG set, the docs' ones in docs/img/ too).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from evalens.core.placeholders import INIT_RUBRIC
from tests.editors.code_server import REPO, code_server_session, step

pytestmark = pytest.mark.editors

ARTIFACTS = REPO / "build" / "e2e" / "vscode-layout"
CASE_NAME = "report-written"
CASE_FILE = "06-report-written.yaml"
FAILED_CASE = f"""\
name: {CASE_NAME}
description: The fake agent writes output/extracted.txt, never output/report.md, so files-created fails
target: skill:pdf-tools
input:
  prompt: "Extract all text from fixtures/sample.txt into output/extracted.txt"
expected:
  files-created:
    - output/report.md
judge:
  criteria: The reply says the text was written to output/extracted.txt.
"""
ESCAPE_FILE = "07-escape.yaml"
ESCAPE_CASE = """\
name: escape
description: Reads a file outside the package
target: skill:pdf-tools
bogus: 1
input:
  prompt: "Summarise the secrets"
  files:
    - ../../secrets.txt
expected:
  contains:
    - "DONE"
"""
GRADER = f"---\ntype: llm\nweight: 1\n---\n\n{INIT_RUBRIC}\n"
CLI_NAME = "cli-error"
CLI_FILE = "08-cli-error.yaml"
CLI_CASE = f"""\
name: {CLI_NAME}
description: Run from a terminal; the fake model answers the agent HTTP 500, so the run ends ERROR
target: skill:pdf-tools
input:
  prompt: "Extract the text SCENARIO=err500"
expected:
  contains:
    - "EXTRACTED"
judge:
  criteria: The reply says the text was extracted. JUDGE=pass
"""


def _line(text: str, needle: str) -> int:
    """The 1-based line of ``text`` that holds ``needle``."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def _prepare(ws: Path) -> None:
    (ws / "evals" / "cases" / CASE_FILE).write_text(FAILED_CASE)
    (ws / "evals" / "cases" / ESCAPE_FILE).write_text(ESCAPE_CASE)
    (ws / "evals" / "cases" / CLI_FILE).write_text(CLI_CASE)
    plugin = ws / "greet-plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "greet-plugin", "version": "0.1.0"}\n')
    case = plugin / "evals" / "greet"
    (case / "graders").mkdir(parents=True)
    (case / "prompt.md").write_text("---\nmax_turns: 3\n---\n\nGreet Ada.\n")
    (case / "graders" / "criteria.md").write_text(GRADER)


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory):
    env = {
        "CASE_FILE": CASE_FILE,
        "CASE_NAME": CASE_NAME,
        "ESCAPE_FILE": ESCAPE_FILE,
        "GRADER_FILE": "greet-plugin/evals/greet/graders/criteria.md",
        "CLI_NAME": CLI_NAME,
        "CLI_FILE": CLI_FILE,
        "CLI_PROMPT_LINE": str(_line(CLI_CASE, "prompt:")),
        "CLI_PROMPT_COL": str(CLI_CASE.splitlines()[_line(CLI_CASE, "prompt:") - 1].rindex('"') + 1),
        "PY": sys.executable,
        "STEPS": os.environ.get("EVALENS_E2E_STEPS", ""),
    }
    with code_server_session(
        tmp_path_factory.mktemp("vscode-layout"), ARTIFACTS, "drive_layout.js", env, prepare=_prepare
    ) as result:
        yield result


def test_every_lens_is_reachable_with_show_run_beside(session):
    """#3: the failed case's lens line is wider than its half of the window (the premise: VS Code clips it), yet
    each lens starts on screen and the point a user clicks hits it; a real click on ``Show run`` draws the page
    again."""
    step(session, "lens-beside")
    geometry = session["besideGeometry"]
    assert geometry["lineWidth"] > geometry["shownWidth"], geometry  # the line is clipped beside the run page
    titles = [lens["title"] for lens in geometry["lenses"]]
    assert titles[:4] == ["▶ Run eval", "Dry run", "Run 5×", "Show run"], titles
    assert titles[4].startswith("✗ FAIL: the agent did not create"), titles  # the long verdict last
    unreachable = [lens for lens in geometry["lenses"] if not (lens["visible"] and lens["hit"])]
    assert unreachable == [], geometry
    assert session["showRunClickRedrew"] is True, session
    assert CASE_NAME in session["pageBefore"], session["pageBefore"]


def test_the_run_page_comes_back_after_a_reload(session):
    """#10: the run page open beside the case is there after Developer: Reload Window, drawn again (the panel
    serializer asks the server's evalens.runView for the target the page kept)."""
    step(session, "reload")
    after = session["pageAfterReload"]
    assert after is not None, session["restoredTabs"]
    assert CASE_NAME in after and "FAIL" in after and "the agent did not create output/report.md" in after, (
        after
    )


def test_the_test_explorer_shows_a_cli_runs_error_and_marks_it_stale(session):
    """#8: `evalens run` in a terminal ends the case ERROR: the lens showed it and the Test Explorer's row stayed
    "Not yet run"; now the row is errored. Edited and saved, the result is stale (the server's one stale check: the
    lens's ``· stale``), and the row's description says what changed; as the case's own text changed, VS Code
    draws the result outdated (dimmed). After the reload the row still shows the ERROR, still marked stale and
    dimmed."""
    step(session, "cli-run")
    assert session["cliReports"] >= 1, session  # the CLI wrote its report (and the run log)
    assert session["cliLens"].startswith("▶ Run eval") and "⚠ ERROR" in session["cliLens"], session["cliLens"]
    assert session["cliRow"]["state"] == "error", session["cliRow"]
    step(session, "stale")
    assert "· stale" in session["staleLens"], session["staleLens"]
    row = session["staleRow"]
    assert row["state"] == "error" and "stale: the unit's own text changed" in row["text"], row
    assert row["retired"] is True, row  # outdated: VS Code dims it (invalidateTestResults)
    assert session["staleNeededRefresh"] is False, session  # evalens/staleChanged asked discovery again
    step(session, "reload")
    after = session["rowAfterReload"]
    assert after["state"] == "error" and "stale: " in after["text"] and after["retired"] is True, after


def test_no_ignore_for_a_rule_the_runner_enforces(session):
    """#10: "Ignore `path-escape`" and "Ignore `plugin-eval-template`" would only hide why the case is refused;
    the menu offers neither, and still offers the ignore of a tunable rule (the menu is read, not missing)."""
    step(session, "no-ignore")
    escape, unknown, template = (session[k] for k in ("escapeFixes", "unknownKeyFixes", "templateFixes"))
    assert "path-escape" in escape["marker"] and "plugin-eval-template" in template["marker"], (
        escape,
        template,
    )
    assert not [t for t in escape["titles"] if t.startswith("Ignore `")], escape
    assert "Ignore `unknown-key` on this line" in unknown["titles"], unknown  # the menu is read, not missing
    assert not [t for t in template["titles"] if t.startswith("Ignore `")], template
