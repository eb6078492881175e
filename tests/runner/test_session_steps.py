"""The steps of one agent run (``session.agent_run``), which the file suites' session and the UAAPS case run
share: a sandbox whose setup fails is still kept or removed by the one release path, and the failure is the
caller's to word. No agent is started (the setup fails before launch)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from evalens.runner.engines import get_engine
from evalens.runner.sandbox import plan_sandbox
from evalens.runner.session import AgentLaunch, agent_run


def _launch(keep: bool) -> AgentLaunch:
    return AgentLaunch(
        engine=get_engine("claude-code"), plan=plan_sandbox(False, None), env={}, model=None, keep=keep
    )


def _fill(paths: object) -> None:
    raise FileNotFoundError("fixture `missing.txt` not found")


async def _setup_fails(keep: bool) -> tuple[list[str], list[str]]:
    stages: list[str] = []
    kept: list[str] = []
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        async with agent_run(
            _launch(keep),
            "prompt",
            _fill,
            unit="u",
            run_index=1,
            time_limit=5.0,
            emit=lambda stage, _message: stages.append(stage),
            on_kept=kept.append,
        ):
            raise AssertionError("the body runs only when the agent ran")
    return stages, kept


def test_a_failed_setup_removes_its_sandbox(sandbox_dir: Path) -> None:
    stages, kept = asyncio.run(_setup_fails(keep=False))
    assert stages == ["sandbox", "cleanup"] and kept == []
    assert list(sandbox_dir.iterdir()) == []


def test_a_failed_setup_keeps_its_sandbox_when_asked(sandbox_dir: Path) -> None:
    stages, kept = asyncio.run(_setup_fails(keep=True))
    assert stages == ["sandbox"]
    assert len(kept) == 1 and Path(kept[0]).parent == sandbox_dir and (Path(kept[0]) / ".kept").exists()
