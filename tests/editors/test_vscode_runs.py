"""The VS Code extension's run history end to end in code-server (issue 27): skill-creator evals labelled by
their name, one Test Results run per batch with a summary line, Show Run following a running case, the
expected/actual diff of a failed check, test tags, the Runs view and per-run overrides.

One code-server start (tests/editors/code_server.py) serves the module; the runs are the real ``claude`` against
the fake model. Screenshots land in build/e2e/vscode-runs/ (the ones in docs/img/ are copied from there).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.editors.code_server import E2E_DIR, REPO, code_server_session, step

pytestmark = pytest.mark.editors

ARTIFACTS = REPO / "build" / "e2e" / "vscode-runs"

SKILL_CREATOR_EVALS = {
    "skill_name": "pdf-tools",
    "evals": [
        {
            "id": 1,
            "name": "first-line",
            "prompt": "Print the first line of fixtures/sample.txt",
            "expected_output": "Hello, World",
            "expectations": ["The reply quotes the first line"],
        },
        {
            "id": 2,
            "prompt": "Count the words in fixtures/sample.txt",
            "expected_output": "2 words",
            "expectations": ["The reply gives a word count"],
        },
    ],
}


FOLLOWED_CASE = """\
name: followed
description: A slow run (the model holds its reply until the driver has seen the run live, 120 s at most), so Show Run can follow it
target: skill:pdf-tools
input:
  prompt: "Extract all text from fixtures/sample.txt into output/extracted.txt SCENARIO=slow-extract"
  files:
    - fixtures/sample.txt
expected:
  contains:
    - "EXTRACTED"
judge:
  criteria: The reply says the text was written to output/extracted.txt.
"""


DIFF_CASE = """\
name: diff-checks
description: Every deterministic check fails against the fake agent's reply, so the peek shows their diffs
target: skill:pdf-tools
input:
  prompt: "Extract all text from fixtures/sample.txt into output/extracted.txt"
  files:
    - fixtures/sample.txt
expected:
  contains:
    - "Goodbye"
  not-contains:
    - "Hello"
  files-created:
    - output/extracted.txt
    - output/report.md
judge:
  criteria: The reply says the text was written to output/extracted.txt.
"""


def _prepare(ws: Path) -> None:
    """A skill-creator evals.json beside the UAAPS cases (one eval named, one not), and a slow case."""
    evals = ws / "skills" / "pdf-tools" / "evals"
    evals.mkdir(parents=True)
    (evals / "evals.json").write_text(json.dumps(SKILL_CREATOR_EVALS, indent=2) + "\n")
    (ws / "evals" / "cases" / "05-followed.yaml").write_text(FOLLOWED_CASE)
    (ws / "evals" / "cases" / "04-diff.yaml").write_text(DIFF_CASE)


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory):
    env = {"STEPS": os.environ.get("EVALENS_E2E_STEPS", "")}
    with code_server_session(
        tmp_path_factory.mktemp("vscode-runs"),
        ARTIFACTS,
        "drive_runs.js",
        env,
        prepare=_prepare,
        scenarios=E2E_DIR / "scenarios_runs.json",
    ) as result:
        yield result


def test_skill_creator_evals_are_labelled_by_their_name(session):
    """#27 defect 3: `"name": "first-line"` labels its eval in the outline and the Test Explorer (not its
    prompt); the eval without a name is labelled by its prompt, its id shown beside it."""
    step(session, "skill-creator-labels")
    assert session["outlineTop"][0].startswith("evalens"), session[
        "outlineTop"
    ]  # evalens's group comes first
    outline = " | ".join(session["outlineRows"])
    assert "first-line" in outline and "Print the first line" not in outline, outline
    assert "Count the words in fixtures/sample.txt" in outline, outline
    rows = [r["text"] for r in session["skillCreatorRows"]]  # the row's label then its description (the id)
    assert "first-line#1" in rows, rows
    assert "Count the words in fixtures/sample.txt#2" in rows, rows
    # two packages named pdf-tools (the repository's, and the skill folder holding evals.json): the nested one
    # shows its folder beside its name, the workspace's own shows none
    assert rows.count("pdf-tools") == 1 and "pdf-toolsskills/pdf-tools" in rows, rows


def test_run_all_is_one_test_results_run_with_a_summary(session):
    """#27 defect 9: the "Run all evals" lens runs the package as one Test Results run (not one per case) that
    holds every case's turns and ends with one summary line counting each outcome."""
    step(session, "batch-follow")
    # issue 45 #10: the lens asked first, as the palette does, naming the cases it was about to run
    question = session["runAllQuestion"]
    assert "(every eval of eval-config.json)? Each one is a real agent run and may cost money." in question
    assert "• followed" in question and "• extract-text" in question, question
    text = session["batchText"]
    assert text.count("■ evalens:") == 1, text[-3000:]
    summary = text[text.index("■ evalens:") :].splitlines()[0]
    assert "passed" in summary and "failed" in summary and "evals" in summary, summary
    # the agent's turns are in the batch's run; the terminal shows its last rows only, and the repeats' headers
    # ("run k/N") made the output longer, so a unit's header may have scrolled out: a turn line ("↳") is checked
    assert "the agent's turns" in text or "↳ " in text, text[-3000:]


def test_show_run_follows_a_running_case(session):
    """#27 defect 9: Show Run on a running case opens its live page with the turns so far (RUNNING), and the
    page turns into the finished run page when the run ends."""
    step(session, "batch-follow")
    assert session["liveBadge"] == "RUNNING", session["liveBadge"]
    assert any("Write" in t for t in session["liveTurns"]), session["liveTurns"]
    assert session["followedVerdict"] == "PASS", session["followedVerdict"]


def test_failure_peek_diffs_a_failed_contains_check(session):
    """The failure peek of a failed `contains` check is an Expected / Actual diff: the text the case wants
    against what the agent said."""
    step(session, "diff-peek")
    peek = session["diffPeek"]
    assert "Goodbye" in peek["original"], peek
    assert "EXTRACTED" in peek["modified"] and "Goodbye" not in peek["modified"], peek


def test_inline_failures_read_the_checks_sentences(session):
    """Issue 45 #2: each failed check is drawn inline at its line in the sentence the hover, the run page and
    Neovim use (``files-created: the agent did not create output/report.md``), never VS Code's ``actual !=
    expected`` rendering of the diff (``✗ != output/report.md``)."""
    step(session, "diff-peek")
    inline = session["inlineFailures"]
    assert "contains: output does not contain 'Goodbye'" in inline, inline
    assert "files-created: the agent did not create output/report.md" in inline, inline
    assert not any(" != " in text for text in inline), inline
    # and nothing else is drawn in other words (the verdict notification's bare reason on the `name` line was)
    assert all(text.split(": ", 1)[0] in {"contains", "not-contains", "files-created"} for text in inline), (
        inline
    )


def test_test_explorer_filters_by_format_tag(session):
    """Test tags: `@evalens:format:skill-creator-evals` in the Test Explorer's filter keeps the skill-creator
    evals and hides the UAAPS cases."""
    step(session, "tags-filter")
    rows = session["taggedRows"]
    assert "first-line#1" in rows and "extract-text" not in rows, rows


def _reports(ws: str) -> list[dict]:
    folder = Path(ws) / "evals" / "reports"
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]


def test_run_overrides_are_sent_with_runs_and_remembered(session):
    """Per-run overrides: the model and budget set in the quick pick go with the lens's runs (the reports name
    the model) and are still set after the page reloads (workspaceState)."""
    step(session, "overrides")
    assert "model claude-e2e-override" in session["overridesTitle"], session["overridesTitle"]
    assert "budget $5" in session["overridesTitle"], session["overridesTitle"]
    assert all("PASS" in v for v in session["overrideVerdicts"]), session["overrideVerdicts"]
    models = [r["agent"].get("model") for r in _reports(session["workspace"])]
    assert models[-2:] == ["claude-e2e-override", "claude-e2e-override"], models
    assert "model claude-e2e-override" in session["overridesAfterReload"], session["overridesAfterReload"]


def test_runs_view_lists_filters_and_compares_two_runs(session):
    """The Runs view lists every run (newest first, verdict · engine · model · time), its verdict filter keeps
    only what it names, and Compare Runs on two selected runs of one case shows them side by side."""
    step(session, "overrides")
    step(session, "runs-view")
    rows = session["runsRows"]
    extract = [r for r in rows if r.startswith("extract-text")]
    overridden = [r for r in extract if "claude-e2e-override" in r]
    # the overrides step's two lens runs; earlier tests of this session may have run the case with the default model
    assert len(overridden) == 2 and extract[:2] == overridden, rows  # newest first
    assert all("PASS" in r and "claude-code" in r for r in overridden), rows
    fail_only = session["runsRowsFailOnly"]  # earlier tests of this session leave FAIL runs of other cases
    assert all("FAIL" in r for r in fail_only) and not any(r in fail_only for r in overridden), fail_only
    cmp = session["runsCompare"]
    assert cmp["title"] == "evalens · compare extract-text", cmp
    assert cmp["headers"][1].startswith("previous") and cmp["headers"][2].startswith("latest"), cmp
    assert cmp["meta"].count(".json") == 2, cmp  # two reports: previous → latest


def test_a_run_with_overrides_is_not_stale_while_they_hold(session):
    """A lens run with a model override is current as long as the override is remembered: the stale check
    fingerprints the next run's inputs with the overrides laid over the settings (it showed "· stale" because
    it knew only the settings). Cleared, the next run takes the default model, and the verdict is stale."""
    step(session, "overrides")
    assert not any("stale" in v for v in session["overrideVerdicts"]), session["overrideVerdicts"]  # just ran
    step(session, "overrides-stale")
    lens = session["overrideLens"]  # after a reload: the server hears the remembered overrides again
    assert "PASS" in lens and "stale" not in lens, lens
    assert "model" not in session["overridesCleared"], session["overridesCleared"]
    assert "PASS" in session["clearedLens"] and "stale" in session["clearedLens"], session["clearedLens"]
