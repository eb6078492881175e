"""The matrix of an ``--engine a,b`` run in the editor (issue #25): a case's hover shows its row of the package's
newest matrix run (one column per cell: k/N, the Wilson interval, the cost), ``evalens.discoverCases`` gives the
Test Explorer the same cells, and ``evalens.matrix`` answers the whole table. Reports are written from the
report models as the CLI's matrix run writes them (``<batch>-cell-N.json``)."""

from __future__ import annotations

import os
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient

from evalens.core.models.uaaps import ReportAgent, Usage
from evalens.runner.matrix import cell_report_name
from tests.lsp.conftest import open_and_diagnose
from tests.unit.ci_helpers import make_case, make_report, write

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
    assert "| claude-code · claude-sonnet-4-5 | codex · gpt-5 |" in text, text
    assert "| FLAKY 2/3 [21%–94%] $0.0123 | PASS 3/3 [44%–100%] |" in text, text
    assert "old-model" not in text

    wave_uri = from_fs_path(str(pkg / "evals" / "cases" / "wave.yaml"))
    await open_and_diagnose(client, wave_uri, CASE.replace("name: greet", "name: wave"))
    assert "| PASS 1/1 [21%–100%] | — |" in await _hover(client, wave_uri)  # codex did not run it

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
