"""A UAAPS case's file work runs in worker threads, never on the event loop (the language server runs cases on
its own loop, which must keep answering): the checks that read the workspace, the artifact copies, the
transcript, the run record and the report (written and fsynced), as the session's steps do (``session.agent_run``). A scripted stand-in for
`claude` (EVALENS_CLAUDE_BIN) runs the case; the real functions run, each call noting its thread."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evalens.runner.api import RunRequest, run_cases
from evalens.runner.suites import uaaps
from tests.runner.runner_helpers import case, make_package

FILE_WORK = ("run_checks", "_keep_artifacts", "_write_transcript", "_finish_record", "write_report")


def _noting(threads: dict[str, list[int]], name: str, real: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        threads.setdefault(name, []).append(threading.get_ident())
        return real(*args, **kwargs)

    return call


async def test_checks_and_artifact_copies_run_off_the_loop(
    tmp_path: Path, scripted_claude: Path, sandbox_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: dict[str, list[int]] = {}
    for name in FILE_WORK:
        monkeypatch.setattr(uaaps, name, _noting(threads, name, getattr(uaaps, name)))
    pkg = make_package(
        tmp_path / "pkg",
        cases={"made": case("pass", contains=["GREETING-OK"], files_created=["output/result.txt"])},
    )
    loop_thread = threading.get_ident()
    outcome = await run_cases(RunRequest(package_root=pkg, no_judge=True))
    result = outcome.results[0]
    assert result.verdict == "PASS", result
    assert sorted(threads) == sorted(FILE_WORK), threads  # each ran (the case kept its artifacts)
    on_loop = [name for name, idents in threads.items() if loop_thread in idents]
    assert on_loop == [], f"ran on the event loop: {on_loop}"
    # what they did in their threads is what the report reads
    assert [c.status for c in result.checks] == ["PASS", "PASS"]
    folder = Path(result.artifacts or "")
    assert (folder / "files" / "output" / "result.txt").read_text() == "hello\n"
    assert json.loads((folder / "transcript.json").read_text())["files_created"] == ["output/result.txt"]
    assert json.loads((folder / "record.json").read_text())["verdict"] == "PASS"
    assert list(sandbox_dir.iterdir()) == []
