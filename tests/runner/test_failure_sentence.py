"""A failed check is told in one sentence on every screen (issue 45 #2): the diagnostic on its line, the one on
the case's name, the hover, the command's answer that Test Results and VS Code's inline failure show, and
Neovim (which shows the diagnostics). ``failure_sentence`` computes it once; the editors display it."""

from __future__ import annotations

from types import SimpleNamespace

from evalens.runner.check_words import failure_sentence
from evalens.runner.results import UnitCheck, UnitResult
from evalens.server.features import run_present

MISSING = UnitCheck(
    kind="files_created",
    value="output/summary.md",
    status="FAIL",
    detail="the agent did not create output/summary.md",
    location=["expected", "files-created", 0],
)
SENTENCE = "files-created: the agent did not create output/summary.md"


def _result() -> UnitResult:
    made = UnitCheck(
        kind="files_created", value="output/a.txt", status="PASS", location=["expected", "files-created", 1]
    )
    return UnitResult(
        name="c", verdict="FAIL", reason=MISSING.detail, checks=[MISSING, made], output_snippet="done"
    )


def test_the_sentence_names_the_key_as_the_case_writes_it_and_why():
    assert failure_sentence(MISSING) == SENTENCE
    bare = UnitCheck(kind="agent_blocked", value=True, status="FAIL")
    assert (
        failure_sentence(bare) == "agent-blocked: true failed"
    )  # no detail: still a sentence, YAML's spelling


def test_every_face_says_the_same_sentence():
    result = _result()
    (answer,) = run_present.failed_checks(result, None, (), "utf-16")
    assert answer.sentence == SENTENCE and answer.wire()["sentence"] == SENTENCE
    assert answer.expected is not None  # the diff still goes over the wire, for the peek's second message
    assert run_present.diagnostic_message(result) == f"eval FAIL: {SENTENCE}"
    assert f"failed check {SENTENCE}" in run_present.summary_message(result)
    hover = run_present.hover_markdown(SimpleNamespace(result=result, report_path=None))
    assert f"- ✗ {SENTENCE}\n" in hover + "\n" and "- ✓ `files-created` `output/a.txt`" in hover


def test_a_graded_statement_keeps_its_id_in_the_hover():
    graded = UnitCheck(
        kind="expectation", value="names-team", status="FAIL", detail="scored 1/5: no team named"
    )
    result = UnitResult(name="c", verdict="FAIL", checks=[graded])
    hover = run_present.hover_markdown(SimpleNamespace(result=result, report_path=None))
    assert "- ✗ expectation: scored 1/5: no team named (`names-team`)" in hover
