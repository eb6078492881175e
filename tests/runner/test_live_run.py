"""The live page of a running unit, read from its batch's run log (``runner/live_run.py``), and
``evalens.runView``'s choice between it and the finished run page (``server/features/run_view.py``)."""

from __future__ import annotations

from pathlib import Path

from evalens.core.models.run_log import BatchFinish, BatchStart, LogUnit, PlannedUnit, RunFinish, RunStart
from evalens.core.models.uaaps import ReportCheck
from evalens.runner.live_run import live_run, render_live_html, render_live_markdown
from evalens.runner.run_log import RunLogWriter
from evalens.server.features.run_view import render
from evalens.server.wire import RunViewArgs

T = "2026-02-22T14:30:00Z"


def _batch(suite: Path, runs_done: int, running: bool) -> tuple[Path, RunLogWriter]:
    """A skilljack batch of one task run twice, as its log says after ``runs_done`` runs (``running``: the next
    one started)."""
    (suite / "tasks.yaml").write_text("skill: greeting\ntasks:\n  - id: greet\n    prompt: hi\n")
    folder = suite / "evals" / "reports" / "2026-02-22T14-30-00Z"
    unit = LogUnit(file="tasks.yaml", name="greet", location=["tasks", 0], format="skilljack-tasks")
    writer = RunLogWriter(folder / "run-log.jsonl")
    writer.write(
        BatchStart(
            event="batch-start",
            version=1,
            time=T,
            batch="eval-run-x",
            package_root=str(suite),
            report=str(folder.with_suffix(".json")),
            inputs={},
            fingerprint="f",
            units=[PlannedUnit(unit=unit, fingerprint={})],
            runs=2,
        )
    )
    for run in range(1, runs_done + 1):
        writer.write(RunStart(event="run-start", time=T, unit=unit, run=run))
        check = ReportCheck(kind="skill_activation", value=False, status="PASS", detail="no skill <loaded>")
        writer.write(
            RunFinish(
                event="run-finish", time=T, unit=unit, run=run, verdict="PASS", reason="ok", checks=[check]
            )
        )
    if running:
        writer.write(RunStart(event="run-start", time=T, unit=unit, run=runs_done + 1))
    return folder, writer


def test_a_running_unit_reads_as_its_log_says(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    folder, writer = _batch(suite, 1, running=True)
    live = live_run(suite / "tasks.yaml", "greet")
    assert live is not None and live.runs == 2 and list(live.finished) == [1] and live.running == [2]
    assert live.report == folder.with_suffix(".json") and live.state == "run 2 of 2 running · 1 of 2 finished"
    page = render_live_html(live)
    assert '<td>1</td><td class="v-PASS">PASS</td>' in page and "no skill &lt;loaded&gt;" in page
    assert '<td>2</td><td class="v-running">RUNNING</td>' in page
    assert render_live_markdown(live).splitlines()[:5] == [
        "## RUNNING greet",
        "",
        "run 2 of 2 running · 1 of 2 finished",
        "",
        "- run 1: PASS — ok",
    ]
    assert live_run(suite / "tasks.yaml", "other") is None

    arg = {"uri": (suite / "tasks.yaml").as_uri(), "name": "greet"}
    answer = render(RunViewArgs.model_validate(arg), running=True)
    assert answer is not None and answer.live is True and answer.title == "evalens: greet (running)"
    markdown = render(RunViewArgs.model_validate({**arg, "format": "markdown"}), running=True)
    assert markdown is not None and markdown.text.startswith("## RUNNING greet")
    assert (
        render(RunViewArgs.model_validate(arg), running=False) is None
    )  # not running here (a killed batch's log): no live page

    writer.write(BatchFinish(event="batch-finish", time=T, interrupted=True))
    writer.close()
    assert live_run(suite / "tasks.yaml", "greet") is None  # the batch ended


def test_the_state_line_names_every_run_in_progress(tmp_path: Path) -> None:
    """A UAAPS case's repeats run side by side: both are named; once every run finished the page says the
    report is still to come, not that a next run is awaited."""
    suite = tmp_path / "suite"
    suite.mkdir()
    _batch(suite, 2, running=False)
    live = live_run(suite / "tasks.yaml", "greet")
    assert (
        live is not None
        and live.state == "every run finished, the batch's report still to come · 2 of 2 finished"
    )
    live.finished.clear()
    live.running = [1, 2]
    assert live.state == "runs 1, 2 of 2 running · 0 of 2 finished"
    live.running = []
    assert live.state == "waiting for its next run · 0 of 2 finished"
