"""An editor starts a whole comparison (issue 41): ``evalens.runComparison`` on the real server, the real runner
and the real ``claude`` CLI against the fake model. One cell, two arms: both batches run (the reference last),
the reference's report carries the comparison, the answer is the comparison's matrix, and its reports are named
as the CLI names them (the plan is runner/comparison.py's, for both faces)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient

from tests.server import run_fixtures
from tests.server.run_fixtures import start_run_client, stop_run_client
from tests.server.test_run_lens import needs_claude

fake_model = run_fixtures.fake_model


@pytest.fixture
def pkg(tmp_path: Path) -> Path:
    return run_fixtures.two_case_pkg(tmp_path)


@pytest_asyncio.fixture
async def client(fake_model, pkg: Path) -> AsyncIterator[LanguageClient]:
    started = await start_run_client(fake_model, pkg, "visual-studio-code")
    yield started
    await stop_run_client(started)


async def _execute(client: LanguageClient, arguments: dict, timeout: float = 300) -> object:
    return await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="evalens.runComparison", arguments=[arguments])
        ),
        timeout,
    )


@needs_claude
async def test_an_editor_runs_every_arm_and_gets_the_comparisons_matrix(
    client: LanguageClient, pkg: Path
) -> None:
    uri = from_fs_path(str(pkg / "evals" / "cases" / "10-pass.yaml"))
    answer = await _execute(
        client, {"uri": uri, "engines": "claude-code", "arms": "skill,no-skill", "noJudge": True}
    )
    data = json.loads(json.dumps(answer, default=lambda o: o.__dict__))
    assert len(data["columns"]) == 2 and all(c.startswith("claude-code · ") for c in data["columns"]), data
    names = {row["name"] for row in data["rows"]}
    assert names == {"greet", "greet-missing"}, data
    reports = [Path(p).name for p in data["reportPaths"]]
    batch = data["batch"]
    assert sorted(reports) == sorted([f"{batch}-arm-1.json", f"{batch}-arms.json"]), reports
    reference = json.loads((pkg / "evals" / "reports" / f"{batch}-arms.json").read_text())
    assert reference["arm"]["name"] == "skill", reference.get("arm")
    [compared] = reference["arms"]["comparisons"]
    assert compared["arm"]["name"] == "no-skill", compared
    verdicts = {c["name"]: c["verdict"] for c in reference["cases"]}
    assert verdicts == {"greet": "PASS", "greet-missing": "FAIL"}, verdicts


async def test_a_comparison_that_cannot_be_planned_says_why_before_any_agent(
    client: LanguageClient, pkg: Path
) -> None:
    """A model bound to an engine that is not asked for: one line, nothing run, no report."""
    uri = from_fs_path(str(pkg / "evals" / "cases" / "10-pass.yaml"))
    with pytest.raises(Exception, match="codex is not one of --engine claude-code"):
        await _execute(client, {"uri": uri, "engines": "claude-code", "models": "codex=gpt-5"})
    assert list((pkg / "evals" / "reports").iterdir()) == []


GREETER = "---\nname: greeter\ndescription: Writes greetings into output/. Key greet-key-42.\n---\nWrite a greeting.\n"
GREET_TASKS = (
    "skill: greeter\ntasks:\n"
    "  - id: ann\n"
    '    prompt: "Greet ann SCENARIO=use-skill NEEDS=greet-key-42"\n'
    "    expected_skill_load: greeter\n"
    "    deterministic: { expect_skill_activation: true, expect_marker: GREETING-OK }\n"
)


@needs_claude
async def test_an_editor_compares_the_arms_of_an_eval_file_as_it_does_a_packages(
    client: LanguageClient, pkg: Path
) -> None:
    """``evalens.runComparison`` on a skilljack tasks.yaml: the same plan as for a package (the reference arm last,
    reports named by arm), each batch the file's own suite run, the reports in the suite's reports folder (where
    a single run of the file reports), and the answer the comparison's matrix."""
    suite = pkg / "greet-suite"
    (suite / "skills" / "greeter").mkdir(parents=True)
    (suite / "skills" / "greeter" / "SKILL.md").write_text(GREETER)
    (suite / "tasks.yaml").write_text(GREET_TASKS)
    uri = from_fs_path(str(suite / "tasks.yaml"))
    answer = await _execute(
        client, {"uri": uri, "engines": "claude-code", "arms": "skill,no-skill", "noJudge": True}
    )
    data = json.loads(json.dumps(answer, default=lambda o: o.__dict__))
    assert len(data["columns"]) == 2, data
    assert {row["name"] for row in data["rows"]} == {"ann"}, data
    batch = data["batch"]
    reports = suite / "evals" / "reports"
    assert sorted(Path(p) for p in data["reportPaths"]) == sorted(
        [reports / f"{batch}-arm-1.json", reports / f"{batch}-arms.json"]
    ), data["reportPaths"]
    reference = json.loads((reports / f"{batch}-arms.json").read_text())
    assert reference["arm"]["name"] == "skill" and [c["verdict"] for c in reference["cases"]] == ["PASS"]
    [compared] = reference["arms"]["comparisons"]
    assert compared["arm"]["name"] == "no-skill" and compared["uplift"]["difference"] == 1.0, compared
    other = json.loads((reports / f"{batch}-arm-1.json").read_text())
    assert other["arm"]["name"] == "no-skill" and [c["verdict"] for c in other["cases"]] == ["FAIL"]
    assert list((pkg / "evals" / "reports").iterdir()) == []  # nothing in the package's own folder


async def test_an_editor_asks_what_a_comparison_would_start_and_nothing_runs(
    client: LanguageClient, pkg: Path
) -> None:
    """``evalens.planComparison``: the runner's count of the batches, the units each runs (the file's own, not every
    unit of its folder) and each unit's runs (the editor's setting, as the run takes it), before any agent
    starts; for a package, every case."""
    suite = pkg / "greet-suite"
    (suite / "skills" / "greeter").mkdir(parents=True)
    (suite / "skills" / "greeter" / "SKILL.md").write_text(GREETER)
    (suite / "tasks.yaml").write_text(GREET_TASKS)
    (suite / "more.tasks.yaml").write_text(GREET_TASKS.replace("ann", "bob"))  # beside it: not counted

    async def plan(arguments: dict) -> dict:
        answer = await asyncio.wait_for(
            client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="evalens.planComparison", arguments=[arguments])
            ),
            60,
        )
        return json.loads(json.dumps(answer, default=lambda o: o.__dict__))

    uri = from_fs_path(str(suite / "tasks.yaml"))
    counted = await plan({"uri": uri, "engines": "claude-code,codex", "arms": "skill,no-skill"})
    assert counted == {"batches": 4, "units": 1, "runs": 1, "agentRuns": 4}, counted
    case = from_fs_path(str(pkg / "evals" / "cases" / "10-pass.yaml"))
    assert await plan({"uri": case, "engines": "claude-code"}) == {
        "batches": 1,
        "units": 2,
        "runs": 1,
        "agentRuns": 2,
    }
    with pytest.raises(Exception, match="codex is not one of --engine claude-code"):
        await plan({"uri": uri, "engines": "claude-code", "models": "codex=gpt-5"})
    assert not (suite / "evals" / "reports").exists() or list((suite / "evals" / "reports").iterdir()) == []
    assert list((pkg / "evals" / "reports").iterdir()) == []
