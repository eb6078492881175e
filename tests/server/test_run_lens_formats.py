"""Run lenses for the formats ``evalens run FILE`` handles: a skilljack task, a skill-creator and a writing-skills
``evals.json`` case, each run from its lens with the real server, the real `claude` CLI and the fake model; plus
verdicts restored from result files on disk and a cancelled run that leaves no agent behind.

One server (VS Code profile) serves the whole module to keep the suite short.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import textwrap
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.uris import from_fs_path as open_uri
from pytest_lsp import LanguageClient

from evalens.runner.engines.base import EngineNotFound, find_binary
from evalens.server.features import run_formats
from tests.conftest import CORPUS
from tests.fakemodel.server import FakeModelServer
from tests.server.run_fixtures import (
    lens_titles,
    lenses,
    open_doc,
    processes_with,
    run_lens,
    start_run_client,
    stop_run_client,
    wait_until,
)

try:
    find_binary("claude", "EVALENS_CLAUDE_BIN")
    HAVE_CLAUDE = True
except EngineNotFound:
    HAVE_CLAUDE = False

pytestmark = [
    pytest.mark.skipif(not HAVE_CLAUDE, reason="claude CLI not installed (run .ci/install-agents.sh)"),
    pytest.mark.agents,  # the lens runs drive the real `claude` CLI
    pytest.mark.asyncio(loop_scope="module"),
]

SKILLJACK_RESULTS = (
    "olaservo__skilljack-evals__rev-821fbaa__evals__example-greeting__baselines__vercel-ai-gpt-5.2.json"
)
SKILL_MD = "---\nname: greeting\ndescription: Greets the user. Use when someone says hello.\n---\nSay hi.\n"
SCENARIOS = {
    "greet": [
        {"tool": "Skill", "input": {"skill": "greeting"}},
        {"text": "Hello and welcome! GREETING_SUCCESS"},
    ],
    # the agent's reply and the grader's: statement 1 holds (score 4)
    "plain": [{"text": "Use 'Dear name' in formal emails."}],
    "graded": [
        {
            "text": '{"results": [{"index": 1, "passed": true, "score": 4, "evidence": "said hello", '
            '"reasoning": "said hello"}]}'
        }
    ],
    # statement 1 holds (score 4), statement 2 fails (score 1): a graded FAIL, not an ungraded one
    "graded-2": [
        {
            "text": '{"results": [{"index": 1, "passed": true, "score": 4, "reasoning": "said hello"}, '
            '{"index": 2, "passed": false, "score": 1, "reasoning": "no team named"}]}'
        }
    ],
}


def _workspace(root: Path, marker: str) -> dict[str, Path]:
    suite = root / "greet-suite"
    (suite / "skills" / "greeting").mkdir(parents=True)
    (suite / "skills" / "greeting" / "SKILL.md").write_text(SKILL_MD)
    (suite / "tasks.yaml").write_text(
        textwrap.dedent(f"""\
        skill: greeting
        tasks:
          - id: gr-001
            prompt: "I just joined the team! SCENARIO=greet"
            expected_skill_load: greeting
            deterministic: {{ expect_marker: GREETING_SUCCESS, expect_tool_calls: [Skill] }}
          - id: gr-slow
            prompt: "Run the long job. SCENARIO=slow MARKER={marker}"
            expected_skill_load: greeting
            deterministic: {{ expect_marker: DONE }}
        """)
    )
    creator = root / "greeting"
    (creator / "evals").mkdir(parents=True)
    (creator / "SKILL.md").write_text(SKILL_MD)
    (creator / "evals" / "evals.json").write_text(
        json.dumps(
            {
                "skill_name": "greeting",
                "evals": [
                    {
                        "id": 1,
                        "prompt": "Say hello to the new team member SCENARIO=graded",
                        "expected_output": "a greeting",
                        "assertions": ["The reply greets the user with the word hello"],
                    },
                    {
                        "id": 2,
                        "prompt": "Say goodbye SCENARIO=graded",
                        "expected_output": "a farewell",
                        "assertions": ["The reply says goodbye"],
                    },
                ],
            },
            indent=2,
        )
        + "\n"
    )
    writing = root / "hello"
    (writing / "evals").mkdir(parents=True)
    (writing / "SKILL.md").write_text(SKILL_MD.replace("name: greeting", "name: hello"))
    (writing / "evals" / "evals.json").write_text(
        json.dumps(
            {
                "version": "1.0",
                "skill": str(writing),
                "cases": [
                    {
                        "id": "says-hello",
                        "prompt": "Greet me SCENARIO=graded-2",
                        "expectations": [
                            {
                                "criterion": "uses-hello",
                                "description": "Uses the word hello in the first sentence",
                                "required": True,
                            },
                            {
                                "criterion": "names-team",
                                "description": "Names the team the user joined",
                                "required": True,
                            },
                        ],
                    }
                ],
            },
            indent=2,
        )
        + "\n"
    )
    (creator / "evals" / "trigger-eval.json").write_text(
        json.dumps(
            [
                {"query": "hello there SCENARIO=greet", "should_trigger": True},
                {"query": "email etiquette SCENARIO=plain", "should_trigger": False},
            ],
            indent=2,
        )
        + "\n"
    )
    task_md = suite / "gr-002" / "task.md"  # a task.md package without `id`: named after its folder
    task_md.parent.mkdir()
    task_md.write_text(
        "---\nexpected_skill: greeting\nchecks:\n  marker: GREETING_SUCCESS\n---\n\nHi, I'm new here. SCENARIO=greet\n"
    )
    real = CORPUS / "skilljack-results-json" / SKILLJACK_RESULTS
    if (
        real.is_file()
    ):  # results skilljack itself wrote, in its output folder next to a suite with its task ids
        (root / "example-greeting" / "results").mkdir(parents=True)
        (root / "example-greeting" / "tasks.yaml").write_text(
            textwrap.dedent("""\
            skill: greeting
            tasks:
              - id: gr-001
                prompt: "Hello!"
                expected_skill_load: greeting
              - id: gr-fp-001
                prompt: "What are good email greetings?"
                expected_skill_load: none
            """)
        )
        shutil.copy(real, root / "example-greeting" / "results" / "greeting-2025.json")
    return {
        "tasks": suite / "tasks.yaml",
        "creator": creator / "evals" / "evals.json",
        "writing": writing / "evals" / "evals.json",
    }


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeModelServer]:
    with FakeModelServer(idle_timeout=900, scenarios=SCENARIOS) as server:
        yield server


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("fmt-ws")
    marker = f"m{uuid.uuid4().hex[:12]}"
    _workspace(root, marker)
    (root / ".slow-marker").write_text(marker)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(fake: FakeModelServer, ws: Path) -> AsyncIterator[LanguageClient]:
    c = await start_run_client(fake, ws, "visual-studio-code")
    yield c
    left = list(c.sandboxes.iterdir())  # type: ignore[attr-defined]
    await stop_run_client(c)
    assert not left, "a sandbox was left behind"


def _lens(found: list[types.CodeLens], title: str, line: int) -> types.CodeLens:
    """The lens ``title`` on ``line``; a run lens may name its unit by its prompt (``▶ Run: Say hello…``)."""
    return next(
        lens
        for lens in found
        if lens.command
        and lens.range.start.line == line
        and (lens.command.title == title or lens.command.title.startswith(f"{title}: "))
    )


def _kinds(titles: list[str]) -> list[str]:
    """Lens titles without the prompt a run lens names its unit by."""
    return [t.split(": ")[0] if t.startswith("▶ Run: ") else t for t in titles]


def _line(path: Path, needle: str) -> int:
    return next(i for i, text in enumerate(path.read_text().splitlines()) if needle in text)


async def _diagnostics(client: LanguageClient, uri: str, code: str) -> list[types.Diagnostic]:
    await wait_until(lambda: code in {d.code for d in client.diagnostics.get(uri, [])}, timeout=10)
    return [d for d in client.diagnostics[uri] if d.source == "evalens-run"]


def _no_verdict_diagnostic(client: LanguageClient, uri: str) -> None:
    """A PASS is not a problem: nothing from the run (diagnostics are published before the command answers)."""
    assert [d for d in client.diagnostics.get(uri, []) if d.source == "evalens-run"] == []


async def _titles_at(client: LanguageClient, uri: str, line: int) -> list[str]:
    found = await lenses(client, uri)
    return [lens.command.title for lens in found if lens.command and lens.range.start.line == line]


async def test_skilljack_task_lens_run(client: LanguageClient, ws: Path) -> None:
    path = ws / "greet-suite" / "tasks.yaml"
    uri = await open_doc(client, path)
    found = await lenses(client, uri)
    line = _line(path, "id: gr-001")
    assert lens_titles(found)[0] == "▶ Run all" and _lens(found, "▶ Run", line)

    result = await run_lens(client, _lens(found, "▶ Run", line), timeout=120)

    assert result["verdict"] == "PASS", result
    assert result["name"] == "gr-001" and result["engine"] == "claude-code"
    assert "GREETING_SUCCESS" in result["outputSnippet"]
    assert Path(result["reportPath"]).parent == ws / "greet-suite" / "results"  # not the server's cwd
    from evalens.runner.report import load_report

    (report,) = sorted((ws / "greet-suite" / "evals" / "reports").glob("*.json"))  # and one evalens report
    case = load_report(report).cases[0]
    assert (case.name, case.format, case.location, case.case_file) == (
        "gr-001",
        "skilljack-tasks",
        ["tasks", 0],
        "tasks.yaml",
    )
    *_, show, title = await _titles_at(client, uri, line)  # the verdict last (issue 45 #3)
    assert title.startswith("✓ PASS ") and title.endswith("s") and show == "Show run", (title, show)
    _no_verdict_diagnostic(client, uri)
    assert client.verdicts[-1]["name"] == "gr-001" and client.verdicts[-1]["verdict"] == "PASS"

    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=12),
        )
    )
    assert "Last run: ✓ PASS" in hover.contents.value and "Marker found" in hover.contents.value


async def test_skilljack_task_md_lens_run(client: LanguageClient, ws: Path) -> None:
    path = ws / "greet-suite" / "gr-002" / "task.md"
    uri = await open_doc(client, path)

    result = await run_lens(client, _lens(await lenses(client, uri), "▶ Run", 0), timeout=120)

    assert result["verdict"] == "PASS" and result["name"] == "gr-002", result
    assert Path(result["reportPath"]).parent == ws / "greet-suite" / "results"
    assert (await _titles_at(client, uri, 0))[-1].startswith("✓ PASS ")  # the verdict last
    _no_verdict_diagnostic(client, uri)


async def test_skill_creator_case_lens_run(client: LanguageClient, ws: Path) -> None:
    path = ws / "greeting" / "evals" / "evals.json"
    uri = await open_doc(client, path)
    line = _line(path, '"id": 1')

    result = await run_lens(client, _lens(await lenses(client, uri), "▶ Run", line), timeout=120)

    assert result["verdict"] == "PASS", result
    assert result["name"] == "1" and result["reason"] == "1/1 assertions passed"
    assert result["reportPath"].endswith("eval-1/grading.json") and Path(result["reportPath"]).is_file()
    assert "✓ PASS" in " ".join(await _titles_at(client, uri, line))
    _no_verdict_diagnostic(client, uri)
    assert client.verdicts[-1]["name"] == "1"
    titles = [
        r.title
        for reports in client.progress_reports.values()
        for r in reports
        if isinstance(r, types.WorkDoneProgressBegin)
    ]
    assert "Eval Say hello to the new team member SCENARIO=graded" in titles, titles  # the prompt, not "1"
    # issue 45 #10: the run made evals/reports/ in the skill's own folder, and says so
    reports = ws / "greeting" / "evals" / "reports"
    said = [m.message for m in client.messages if str(reports) in m.message]
    assert said and "new folder" in said[0] and ".gitignore" in said[0], [m.message for m in client.messages]


async def test_writing_skills_case_lens_run(client: LanguageClient, ws: Path) -> None:
    path = ws / "hello" / "evals" / "evals.json"
    uri = await open_doc(client, path)
    line = _line(path, '"id": "says-hello"')

    result = await run_lens(client, _lens(await lenses(client, uri), "▶ Run", line), timeout=120)

    assert result["verdict"] == "FAIL", result  # the grader fails the second expectation
    (failed,) = result["failedChecks"]
    assert failed["check"] == "expectation" and failed["value"] == "names-team"
    second = _line(path, '"criterion": "names-team"') - 1  # the expectation object's `{` line
    assert failed["range"]["start"]["line"] == second
    assert Path(result["reportPath"]).name == "says-hello_v0_run1.json"
    assert any(
        t.startswith("✗ FAIL: required `names-team` scored 1/5") for t in await _titles_at(client, uri, line)
    )
    diags = await _diagnostics(client, uri, "eval-fail")
    on_id = next(d for d in diags if d.code == "eval-fail")
    assert on_id.range.start.line == line and on_id.severity == types.DiagnosticSeverity.Error
    on_entry = next(d for d in diags if d.code == "eval-check-failed")
    assert on_entry.range.start.line == second and on_entry.message.startswith("expectation: scored 1/5")


async def test_neovim_07_lens_run(fake: FakeModelServer, ws: Path) -> None:
    """Neovim 0.7 (no lens refresh, no pull): the verdict lens and the pushed diagnostic still arrive."""
    nvim = await start_run_client(fake, ws, "neovim@v0.7.0")
    try:
        path = ws / "greeting" / "evals" / "evals.json"
        uri = await open_doc(nvim, path)
        line = _line(path, '"id": 1')
        found = await lenses(nvim, uri)
        assert found, found
        result = await run_lens(nvim, _lens(found, "▶ Run", line), timeout=120)
        assert result["verdict"] == "PASS", result
        assert any(t.startswith("✓ PASS") for t in await _titles_at(nvim, uri, line))
        _no_verdict_diagnostic(nvim, uri)
        assert nvim.lens_refreshes == 0  # type: ignore[attr-defined]
    finally:
        await stop_run_client(nvim)


async def test_discover_lists_every_format(client: LanguageClient, ws: Path) -> None:
    found = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="evalens.discoverCases", arguments=[{}])
    )
    units = {(Path(c["uri"][len("file://") :]).name, c["name"], c["format"]) for c in found}
    assert {
        ("tasks.yaml", "gr-001", "skilljack-tasks"),
        ("tasks.yaml", "gr-slow", "skilljack-tasks"),
        ("evals.json", "1", "skill-creator-evals"),
        ("evals.json", "2", "skill-creator-evals"),
        ("evals.json", "says-hello", "writing-skills-evals"),
    } <= units
    assert not any(name == "*" for _, name, _ in units)
    assert ("task.md", "gr-002", "skilljack-task") in units
    gr = next(c for c in found if c["name"] == "gr-001" and "greet-suite" in c["uri"])
    assert gr["packageRoot"] == str(ws / "greet-suite") and gr["lastVerdict"] == "PASS"


async def test_trigger_set_run_all(client: LanguageClient, ws: Path) -> None:
    path = ws / "greeting" / "evals" / "trigger-eval.json"
    uri = await open_doc(client, path)
    found = await lenses(client, uri)
    assert _kinds(lens_titles(found)) == [
        "▶ Run all",
        "Dry run",
        "▶ Run",
        "Dry run",
        "Run 5×",
        "▶ Run",
        "Dry run",
        "Run 5×",
    ]

    result = await run_lens(client, found[0], timeout=120)

    assert result["name"] == "*" and result["verdict"] == "PASS", result
    assert result["reason"] == "precision 1.0, recall 1.0 (2/2 passed)"
    assert {v["name"] for v in client.verdicts[-3:]} == {"0", "1", "*"}
    titles = lens_titles(await lenses(client, uri))
    assert titles[:2] == ["▶ Run all", "Dry run"] and titles[2].startswith("✓ PASS")
    assert _kinds(titles).count("▶ Run") == 2
    _no_verdict_diagnostic(client, uri)
    query = _line(path, "hello there")
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(
                line=query, character=path.read_text().splitlines()[query].index("hello there")
            ),
        )
    )
    assert "triggered 1/1 (should trigger)" in hover.contents.value


async def test_verdicts_restored_from_result_files(
    client: LanguageClient, fake: FakeModelServer, ws: Path
) -> None:
    """A fresh server shows the last verdicts from the files the runs left: skilljack results JSON,
    skill-creator and writing-skills grading files, and a grading.json written by a run in a terminal."""
    grading = ws / "greeting-workspace" / "runs" / "20250101T000000Z" / "eval-2" / "grading.json"
    grading.parent.mkdir(parents=True)
    grading.write_text(
        json.dumps(
            {
                "expectations": [
                    {"text": "The reply says goodbye", "passed": False, "evidence": "it said hello instead"}
                ],
                "summary": {"passed": 0, "failed": 1, "total": 1, "pass_rate": 0.0},
            }
        )
    )
    fresh = await start_run_client(fake, ws, "visual-studio-code")
    try:
        tasks = ws / "greet-suite" / "tasks.yaml"
        creator = ws / "greeting" / "evals" / "evals.json"
        writing = ws / "hello" / "evals" / "evals.json"
        expected = [
            (tasks, "id: gr-001", "✓ PASS"),
            (creator, '"id": 1', "✓ PASS"),
            (creator, '"id": 2', "✗ FAIL: 0/1 assertions passed; failed: The reply says goodbye"),
            (writing, '"id": "says-hello"', "✗ FAIL: required `names-team` scored 1/5"),
        ]
        for path, needle, title in expected:
            uri = await open_doc(fresh, path)
            titles = await _titles_at(fresh, uri, _line(path, needle))
            assert any(t.startswith(title) for t in titles), (path.name, needle, titles)
        real = ws / "example-greeting" / "tasks.yaml"
        if (
            real.is_file()
        ):  # skilljack's own results: a pass, and a false positive below the discovery threshold
            uri = await open_doc(fresh, real)
            assert "✓ PASS 23.1s" in await _titles_at(fresh, uri, _line(real, "id: gr-001"))  # its 3 runs
            assert "✗ FAIL: Unexpected skill activation: greeting (false positive)" in await _titles_at(
                fresh, uri, _line(real, "id: gr-fp-001")
            )
            on_check = next(
                d
                for d in await _diagnostics(fresh, uri, "eval-check-failed")
                if d.code == "eval-check-failed"
            )
            assert on_check.range.start.line == _line(real, "expected_skill_load: none")
            assert on_check.message == "deterministic: Unexpected skill activation: greeting (false positive)"
        found = await fresh.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="evalens.discoverCases", arguments=[{"uri": open_uri(str(writing))}]
            )
        )
        assert [(c["name"], c.get("lastVerdict")) for c in found] == [("says-hello", "FAIL")], found
    finally:
        await stop_run_client(fresh)


async def test_cancel_kills_the_agent(client: LanguageClient, ws: Path) -> None:
    marker = (ws / ".slow-marker").read_text()
    path = ws / "greet-suite" / "tasks.yaml"
    uri = await open_doc(client, path)
    line = _line(path, "id: gr-slow")
    pending = asyncio.ensure_future(
        run_lens(client, _lens(await lenses(client, uri), "▶ Run", line), timeout=90)
    )
    await wait_until(lambda: processes_with(f"evalens-slow-{marker}"), timeout=60, interval=0.1)
    assert "■ Cancel" in await _titles_at(client, uri, line)

    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="evalens.cancelRun", arguments=[{"uri": uri, "name": "gr-slow"}])
    )

    assert answer == {"cancelled": 1}
    result = await asyncio.wait_for(pending, 30)
    assert result["verdict"] == "SKIP" and result.get("cancelled") is True
    await wait_until(lambda: not processes_with(f"evalens-slow-{marker}"), timeout=10)
    await wait_until(lambda: not list(client.sandboxes.iterdir()), timeout=10)  # type: ignore[attr-defined]
    assert "▶ Run" in await _titles_at(client, uri, line)


async def test_unit_ids_are_the_lens_names(tmp_path: Path) -> None:
    """The suite's unit ids are the names the lenses show (``Format.cases``), for both trigger-set shapes: no
    mapping between the runner's names and the editor's."""
    from evalens.core.validate import validate_file
    from evalens.runner.api import FileRunRequest
    from evalens.runner.suites.trigger_sets import TriggerSetSuite

    (tmp_path / "SKILL.md").write_text(
        "---\nname: g\ndescription: Greets. Use when someone says hello.\n---\nHi\n"
    )
    (tmp_path / "evals").mkdir()
    variant = tmp_path / "evals" / "trigger-variant.json"
    variant.write_text(
        json.dumps({"skill_name": "g", "should_trigger": ["a", "b"], "should_not_trigger": ["c"]})
    )
    listed = tmp_path / "evals" / "trigger-eval.json"
    listed.write_text(
        json.dumps([{"query": "a", "should_trigger": True}, {"query": "c", "should_trigger": False}])
    )
    for file in (variant, listed):
        checked = validate_file(file)
        assert checked.format is not None and checked.doc is not None
        lens_names = [c.name for c in checked.format.cases(checked.doc) if c.name != run_formats.ALL]
        suite = TriggerSetSuite(FileRunRequest(file=file), checked.format.id)
        assert [u.id for u in suite.units()] == lens_names
        assert [u.location for u in suite.units()] == [
            list(c.path) for c in checked.format.cases(checked.doc) if c.name != run_formats.ALL
        ]


async def test_plugin_eval_case_lens_run(client: LanguageClient, ws: Path) -> None:
    """A `claude plugin eval` case is one unit (its folder's name) with a lens on line 1 of its prompt.md; run
    from it, Claude Code's own runner grades it in the sandbox, the verdict shows and the report goes under the
    plugin (issue 38)."""
    plugin = ws / "plugin-demo"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "demo", "version": "0.1.0"}')
    (plugin / "skills" / "greeting").mkdir(parents=True)
    (plugin / "skills" / "greeting" / "SKILL.md").write_text(SKILL_MD)
    case = plugin / "evals" / "says-hi"
    (case / "graders").mkdir(parents=True)
    (case / "graders" / "says.md").write_text("---\ntype: regex\npattern: GREETING-OK\n---\n")
    path = case / "prompt.md"
    path.write_text("---\nruns: 1\n---\n\nSCENARIO=no-file Say hello.\n")
    uri = await open_doc(client, path)

    result = await run_lens(client, _lens(await lenses(client, uri), "▶ Run", 0), timeout=180)

    assert result["verdict"] == "PASS" and result["name"] == "says-hi", result
    assert result["engine"] == "claude-code"
    assert (await _titles_at(client, uri, 0))[-1].startswith("✓ PASS ")  # the verdict last
    assert list((plugin / "evals" / "reports").glob("*.json"))  # the plugin's reports, not the case folder's
    _no_verdict_diagnostic(client, uri)
    found = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="evalens.discoverCases", arguments=[{}])
    )
    [listed] = [c for c in found if c["format"] == "plugin-eval-prompt"]  # the Test Explorer's item
    assert listed["name"] == "says-hi" and listed["lastVerdict"] == "PASS", listed
