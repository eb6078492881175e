"""Issue 45 #5 on the real `claude` against the fake model: a batch once judged a judge skeleton's placeholder
(`The output <names a concrete, checkable fact>.`) and printed PASS. The fake judge says PASS to whatever it is
asked (`JUDGE=pass`), so only the runner's refusal stands between the placeholder and a PASS: the case is ERROR
with the reason and no agent starts for it, while its neighbour runs and passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalens.core.placeholders import CRITERIA_FIX
from evalens.runner.api import RunRequest, run_cases
from tests.runner.runner_helpers import agents_available, case, make_package

pytestmark = pytest.mark.agents


async def test_a_placeholder_criteria_is_never_judged(tmp_path: Path, model_env, sandbox_dir: Path) -> None:
    if not agents_available("claude-code"):
        pytest.skip("claude-code CLI not installed")
    placeholder = case("pass", contains=["GREETING-OK"])
    placeholder["judge"]["criteria"] = f"{CRITERIA_FIX} JUDGE=pass"  # the fake judge would say PASS
    pkg = make_package(
        tmp_path / "pkg",
        cases={"placeholder": placeholder, "written": case("pass", contains=["GREETING-OK"])},
        judge="claude-judge-test",
    )
    outcome = await run_cases(RunRequest(package_root=pkg, jobs=2))
    by_name = {r.name: r for r in outcome.results}
    refused = by_name["placeholder"]
    assert refused.verdict == "ERROR", refused
    assert refused.reason.startswith("not judged: judge.criteria is still the skeleton's placeholder"), (
        refused
    )
    assert refused.judge_verdict is None and not refused.agent_seconds  # neither the judge nor an agent ran
    assert by_name["written"].verdict == "PASS", by_name["written"]
    assert list(sandbox_dir.iterdir()) == []
