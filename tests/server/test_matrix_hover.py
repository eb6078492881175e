"""The matrix of an ``--engine a,b`` run in the editor (issue #25): a case's hover shows its row of the package's
newest matrix run (one column per cell: k/N, the Wilson interval, the cost), ``evalens.discoverCases`` gives the
Test Explorer the same cells, and ``evalens.matrix`` answers the whole table. Reports are written from the
report models as the CLI's matrix run writes them (``<batch>-cell-N.json``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient

from evalens.core.models.uaaps import ReportAgent, Usage
from evalens.runner.matrix import cell_report_name
from tests.ci_helpers import make_case, make_report, write
from tests.server.conftest import open_and_diagnose

CASE = """\
name: greet
description: The agent writes a greeting
target: skill:greeter
input:
  prompt: "Write a greeting."
expected:
  contains:
    - "GREETING-OK"
"""
SKILL = "---\nname: greeter\ndescription: Writes greetings. Use when asked to greet.\n---\nGreet.\n"


def _cell(engine: str, model: str, cases: list) -> object:
    report = make_report(cases, agent=ReportAgent(model=model))
    return report.model_copy(update={"config": report.config.model_copy(update={"engine": engine})})


def _package(tmp_path: Path) -> Path:
    """greet and wave; an old matrix run, the newest one (two cells), then a newer single run (not a matrix)."""
    pkg = tmp_path / "pkg"
    (pkg / "skills" / "greeter").mkdir(parents=True)
    (pkg / "skills" / "greeter" / "SKILL.md").write_text(SKILL)
    (pkg / "evals" / "cases").mkdir(parents=True)
    (pkg / "evals" / "cases" / "greet.yaml").write_text(CASE)
    (pkg / "evals" / "cases" / "wave.yaml").write_text(CASE.replace("name: greet", "name: wave"))
    reports = pkg / "evals" / "reports"
    greet, wave = "evals/cases/greet.yaml", "evals/cases/wave.yaml"
    old = "2026-01-01T00-00-00Z"
    for i, engine in enumerate(("claude-code", "codex"), 1):
        write(
            _cell(engine, "old-model", [make_case("greet", "FAIL", file=greet)]),
            reports / cell_report_name(old, i),
        )
    new = "2026-01-02T00-00-00Z"
    claude = _cell(
        "claude-code",
        "claude-sonnet-4-5",
        [
            make_case(
                "greet",
                "FAIL",
                file=greet,
                run_verdicts=["PASS", "FAIL", "PASS"],
                runs=3,
                usage=Usage(cost_usd=0.0123),
            ),
            make_case("wave", "PASS", file=wave),
        ],
    )
    codex = _cell(
        "codex", "gpt-5", [make_case("greet", "PASS", file=greet, run_verdicts=["PASS"] * 3, runs=3)]
    )
    paths = [
        write(claude, reports / cell_report_name(new, 1)),
        write(codex, reports / cell_report_name(new, 2)),
    ]
    single = write(
        _cell("codex", "gpt-5", [make_case("greet", "PASS", file=greet)]), reports / "2026-01-03.json"
    )
    for i, p in enumerate([*sorted(reports.glob(f"{old}*")), *paths, single]):  # written in this order
        os.utime(p, ns=(1_700_000_000_000_000_000 + i * 10**9,) * 2)
    return pkg


async def _hover(client: LanguageClient, uri: str) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=2)
        )
    )
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    return hover.contents.value


async def test_case_hover_discovery_and_command_show_the_matrix(
    client: LanguageClient, tmp_path: Path
) -> None:
    pkg = _package(tmp_path)
    greet = pkg / "evals" / "cases" / "greet.yaml"
    uri = from_fs_path(str(greet))
    await open_and_diagnose(client, uri, CASE)
    text = await _hover(client, uri)
    # by hand: Wilson of 2/3 is 20.8%–93.9%, of 3/3 43.9%–100%; the newest matrix run, not the old one
    assert "**Matrix** (2 cells, run 2026-01-02T00-00-00Z)" in text, text
    assert "| cell | this case |" in text, text  # one line per cell: never cut off, however many
    assert "| claude-code · claude-sonnet-4-5 | FLAKY 2/3 [21%–94%] $0.0123 |" in text, text
    assert "| codex · gpt-5 | PASS 3/3 [44%–100%] |" in text, text
    assert "old-model" not in text

    wave_uri = from_fs_path(str(pkg / "evals" / "cases" / "wave.yaml"))
    await open_and_diagnose(client, wave_uri, CASE.replace("name: greet", "name: wave"))
    assert "| codex · gpt-5 | — |" in await _hover(client, wave_uri)  # codex did not run it

    found = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="evalens.discoverCases", arguments=[{"uri": uri}])
    )
    cells = {c["name"]: c.get("matrix") for c in found}
    assert cells["greet"] == [
        {
            "column": "claude-code · claude-sonnet-4-5",
            "engine": "claude-code",
            "model": "claude-sonnet-4-5",
            "state": "FLAKY",
            "passed": 2,
            "counted": 3,
            "runs": 3,
            "interval": [0.2077, 0.9385],
            "costUsd": 0.0123,
            "text": "FLAKY 2/3 [21%–94%] $0.0123",
        },
        {
            "column": "codex · gpt-5",
            "engine": "codex",
            "model": "gpt-5",
            "state": "PASS",
            "passed": 3,
            "counted": 3,
            "runs": 3,
            "interval": [0.4385, 1.0],
            "costUsd": None,
            "text": "PASS 3/3 [44%–100%]",
        },
    ]
    found = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="evalens.discoverCases", arguments=[{"uri": wave_uri}])
    )
    (wave,) = [c["matrix"] for c in found if c["name"] == "wave"]
    assert wave[1] == {"column": "codex · gpt-5", "engine": "codex", "model": "gpt-5", "text": "—"}

    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="evalens.matrix", arguments=[{"uri": uri}])
    )
    assert answer["batch"] == "2026-01-02T00-00-00Z" and answer["unread"] == []
    assert answer["columns"] == ["claude-code · claude-sonnet-4-5", "codex · gpt-5"]
    assert [r["name"] for r in answer["rows"]] == ["greet", "wave"]
    assert [Path(p).name for p in answer["reportPaths"]] == [
        "2026-01-02T00-00-00Z-cell-1.json",
        "2026-01-02T00-00-00Z-cell-2.json",
    ]
    lines = answer["table"].splitlines()
    assert lines[0].split() == ["unit", "claude-code", "·", "claude-sonnet-4-5", "codex", "·", "gpt-5"]
    assert "FLAKY 2/3 [21%–94%] $0.0123" in lines[2] and lines[3].rstrip().endswith("—")
    one = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="evalens.matrix", arguments=[{"uri": uri, "name": "wave"}])
    )
    assert [r["name"] for r in one["rows"]] == ["wave"]
    # the skill's own file finds its package too; a package with no matrix run answers nothing
    skill_uri = from_fs_path(str(pkg / "skills" / "greeter" / "SKILL.md"))
    assert (
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="evalens.matrix", arguments=[{"uri": skill_uri}])
        )
    )["batch"] == "2026-01-02T00-00-00Z"
    for p in (pkg / "evals" / "reports").glob("*-cell-*.json"):
        p.unlink()
    assert (
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="evalens.matrix", arguments=[{"uri": uri}])
        )
        is None
    )
    assert "Matrix" not in await _hover(client, uri)  # the folder changed: read again


async def test_an_engines_by_arms_run_has_a_column_per_engine_and_arm_and_the_uplift(
    client: LanguageClient, tmp_path: Path
) -> None:
    """``--engine a,b --arms skill,no-skill``: the hover, the cell items and ``evalens.matrix`` name each cell's
    arm, and give each engine's uplift of the reference arm (runner/matrix.py words it, as the CLI does)."""
    from tests.runner.test_matrix import _arm_cells

    pkg = _package(tmp_path)
    reports = pkg / "evals" / "reports"
    for p in reports.glob("*.json"):
        p.unlink()
    cells = [*_arm_cells("claude-code", "sonnet"), *_arm_cells("codex", "gpt-5")]
    for i, report in enumerate(cells, 1):
        for case in report.cases:
            case.case_file = f"evals/cases/{case.name}.yaml"
        write(report, reports / cell_report_name("2026-01-04T00-00-00Z", i))
    uri = from_fs_path(str(pkg / "evals" / "cases" / "greet.yaml"))
    await open_and_diagnose(client, uri, CASE)
    text = await _hover(client, uri)
    assert "**Matrix** (4 cells, run 2026-01-04T00-00-00Z)" in text, text
    assert "| claude-code · sonnet · skill | PASS 1/1 [21%–100%] |" in text, text
    assert "| codex · gpt-5 · no skill | FAIL 0/1 [0%–79%] |" in text, text
    # by hand (tests/runner/test_matrix.py): 1/1 against 0/1, Newcombe's interval −12 to +100
    assert "| Δ vs no skill · codex · gpt-5 | ▲ +100 pts [\u221212, +100] |" in text, text
    found = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="evalens.discoverCases", arguments=[{"uri": uri}])
    )
    (row,) = [c["matrix"] for c in found if c["name"] == "greet"]
    assert [(c["engine"], c["model"], c["arm"], c["state"]) for c in row] == [
        ("claude-code", "sonnet", "skill", "PASS"),
        ("claude-code", "sonnet", "no-skill", "FAIL"),
        ("codex", "gpt-5", "skill", "PASS"),
        ("codex", "gpt-5", "no-skill", "FAIL"),
    ]
    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="evalens.matrix", arguments=[{"uri": uri, "name": "greet"}])
    )
    (greet,) = answer["rows"]
    assert greet["uplift"]["Δ vs no skill · claude-code · sonnet"] == "▲ +100 pts [\u221212, +100]"
    assert [line.split(":")[0] for line in answer["pooled"]] == ["claude-code · sonnet", "codex · gpt-5"]
    assert answer["table"].splitlines()[-1] == answer["pooled"][-1]
    # a cell item runs its case as its arm, which must be an arm's name
    from pygls.exceptions import JsonRpcException

    with pytest.raises(JsonRpcException) as refused:
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="evalens.runCase", arguments=[{"uri": uri, "name": "greet", "arm": 3}]
            )
        )
    assert "evalens.runCase: `arm`" in str(refused.value), refused.value  # read as wire.CaseCommandArgs
    # every run command reads its argument as that one model: a wrong field is named, and nothing runs
    for command, wrong, named in (
        ("evalens.runCase", {"runs": 0}, "`runs`"),
        ("evalens.runCase", {"runs": "3"}, "`runs`"),
        ("evalens.runCase", {"engine": "   "}, "`engine`"),
        ("evalens.runCase", {"maxCost": -1}, "`maxCost`"),
        ("evalens.runCase", {"maxCost": True}, "`maxCost`"),
        ("evalens.runCase", {"batch": "b" * 201}, "`batch`"),
        ("evalens.runCase", {"reruns": 2}, "`reruns`"),
        ("evalens.runFile", {"select": "broken"}, "`select`"),
        ("evalens.cancelRun", {"name": 7}, "`name`"),
        ("evalens.runView", {"format": "pdf"}, "`format`"),  # wire.RunViewArgs
    ):
        with pytest.raises(JsonRpcException) as invalid:
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(
                    command=command, arguments=[{"uri": uri, "name": "greet", **wrong}]
                )
            )
        assert named in str(invalid.value), (command, wrong, invalid.value)
    assert len(list(reports.glob("*.json"))) == len(cells)  # no batch started: only the matrix's cell reports
