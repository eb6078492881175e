"""Run N× says which run it is in (issue 27 #11): each agent turn carries its run number; a new run of a repeated
unit sets ``current_run`` and asks the editor to re-read lenses, so the lens reads "■ Cancel · run 2/5"."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from evalens.server.features import run_live
from evalens.server.features.run import Runs
from evalens.server.features.run_state import RunHandle


def _turn(run: int, seq: int = 0) -> SimpleNamespace:
    return SimpleNamespace(
        unit="greet",
        run=run,
        seq=seq,
        kind="text",
        text="hi",
        tool=None,
        call_id=None,
        is_error=False,
        blocked=False,
    )


def test_turns_move_the_run_counter_and_refresh_lenses_once_per_run():
    sent: list[dict] = []
    refreshes: list[None] = []
    ls = SimpleNamespace(
        protocol=SimpleNamespace(notify=lambda method, params: sent.append(params)),
        cap=lambda name, default=None: True,
        workspace_code_lens_refresh=lambda params: refreshes.append(params),
    )
    runs = SimpleNamespace(ls=ls, refresh_lenses=lambda: Runs.refresh_lenses(runs))
    handle = RunHandle(
        root=Path("/pkg"), name="greet", uri="file:///pkg/a.yaml", case_file=Path("/pkg/a.yaml"), runs=5
    )
    send = run_live.forwarder(ls, handle.uri, lambda run: Runs._run_progress(runs, handle, run))
    for turn in (_turn(1), _turn(1, 1), _turn(2), _turn(2, 1), _turn(2, 2)):
        send(turn)
    assert handle.current_run == 2 and len(refreshes) == 2 and len(sent) == 5
    single = RunHandle(root=Path("/pkg"), name="one", uri="u", case_file=Path("/pkg/b.yaml"))
    Runs._run_progress(runs, single, 1)  # one run: nothing to count
    assert single.current_run == 0 and len(refreshes) == 2


def test_a_file_run_reports_a_stage_never_the_suites_lines(caplog):
    """VS Code shows the run's progress in its status bar: a trigger set's run had it read
    ``Eval *: agent: 0: WRONG should trigger…`` (issue 45 #4). The suite's lines go to the log; the progress
    says how many runs finished, and a whole-file run is named by its file."""
    from evalens.runner.api import as_progress_events
    from evalens.runner.run_file import FileProgress
    from evalens.server.features import run_present
    from evalens.server.features.run_formats import stage_progress

    said: list[str] = []
    progress = as_progress_events(stage_progress(lambda _stage, text: said.append(text)), Path("t.json"))
    with caplog.at_level("INFO", logger="evalens.server.run"):
        progress(FileProgress(unit="", message="warning: --max-cost: no price for model x"))
        progress(FileProgress(unit="0", message="WRONG should trigger: extract the text", outcome=True))
        progress(FileProgress(unit="1", message="ok should not trigger: hello", outcome=True))
    assert said == ["1 run finished", "2 runs finished"]
    assert not any("WRONG" in s or "warning" in s for s in said)
    assert "0: WRONG should trigger: extract the text" in caplog.text  # kept, in the server's log
    whole = SimpleNamespace(name="*", case_file=Path("/pkg/evals/triggers.json"), case=None, validation=None)
    assert run_present.unit_label(whole) == "all of triggers.json"


def test_a_package_run_reports_its_stages_and_counts_finished_runs(caplog):
    """A package's case and a file's units reach the status bar through one reader (``stage_progress``): the
    package batch's stages as it names them, a finished run counted, never an event without a unit."""
    from evalens.runner.api_types import ProgressEvent
    from evalens.server.features.run_formats import stage_progress

    said: list[tuple[str, str]] = []
    progress = stage_progress(lambda stage, text: said.append((stage, text)))
    with caplog.at_level("INFO", logger="evalens.server.run"):
        progress(ProgressEvent(case_name=None, stage="plan", message="warning: no price for model x"))
        progress(ProgressEvent(case_name="greets", stage="sandbox", message="creating the sandbox"))
        progress(ProgressEvent(case_name="greets", stage="judge", message="judging with m"))
        progress(ProgressEvent(case_name="greets", stage="done", message="PASS", verdict="PASS"))
        progress(ProgressEvent(case_name="greets", stage="report", message="report written"))
    assert said == [
        ("sandbox", "creating the sandbox"),
        ("judge", "judging with m"),
        ("agent", "1 run finished"),
    ]
    assert "warning: no price for model x" in caplog.text
