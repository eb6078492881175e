"""``evalens.server.features.run_stale``: a remembered result goes stale when what it ran on changes (here a
SKILL.md edit of a copy of examples/pdf-tools), the check only reports and ``apply`` sets every change at once,
and the checker runs at most one check at a time, at most once a second, off the loop, telling the editor only
when a staleness changed. The engine version is given, so no agent CLI is asked."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from evalens.runner.depends import NextRun, fingerprint_of
from evalens.runner.results import UnitResult
from evalens.server.features import run_stale
from evalens.server.features.run_stale import StaleChecker, apply, recheck
from evalens.server.wire import NOTIFICATIONS
from tests.conftest import EXAMPLE
from tests.server.server_in_process import make_server

INPUTS = NextRun(engine_version="9.9.9")


@pytest.fixture
def package(tmp_path: Path) -> Path:
    root = tmp_path / "pdf-tools"
    shutil.copytree(EXAMPLE, root)
    return root


def _recorded(package: Path) -> UnitResult:
    """The result of a run of the package's first case, fingerprinted as that run would have it."""
    case = package / "evals" / "cases" / "01-extract-text.yaml"
    result = UnitResult(
        name="extract-text", format="uaaps-case", case_file=str(case), location=[], verdict="PASS"
    )
    found = fingerprint_of(result, INPUTS)
    assert found is not None
    result.fingerprint = found.to_json()
    return result


def _records(*results: UnitResult) -> list[Any]:
    return [SimpleNamespace(result=r) for r in results]


def test_a_current_result_is_not_stale(package: Path) -> None:
    assert recheck(_records(_recorded(package)), INPUTS) == []


def test_a_skill_edit_makes_it_stale_and_apply_sets_it(package: Path) -> None:
    result = _recorded(package)
    skill = package / "skills" / "pdf-tools" / "SKILL.md"
    skill.write_text(skill.read_text(encoding="utf-8") + "\nOne more rule.\n", encoding="utf-8")
    updates = recheck(_records(result), INPUTS)
    assert updates == [(result, ["skill pdf-tools changed"])]
    assert result.stale == []  # recheck only reports
    assert apply(updates) is True
    assert result.stale == ["skill pdf-tools changed"]
    assert recheck(_records(result), INPUTS) == []  # now as it is: nothing to change


def test_another_engine_version_makes_it_stale(package: Path) -> None:
    result = _recorded(package)
    ((_, reasons),) = recheck(_records(result), NextRun(engine_version="10.0.0"))
    assert len(reasons) == 1 and "engine" in reasons[0]


def test_a_deleted_eval_file(package: Path) -> None:
    result = _recorded(package)
    Path(result.case_file or "").unlink()
    assert recheck(_records(result), INPUTS) == [(result, ["the eval file is gone"])]


def test_a_result_without_fingerprint_is_never_stale() -> None:
    fresh = UnitResult(name="a", format="uaaps-case", verdict="PASS")
    old = UnitResult(name="b", format="uaaps-case", verdict="PASS", stale=["was stale"])
    assert recheck(_records(fresh, old)) == [(old, [])]


def test_apply_nothing() -> None:
    assert apply([]) is False


# --- the checker ---------------------------------------------------------------------------------------------


class Memory:
    def __init__(self, *results: UnitResult) -> None:
        self.results = results
        self.reads = 0

    def records(self) -> list[Any]:
        self.reads += 1
        return _records(*self.results)


def _server(monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[str]]:
    ls = make_server(None)
    sent: list[str] = []
    monkeypatch.setattr(ls.protocol, "notify", lambda method, params=None: sent.append(method))
    return ls, sent


def test_check_soon_outside_a_loop_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    ls, sent = _server(monkeypatch)
    memory = Memory()
    StaleChecker().check_soon(ls, memory)
    assert memory.reads == 0 and sent == []


def test_a_check_that_changes_something_tells_the_editor(monkeypatch: pytest.MonkeyPatch) -> None:
    ls, sent = _server(monkeypatch)
    old = UnitResult(name="b", format="uaaps-case", verdict="PASS", stale=["was stale"])
    memory = Memory(old)
    checker = StaleChecker()

    async def run() -> None:
        checker.check_soon(ls, memory)
        checker.check_soon(ls, memory)  # one is pending: no second check
        assert checker._pending is not None
        await checker._pending

    asyncio.run(run())
    assert memory.reads == 1
    assert old.stale == []
    assert sent == [NOTIFICATIONS["staleChanged"]]


def test_checks_are_at_most_once_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    ls, sent = _server(monkeypatch)
    memory = Memory(UnitResult(name="a", format="uaaps-case", verdict="PASS"))
    checker = StaleChecker()

    async def run() -> None:
        checker.check_soon(ls, memory)
        assert checker._pending is not None
        await checker._pending
        checker.check_soon(ls, memory)  # finished less than a second ago
        assert checker._pending.done()
        checker._last -= run_stale.MIN_INTERVAL  # as if a second went by
        checker.check_soon(ls, memory)
        await checker._pending

    asyncio.run(run())
    assert memory.reads == 2
    assert sent == []  # nothing changed: the editor is not asked to look again


def test_a_failing_check_leaves_the_verdicts(monkeypatch: pytest.MonkeyPatch) -> None:
    ls, sent = _server(monkeypatch)

    class Broken:
        def records(self) -> list[Any]:
            raise RuntimeError("memory gone")

    checker = StaleChecker()

    async def run() -> None:
        checker.check_soon(ls, Broken())
        assert checker._pending is not None
        await checker._pending

    asyncio.run(run())
    assert sent == []
    assert checker._last > 0
