"""The runner never judges a skeleton's placeholder (issue 45 #5: a batch judged `The output <names a concrete,
checkable fact>.` and printed PASS). A UAAPS case is ERROR before any agent starts; a file unit (skill-creator,
skilljack) is ERROR with the reason, no agent and no budget spent, and the run log's reader agrees."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from evalens.core.models.uaaps import EvalCase
from evalens.core.placeholders import CRITERIA_FIX, EVAL_ASSERTION
from evalens.runner import run_file
from evalens.runner.suites import suite_for
from evalens.runner.suites import uaaps as uaaps_suite
from evalens.runner.suites.base import FileRunRequest
from evalens.runner.unit_identity import identity


def _case(criteria: str) -> EvalCase:
    return EvalCase.model_validate(
        {"name": "x", "target": "skill:pdf", "input": {"prompt": "hi"}, "judge": {"criteria": criteria}}
    )


def test_a_uaaps_case_with_placeholder_criteria_is_an_error_before_any_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_agent(*args, **kwargs):
        raise AssertionError("an agent was started for a placeholder")

    monkeypatch.setattr(uaaps_suite, "agent_run", no_agent)
    record = uaaps_suite._RunRecord()
    ctx = SimpleNamespace(
        records={("x", 1): record},
        request=SimpleNamespace(package_root=tmp_path, package_path=tmp_path),
        judge_spec=object(),
        emit=lambda *a, **k: None,
    )
    rec = asyncio.run(uaaps_suite._run_case(ctx, _case(CRITERIA_FIX), tmp_path / "x.yaml", 1, 60.0, []))
    assert rec.verdict == "ERROR" and rec.judge is None
    assert rec.reason.startswith("not judged: judge.criteria is still the skeleton's placeholder")
    assert rec.error == rec.reason  # worded for the user, no exception class name
    uaaps_suite.refuse_placeholder(_case("The report names its three totals."), judged=True)  # the user's own
    uaaps_suite.refuse_placeholder(_case(CRITERIA_FIX), judged=False)  # --no-judge: nothing reads it


def _evals(tmp_path: Path, assertion: str) -> Path:
    path = tmp_path / "sk" / "evals" / "evals.json"
    path.parent.mkdir(parents=True)
    evals = [
        {"id": 1, "prompt": "make the report", "assertions": [assertion]},
        {"id": 2, "prompt": "say hi", "assertions": ["The reply says hi"]},
    ]
    path.write_text(json.dumps({"skill_name": "sk", "evals": evals}))
    return path


class _NoBudget:
    def admit(self, unit: str) -> None:
        raise AssertionError("a refused unit must not reach the budget")


def test_a_file_unit_with_a_placeholder_is_refused_without_agent_or_budget(tmp_path: Path) -> None:
    file = _evals(tmp_path, EVAL_ASSERTION)
    request = FileRunRequest(file=file, runs=2)
    suite_cls = suite_for("skill-creator-evals")
    assert suite_cls is not None
    suite = suite_cls(request, "skill-creator-evals")
    first, second = suite.units()
    assert suite.placeholder_refusal(second) is None
    why = suite.placeholder_refusal(first)
    assert why is not None and why.startswith("not judged: assertions.0 is still the skeleton's placeholder")

    heard: list[tuple[str, int, str]] = []

    class Hooks:
        async def started(self, unit, run):
            heard.append(("started", run, ""))

        async def finished(self, unit, run, done, records):
            heard.append(("finished", run, done.verdict))

    batch = SimpleNamespace(hooks=lambda side: Hooks())
    result, base = asyncio.run(
        run_file._run_unit(request, suite, first, SimpleNamespace(), None, _NoBudget(), batch, None, [])
    )
    assert base is None and result.verdict == "ERROR" and result.reason == why
    assert result.run_verdicts == ["ERROR", "ERROR"]
    assert heard == [
        ("started", 1, ""),
        ("finished", 1, "ERROR"),
        ("started", 2, ""),
        ("finished", 2, "ERROR"),
    ]
    # the run log's reader decides the logged unit the same way, not by the suite's combine of the ERROR runs
    root = tmp_path / "sk"
    today = [(identity(suite.file, u.id, root, u.location, suite.format_id), u) for u in (first, second)]
    rule = run_file.LoggedRule(suite, today, None)
    ruled = rule.result(today[0][0], [object(), object()])
    assert ruled is not None and ruled.model_dump() == result.model_dump()


def test_the_dry_run_names_a_case_it_will_refuse(tmp_path: Path) -> None:
    """`evalens run --dry-run` (and the editor's Dry run) says the case will be ERROR before the run finds it."""
    import shutil

    from evalens.runner.api_types import RunRequest
    from tests.conftest import REPO

    pkg = tmp_path / "pdf-tools"
    shutil.copytree(REPO / "examples" / "pdf-tools", pkg, ignore=shutil.ignore_patterns("reports"))
    (pkg / "evals" / "cases" / "09-ph.yaml").write_text(
        f"name: ph\ntarget: skill:pdf-tools\ninput:\n  prompt: hi\njudge:\n  criteria: >\n    {CRITERIA_FIX}\n"
    )
    plan = uaaps_suite.plan_run(RunRequest(package_root=pkg, dry_run=True)).plan
    (said,) = [w for w in plan.warnings if w.startswith("ph: ")]
    assert "not judged: judge.criteria is still the skeleton's placeholder" in said and "ERROR" in said
    assert not any(w.startswith("extract-text: ") for w in plan.warnings)
    quiet = uaaps_suite.plan_run(RunRequest(package_root=pkg, dry_run=True, no_judge=True)).plan
    assert not any(w.startswith("ph: ") for w in quiet.warnings)  # --no-judge: nothing reads the criteria
