"""The run record on the real `claude` and `codex` CLIs: what the fake model scripted is what the record says.

One scripted run per engine: a skill activation, a file write, an edit of a fixture, a write a PreToolUse hook
denies, then the final text. The fake model answers every request with 17 input and 7 output tokens, so the usage
is known exactly.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from evalens.runner.api import RunRequest, run_cases
from evalens.runner.record import load_record, records_for
from tests.fakemodel import FakeModelServer
from tests.runner.runner_helpers import agents_available, make_package

pytestmark = pytest.mark.agents

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "schemas" / "evalens-run-record.schema.json").read_text())
EDIT = "printf 'fixture data\\nmore data\\n' > fixtures/data.txt && echo EDITED"
COMMON = [
    {"write": {"path": "output/result.txt", "content": "hello from the fake agent\n"}},
    {"shell": EDIT},
    {"write": {"path": "output/blocked.txt", "content": "nope\n"}},
    {"text": "DONE GREETING-OK"},
]
SCENARIOS = {  # Claude activates a skill with its Skill tool; Codex by reading SKILL.md (agent-clis.md §2.10, §3.6)
    "record-claude-code": [{"tool": "Skill", "input": {"skill": "greeter"}}, *COMMON],
    "record-codex": [{"shell": "cat .agents/skills/greeter/SKILL.md"}, *COMMON],
}
MODEL_CALLS = 5  # four tool calls, then the final text


@pytest.fixture(scope="module")
def scripted_model(tmp_path_factory: pytest.TempPathFactory):
    with FakeModelServer(
        log_dir=tmp_path_factory.mktemp("record-log"), scenarios=SCENARIOS, idle_timeout=600
    ) as server:
        yield server


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
def test_record_matches_what_the_model_scripted(
    engine: str,
    tmp_path: Path,
    scripted_model: FakeModelServer,
    sandbox_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed")
    for name, value in (
        ("ANTHROPIC_BASE_URL", scripted_model.anthropic_base_url),
        ("ANTHROPIC_API_KEY", "k"),
        ("OPENAI_BASE_URL", scripted_model.openai_base_url),
        ("OPENAI_API_KEY", "k"),
    ):
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("CODEX_API_KEY", raising=False)
    root = make_package(
        tmp_path / "pkg",
        engine=engine,
        judge="claude-judge" if engine == "claude-code" else "openai:gpt-judge",
        cases={
            "scripted": {
                "input": {"prompt": f"SCENARIO=record-{engine}", "files": ["fixtures/data.txt"]},
                "expected": {"contains": ["GREETING-OK", "NEVER-SAID"]},
                "judge": {"criteria": "ok JUDGE=pass"},
            },
            "model-down": {"input": {"prompt": "SCENARIO=err500"}, "expected": {"contains": ["GREETING-OK"]}},
        },
    )
    streamed = []  # the live turns, as the agent produced them (and before the verdict)
    outcome = asyncio.run(
        run_cases(
            RunRequest(
                package_root=root, engine=engine, agent_model="gpt-fake" if engine == "codex" else None
            ),
            on_turn=streamed.append,
        )
    )
    results = {r.name: r for r in outcome.results}
    cases = {c.name: c for c in outcome.report.cases}
    result = results["scripted"]
    assert result.verdict == "FAIL", result.reason
    [(path, record)] = records_for(outcome.report_path, cases["scripted"].artifacts)
    assert record is not None
    Draft202012Validator(SCHEMA).validate(json.loads(path.read_text()))
    assert load_record(path) == record

    # the turns: one per model response, each tool call as scripted, with its result and a duration
    assert len(record.turns) == MODEL_CALLS
    calls = [c for t in record.turns for c in t.tool_calls]
    assert [len(t.tool_calls) for t in record.turns] == [1, 1, 1, 1, 0]
    assert record.turns[-1].text == "DONE GREETING-OK" and record.output == "DONE GREETING-OK"
    skill, write, edit, blocked = calls
    assert skill.skill == "greeter" and record.skills_activated == ["greeter"]
    if engine == "claude-code":
        assert skill.name == "Skill" and skill.input == {"skill": "greeter"}
        assert write.name == "Write" and write.input["file_path"] == "output/result.txt"
        assert edit.name == "Bash" and edit.input["command"] == EDIT
        assert blocked.input["file_path"] == "output/blocked.txt"
    else:
        assert skill.input == {"cmd": "cat .agents/skills/greeter/SKILL.md"}
        assert "output/result.txt" in write.input["cmd"]
        assert edit.input == {"cmd": EDIT}
        assert "output/blocked.txt" in blocked.input["cmd"]
    assert "Write a greeting." in skill.result or "greeter" in skill.result
    assert edit.result.strip() == "EDITED" and not edit.is_error
    assert all(c.duration_ms is not None and c.duration_ms >= 0 for c in calls)

    # hooks: the package's PreToolUse hook ran for each shell/write call; only the write to blocked.txt was denied
    assert blocked.blocked and record.blocked
    [denial] = [h for h in blocked.hooks if h.blocked]
    assert (
        denial.event == "PreToolUse"
        and denial.exit_code == 2
        and "BLOCKED_BY_POLICY" in (denial.reason or "")
    )
    for call in (write, edit):
        assert not call.blocked and call.hooks and not any(h.blocked for h in call.hooks)

    # files: the created file and the edited fixture, diffed against the starting workspace; nothing blocked
    files = {f.path: f for f in record.files}
    assert set(files) == {"output/result.txt", "fixtures/data.txt"}
    assert files["output/result.txt"].status == "created"
    assert "+hello from the fake agent" in files["output/result.txt"].diff
    assert files["fixtures/data.txt"].status == "modified"
    assert " fixture data\n+more data\n" in files["fixtures/data.txt"].diff
    assert record.bounds == []

    # usage: 17 in / 7 out per model call; Claude reports a cost, Codex does not (and evalens does not guess)
    assert record.usage.input_tokens == 17 * MODEL_CALLS and record.usage.output_tokens == 7 * MODEL_CALLS
    assert all((t.input_tokens, t.output_tokens) == (17, 7) for t in record.turns)
    if engine == "claude-code":
        assert record.usage.cost_usd is not None and record.usage.cost_usd > 0
    else:
        assert record.usage.cost_usd is None
    assert result.usage is not None and result.usage.input_tokens == 17 * MODEL_CALLS
    # the batch total: the crashed run spent no output tokens
    assert outcome.report.summary.usage.output_tokens == 7 * MODEL_CALLS

    # verdict, checks, provenance
    assert record.verdict == "FAIL" and record.engine == engine and record.model
    assert [(c.value, c.status) for c in record.checks] == [("GREETING-OK", "PASS"), ("NEVER-SAID", "FAIL")]
    assert record.exit_code == 0 and not record.timed_out and record.agent_seconds > 0
    assert os.path.isfile(path.parent / "events.jsonl")

    # the live turns: what the model scripted, in order, from the event stream (hooks: only those that blocked)
    live = [(t.kind, t.tool, t.text) for t in streamed if t.unit == "scripted"]
    assert {t.run for t in streamed} == {1} and [t.seq for t in streamed if t.unit == "scripted"] == list(
        range(len(live))
    )
    if engine == "claude-code":
        assert live == [
            ("tool", "Skill", "greeter"),
            ("result", "Skill", "Launching skill: greeter"),
            ("tool", "Write", "output/result.txt"),
            ("result", "Write", live[3][2]),
            ("tool", "Bash", EDIT),
            ("result", "Bash", "EDITED"),
            ("tool", "Write", "output/blocked.txt"),
            ("hook", "PreToolUse:Write", live[7][2]),
            ("result", "Write", live[8][2]),
            ("text", None, "DONE GREETING-OK"),
        ]
        assert "output/result.txt" in live[3][2] and "/ws/" not in live[3][2]
    else:  # `--json` leaves out the denied write; the hook shim's records stream its block (polled: in any order)
        assert [k for k, _, _ in live if k != "hook"] == [
            "tool",
            "result",
            "tool",
            "result",
            "tool",
            "result",
            "text",
        ]
        assert [k for k, _, _ in live].count("hook") == 1
        live = [x for x in live if x[0] != "hook"]
        assert live[0][2] == "cat .agents/skills/greeter/SKILL.md" and "Write a greeting." in live[1][2]
        assert "output/result.txt" in live[2][2] and live[4][2] == EDIT and live[5][2].strip() == "EDITED"
        assert live[-1] == ("text", None, "DONE GREETING-OK")
    hook = next(t for t in streamed if t.kind == "hook")
    assert hook.blocked and "BLOCKED_BY_POLICY" in hook.text
    assert not any(t.kind == "tool" for t in streamed if t.unit == "model-down")

    # an agent that never got an answer: a record all the same, saying why, with nothing made up
    [(_, crashed)] = records_for(outcome.report_path, cases["model-down"].artifacts)
    assert results["model-down"].verdict == "ERROR" and crashed.verdict == "ERROR"
    assert "500" in crashed.error and crashed.exit_code != 0
    assert crashed.files == [] and not any(t.tool_calls for t in crashed.turns)
    assert not crashed.usage.output_tokens


SKILL_MD = "---\nname: greeting\ndescription: Greets new team members.\n---\nSay hello.\n"


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
async def test_other_formats_get_the_same_record(
    engine: str,
    tmp_path: Path,
    scripted_model: FakeModelServer,
    sandbox_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A skill-creator evals.json run through the one pipeline: its report's unit has a run record too."""
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed")
    from evalens.runner.api import FileRunRequest, run_file

    for name, value in (
        ("ANTHROPIC_BASE_URL", scripted_model.anthropic_base_url),
        ("ANTHROPIC_API_KEY", "k"),
        ("OPENAI_BASE_URL", scripted_model.openai_base_url),
        ("OPENAI_API_KEY", "k"),
    ):
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    skill = tmp_path / "greeting"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD)
    (skill / "evals" / "evals.json").write_text(
        json.dumps(
            {
                "skill_name": "greeting",
                "evals": [
                    {
                        "id": 1,
                        "prompt": "Greet SCENARIO=pass JUDGE=pass",
                        "expected_output": "a greeting",
                        "assertions": ["greets"],
                    }
                ],
            }
        )
    )
    outcome = await run_file(
        FileRunRequest(
            file=skill / "evals" / "evals.json",
            engine=engine,
            model="gpt-fake" if engine == "codex" else None,
            timeout_seconds=60,
            output_dir=tmp_path / "out",
            runs=1,
        ),
        on_turn=(streamed := []).append,
    )
    [case] = outcome.report.cases
    found = records_for(outcome.report_path, case.artifacts)
    assert len(found) == 1, [(str(p), r.prompt if r else None) for p, r in found]
    [(_, record)] = found
    assert record is not None and record.verdict == case.verdict == "PASS"
    assert record.format_id == "skill-creator-evals" and record.unit == "1"
    [write, text] = record.turns  # the fake's `pass` scenario: write output/result.txt, then reply
    [call] = write.tool_calls
    assert "output/result.txt" in json.dumps(call.input) and text.text.startswith("DONE")
    assert [(f.path, f.status) for f in record.files] == [("output/result.txt", "created")]
    assert (record.usage.input_tokens, record.usage.output_tokens) == (34, 14)
    assert case.usage.input_tokens == 34 and outcome.report.summary.usage.output_tokens == 14
    # the live turns of this format's run: the write, its result, the reply
    assert [(t.unit, t.kind) for t in streamed] == [("1", "tool"), ("1", "result"), ("1", "text")]
    assert "output/result.txt" in streamed[0].text and streamed[2].text.startswith("DONE")


def test_cli_verbose_prints_the_turns(
    tmp_path: Path, scripted_model: FakeModelServer, sandbox_dir: Path
) -> None:
    """``evalens eval --verbose``: the agent's turns on stderr as they happen, before the case's verdict line."""
    import subprocess
    import sys

    if not agents_available("claude-code"):
        pytest.skip("claude-code CLI not installed")
    root = make_package(
        tmp_path / "pkg",
        cases={
            "scripted": {
                "input": {"prompt": "Write it. SCENARIO=pass"},
                "expected": {"contains": ["GREETING-OK"]},
            }
        },
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    env.update(ANTHROPIC_BASE_URL=scripted_model.anthropic_base_url, ANTHROPIC_API_KEY="k")
    proc = subprocess.run(
        [sys.executable, "-m", "evalens", "eval", "--verbose", "--no-judge", "--package", str(root)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    write = lines.index("[scripted] ▸ Write output/result.txt")
    reply = next(i for i, line in enumerate(lines) if line.startswith("[scripted] 💬 DONE"))
    verdict = next(i for i, line in enumerate(lines) if line.startswith("PASS  scripted"))
    assert write < reply < verdict
