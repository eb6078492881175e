"""The trigger lab on the real CLIs against the scripted model (docs/triggers.md): which installed skill fired,
how it was seen (Claude Code's Skill tool, Codex's read of SKILL.md or its `$name` mention), and a crashed agent
is ERROR, never "not triggered"."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakemodel import FakeModelServer
from tests.runner.runner_helpers import agents_available

pytestmark = pytest.mark.agents

ENGINES = ["claude-code", "codex"]
GREET, PDF = "greet-key-7", "pdf-key-9"
SCENARIOS: dict[str, list[dict[str, Any]]] = {
    # the agent only *says* it used the skill: text never counts
    "says-skill": [{"text": "Launching skill: greeter. cat .agents/skills/greeter/SKILL.md $greeter"}],
    # greeter first, then pdf-tools: greeter took a query that pdf-tools also wanted
    "both-skills": [{"activate": "greeter"}, {"activate": "pdf-tools"}, {"text": "DONE"}],
    # issue 44: calls that name SKILL.md but bring nothing of it to the model
    "read-past-end": [
        {"tool": "Read", "input": {"file_path": "{cwd}/.claude/skills/greeter/SKILL.md", "offset": 500}},
        {"text": "DONE"},
    ],
    "refused-skill": [{"tool": "Skill", "input": {"skill": "greeter"}}, {"text": "DONE"}],
    "cat-devnull": [{"shell": "cat .agents/skills/greeter/SKILL.md > /dev/null"}, {"text": "DONE"}],
    "false-and-cat": [{"shell": "false && cat .agents/skills/greeter/SKILL.md"}, {"text": "DONE"}],
    "cd-root-cat": [{"shell": "cd / && cat .agents/skills/greeter/SKILL.md"}, {"text": "DONE"}],
    # Codex's code mode: the command is a string in a script that never passes it to a tool
    "js-unran": [
        {"code": 'const never = "cat .agents/skills/greeter/SKILL.md";\ntext("nothing ran");'},
        {"text": "DONE"},
    ],
}


@pytest.fixture(scope="module")
def trigger_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeModelServer]:
    with FakeModelServer(
        log_dir=tmp_path_factory.mktemp("trigger-model"), idle_timeout=900, scenarios=SCENARIOS
    ) as server:
        yield server


@pytest.fixture
def trigger_env(trigger_model: FakeModelServer, monkeypatch: pytest.MonkeyPatch) -> FakeModelServer:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", trigger_model.anthropic_base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", trigger_model.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("CODEX_API_KEY", raising=False)
    monkeypatch.setenv("EVALENS_AGENT_RETRIES", "0")
    return trigger_model


def skill(root: Path, name: str, key: str) -> Path:
    (root / name).mkdir(parents=True)
    (root / name / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Handles {name} requests. Key {key}.\n---\nDo the {name} thing.\n"
    )
    return root / name


def trigger_set(skill_dir: Path, queries: list[tuple[str, bool]]) -> Path:
    (skill_dir / "evals").mkdir(exist_ok=True)
    path = skill_dir / "evals" / "trigger-eval.json"
    path.write_text(json.dumps([{"query": q, "should_trigger": want} for q, want in queries]))
    return path


def run(file: Path, engine: str, runs: int = 1, **extra: Any) -> Any:
    from evalens.runner.api import run_file
    from evalens.runner.suites.base import FileRunRequest

    request = FileRunRequest(
        file=file,
        engine=engine,
        model="gpt-fake" if engine == "codex" else None,
        runs=runs,
        timeout_seconds=90,
        **extra,
    )
    return asyncio.run(run_file(request))


def fired(result: Any) -> list[tuple[Any, ...]]:
    return [
        ("ERROR",) if "error" in f else (f["skill"], f["how"], f["turn"] is not None)
        for f in result.details["fired"]
    ]


@pytest.mark.parametrize("engine", ENGINES)
def test_detection_from_the_engine_s_events(
    engine: str, tmp_path: Path, trigger_env, sandbox_dir: Path
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    greeter = skill(tmp_path, "greeter", GREET)
    file = trigger_set(
        greeter,
        [
            (f"write a greeting for Ann SCENARIO=use-skill NEEDS={GREET}", True),
            ("write a greeting for Bob SCENARIO=says-skill", True),
            ("what is the weather SCENARIO=err500", False),
            ("please use $greeter here SCENARIO=done", True),
        ],
    )
    outcome = run(file, engine)
    by = {r.name: r for r in outcome.results}
    how = "tool-call" if engine == "claude-code" else "skill-read"
    assert fired(by["0"]) == [("greeter", how, True)] and by["0"].verdict == "PASS"
    # the agent printed the Skill tool's words, a SKILL.md path and `$greeter`: it called nothing
    assert fired(by["1"]) == [(None, None, False)] and by["1"].verdict == "FAIL"
    assert by["1"].reason == "triggered 0/1 (should trigger)"
    # a crashed agent is ERROR (and said so), not "not triggered", even for a query that should not trigger
    assert by["2"].verdict == "ERROR" and fired(by["2"]) == [("ERROR",)]
    assert "API status 500" in (by["2"].reason or "")
    # `$name` is Codex's explicit mention (Codex injects the skill itself); Claude Code has no such syntax
    if engine == "codex":
        assert fired(by["3"]) == [("greeter", "mention", False)] and by["3"].verdict == "PASS"
        assert by["3"].details["fired"][0]["argument"] == "$greeter"
    else:
        assert fired(by["3"]) == [(None, None, False)] and by["3"].verdict == "FAIL"
    # the run record of each run holds the same activations
    assert outcome.report_path is not None
    report = json.loads(outcome.report_path.read_text())
    case = next(c for c in report["cases"] if c["name"] == "0")
    records = list((outcome.report_path.parent / case["artifacts"]).glob("**/record.json"))
    assert records, case
    record = json.loads(records[0].read_text())
    assert [(a["skill"], a["how"]) for a in record["activations"]] == [("greeter", how)]


@pytest.mark.parametrize("engine", ENGINES)
def test_two_skills_one_steals_the_confusion_table(
    engine: str, tmp_path: Path, trigger_env, sandbox_dir: Path
) -> None:
    """pdf-tools is installed beside greeter (--with-installed): a greeting query whose key only pdf-tools'
    description holds is stolen by it; a query where greeter fires before pdf-tools is greeter stealing."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    from evalens.runner.trigger_report import query_label, trigger_report

    greeter = skill(tmp_path / "mine", "greeter", GREET)
    others = tmp_path / "plugin" / "skills"
    skill(others, "pdf-tools", PDF)
    file = trigger_set(
        greeter,
        [
            (f"write a greeting for Ann SCENARIO=use-skill NEEDS={GREET}", True),
            (f"write a greeting card as a PDF SCENARIO=use-skill NEEDS={PDF}", True),
            ("what is the weather SCENARIO=done", False),
            ("merge <these> two PDFs & more SCENARIO=both-skills", False),
        ],
    )
    out = tmp_path / "triggers.json"
    outcome = run(file, engine, runs=2, with_installed=[tmp_path / "plugin"], json_output=out)
    by = {r.name: r for r in outcome.results}
    assert [by[u].verdict for u in "0123"] == ["PASS", "FAIL", "PASS", "FAIL"], [
        (r.name, r.verdict, r.reason) for r in outcome.results
    ]
    lab = trigger_report((r.name, r.details) for r in outcome.results)
    assert lab is not None and lab.skill == "greeter"
    assert lab.skills == ["greeter", "pdf-tools", "(none)"]
    assert [row[2:] for row in lab.confusion()] == [
        ["greeter", "pdf-tools", "(none)", "errors"],
        ["2", "0", "0", "0"],
        ["0", "2", "0", "0"],
        ["0", "0", "2", "0"],
        ["2", "0", "0", "0"],
    ]
    assert (lab.recall.hits, lab.recall.of, lab.precision.hits, lab.precision.of) == (2, 4, 2, 4)
    assert lab.recall.interval == pytest.approx((0.15, 0.85), abs=0.01)
    assert [(r.unit, s, n) for r, s, n in lab.stolen_by()] == [("1", "pdf-tools", 2)]
    assert by["1"].reason == "triggered 0/2 (should trigger); pdf-tools fired first 2/2"
    assert [(r.unit, s, n) for r, s, n in lab.stole_from()] == [("3", "pdf-tools", 2)]
    assert [query_label(by[u].details) for u in "0123"] == [
        "✓ fired 2/2",
        "✗ stolen by pdf-tools 2/2",
        "✓ not fired 2/2",
        "✗ fired 2/2 (should not)",
    ]
    lines = "\n".join(outcome.summary)
    assert "trigger report for greeter: recall 2/4 = 0.50" in lines
    assert "stolen by pdf-tools 2/2: write a greeting card as a PDF" in lines
    assert "stole from pdf-tools 2/2: merge <these> two PDFs & more" in lines
    saved = json.loads(out.read_text())
    assert saved["installed"] == ["greeter", "pdf-tools"]
    assert saved["trigger_report"]["stolen_by"] == [
        {"query": by["1"].details["query"], "skill": "pdf-tools", "runs": 2, "of": 2}
    ]
    # every run of every query says which skill fired, how, in which turn, with what argument
    how = "tool-call" if engine == "claude-code" else "skill-read"
    (first, _) = by["1"].details["fired"]
    assert (first["skill"], first["how"], first["turn"]) == ("pdf-tools", how, 0)
    assert "pdf-tools" in first["argument"]
    assert by["3"].details["fired"][0]["also"] == ["pdf-tools"]
    # the same report in `evalens show`, the HTML page (the query's text escaped) and the lens over each query
    from evalens.runner.report_html import render_html
    from evalens.runner.run_view import load_view
    from evalens.server.features.run_present import verdict_title

    assert outcome.report_path is not None
    page = render_html(load_view(outcome.report_path))
    assert "<h2>Triggers of greeter</h2>" in page and "recall 2/4 = 0.50 [0.15, 0.85]" in page
    assert "stolen by <b>pdf-tools</b> 2/2: write a greeting card as a PDF" in page
    assert "merge &lt;these&gt; two PDFs &amp; more" in page and "<these>" not in page
    assert f"<b>pdf-tools</b> by {how} in turn 1" in page
    show = subprocess.run(
        [sys.executable, "-m", "evalens", "show", str(outcome.report_path)],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=120,
    )
    assert show.returncode == 0, show.stderr[-2000:]
    assert "trigger report for greeter: recall 2/4 = 0.50 [0.15, 0.85]" in show.stdout, show.stdout
    assert "stolen by pdf-tools 2/2: write a greeting card as a PDF" in show.stdout
    assert "✗ stolen by pdf-tools 2/2" in show.stdout
    assert verdict_title(by["1"]) == "✗ stolen by pdf-tools 2/2" and verdict_title(by["0"]) == "✓ fired 2/2"


@pytest.mark.parametrize("engine", ENGINES)
def test_evalens_run_with_installed_prints_the_thief(
    engine: str, tmp_path: Path, trigger_env, sandbox_dir: Path
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    greeter = skill(tmp_path / "mine", "greeter", GREET)
    pdf = skill(tmp_path / "theirs", "pdf-tools", PDF)
    file = trigger_set(greeter, [(f"a greeting card as a PDF SCENARIO=use-skill NEEDS={PDF}", True)])
    model = ["--model", "gpt-fake"] if engine == "codex" else []
    base = [sys.executable, "-m", "evalens", "run", str(file), "--engine", engine, *model, "--runs", "1"]
    out = subprocess.run(
        [*base, "--with-installed", str(pdf)],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=300,
    )
    assert out.returncode == 1, out.stdout + out.stderr[-3000:]
    assert "stolen by pdf-tools 1/1: a greeting card as a PDF" in out.stdout, out.stdout
    # the reason every face shows (the Test Explorer's message too) names the thief
    assert "triggered 0/1 (should trigger); pdf-tools fired first 1/1" in out.stdout
    # a no-skill baseline leaves out only the skill under test: pdf-tools still takes the query
    without_skill = subprocess.run(
        [*base, "--with-installed", str(pdf), "--baseline", "no-skill"],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=300,
    )
    assert without_skill.returncode == 1, without_skill.stdout + without_skill.stderr[-3000:]
    report = json.loads(max((greeter / "evals" / "reports").glob("*.json")).read_text())
    (without,) = report["baseline"]["cases"]
    assert [f["skill"] for f in without["details"]["fired"]] == ["pdf-tools"]
    missing = subprocess.run(
        [*base, "--with-installed", str(tmp_path / "nowhere")],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
    )
    assert (
        missing.returncode == 2
        and "--with-installed" in missing.stderr
        and "no such folder" in missing.stderr
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_a_call_that_brought_nothing_of_the_skill_fires_nothing(
    engine: str, tmp_path: Path, trigger_env, sandbox_dir: Path
) -> None:
    """Issue 44: a Read past the end of SKILL.md, a Skill call Claude Code refused (disable-model-invocation),
    ``cat SKILL.md > /dev/null``, ``false && cat …`` and ``cd / && cat …`` each showed "triggered 1/1": the
    detection matched the command text and ignored the call's result. Each is now "triggered 0/1"; a read whose
    result holds the skill still fires."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed (run .ci/install-agents.sh)")
    greeter = skill(tmp_path, "greeter", GREET)
    probes = ["read-past-end", "cat-devnull", "false-and-cat", "cd-root-cat"]
    file = trigger_set(
        greeter,
        [(f"write a greeting SCENARIO={p}", True) for p in probes]
        + [(f"write a greeting for Ann SCENARIO=use-skill NEEDS={GREET}", True)],
    )
    outcome = run(file, engine)
    by = {r.name: r for r in outcome.results}
    for i, probe in enumerate(probes):
        assert by[str(i)].reason == "triggered 0/1 (should trigger)", (probe, by[str(i)].reason)
        assert fired(by[str(i)]) == [(None, None, False)], (probe, by[str(i)].details)
    assert fired(by[str(len(probes))])[0][0] == "greeter" and by[str(len(probes))].verdict == "PASS"
    # the run record says which evidence decided the control's activation
    report = json.loads(outcome.report_path.read_text())
    control = next(c for c in report["cases"] if c["name"] == str(len(probes)))
    [kept] = [
        json.loads(p.read_text())
        for p in (outcome.report_path.parent / control["artifacts"]).glob("**/record.json")
    ]
    [activation] = kept["activations"]
    expected = "the engine ran the call" if engine == "claude-code" else "its result holds the SKILL.md line"
    assert activation["evidence"].startswith(expected), activation
    if engine == "claude-code":  # the probe ran: the Read returned, without the file's lines
        report = json.loads(outcome.report_path.read_text())
        case = next(c for c in report["cases"] if c["name"] == "0")
        [record] = [
            json.loads(p.read_text())
            for p in (outcome.report_path.parent / case["artifacts"]).glob("**/record.json")
        ]
        reads = [c for t in record["turns"] for c in t["tool_calls"] if c["name"] == "Read"]
        assert reads and "Do the greeter thing" not in (reads[0].get("result") or ""), reads


def test_a_skill_call_claude_code_refused_fires_nothing(
    tmp_path: Path, trigger_env, sandbox_dir: Path
) -> None:
    """A skill with ``disable-model-invocation: true``: Claude Code refuses the model's Skill call
    (``is_error: true``), so nothing of the skill reached the model, and it did not fire."""
    if not agents_available("claude-code"):
        pytest.skip("claude-code CLI not installed (run .ci/install-agents.sh)")
    greeter = skill(tmp_path, "greeter", GREET)
    md = greeter / "SKILL.md"
    md.write_text(md.read_text().replace("---\nname:", "---\ndisable-model-invocation: true\nname:", 1))
    file = trigger_set(greeter, [("write a greeting SCENARIO=refused-skill", True)])
    outcome = run(file, "claude-code")
    [result] = outcome.results
    assert result.reason == "triggered 0/1 (should trigger)", (result.reason, result.details)
    report = json.loads(outcome.report_path.read_text())
    [case] = report["cases"]
    [record] = [
        json.loads(p.read_text())
        for p in (outcome.report_path.parent / case["artifacts"]).glob("**/record.json")
    ]
    calls = [c for t in record["turns"] for c in t["tool_calls"] if c["name"] == "Skill"]
    assert calls and calls[0].get("is_error"), calls  # the probe ran: Claude Code refused the call


def test_a_code_mode_string_that_never_ran_fires_nothing_on_codex(
    tmp_path: Path, trigger_env, sandbox_dir: Path
) -> None:
    """Issue 44, on the real Codex with its default model, which reaches the shell only through code mode's
    JavaScript ``exec`` tool: a script holding ``cat …/SKILL.md`` as a string it never passes to a tool was
    "triggered 1/1". Now it is "triggered 0/1"; a script that does run the read (the control) still fires."""
    from evalens.runner.api import run_file
    from evalens.runner.suites.base import FileRunRequest

    if not agents_available("codex"):
        pytest.skip("codex CLI not installed (run .ci/install-agents.sh)")
    greeter = skill(tmp_path, "greeter", GREET)
    file = trigger_set(
        greeter,
        [
            ("write a greeting SCENARIO=js-unran", True),
            (f"write a greeting for Ann SCENARIO=use-skill NEEDS={GREET}", True),
        ],
    )
    request = FileRunRequest(file=file, engine="codex", model=None, runs=1, timeout_seconds=90)
    outcome = asyncio.run(run_file(request))
    by = {r.name: r for r in outcome.results}
    report = json.loads(outcome.report_path.read_text())
    calls = [
        c
        for case in report["cases"]
        for p in (outcome.report_path.parent / case["artifacts"]).glob("**/record.json")
        for t in json.loads(p.read_text())["turns"]
        for c in t["tool_calls"]
    ]
    assert calls and all(c["name"] == "exec" for c in calls), [c["name"] for c in calls]  # code mode, both
    assert by["0"].reason == "triggered 0/1 (should trigger)", by["0"].reason
    assert fired(by["0"]) == [(None, None, False)], by["0"].details
    assert fired(by["1"])[0][0] == "greeter" and by["1"].verdict == "PASS", by["1"].details
