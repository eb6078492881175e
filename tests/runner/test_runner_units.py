"""Runner pieces that need no agent CLI: fake server wire shapes via the real SDKs, judge, checks, install,
sandbox paths, reports, CLI usage errors and dry runs."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import jsonschema
import pytest

from evalens.core.models.uaaps import CaseExpected
from evalens.runner.api import RunError, RunRequest, load_last_results, plan_run, run_cases
from evalens.runner.bounds import Bounds
from evalens.runner.checks import files_created, run_checks, summarise
from evalens.runner.engines.base import SandboxPaths, Transcript
from evalens.runner.judge import build_prompt, judge_case, parse_reply, resolve_judge
from evalens.runner.sandbox import PathEscape, process_tree, safe_join
from tests.in_process import evalens as in_process
from tests.in_process import evalens_subprocess
from tests.runner.runner_helpers import case, make_package

REPO = Path(__file__).resolve().parents[2]
REPORT_SCHEMA = json.loads((REPO / "schemas" / "uaaps-eval-report.schema.json").read_text())


def evalens_cli(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    """``evalens ARGS`` in this process (tests/in_process.py), with the test's environment plus ``env``."""
    return in_process([*args], env={**os.environ, **(env or {})}, cwd=cwd)


# --------------------------------------------------------------------------- fake server through the SDKs


def test_fake_server_speaks_anthropic_and_openai(model_env) -> None:
    import anthropic
    import openai

    a = anthropic.Anthropic(base_url=model_env.anthropic_base_url, api_key="x", max_retries=0)
    msg = a.messages.create(model="m", max_tokens=10, messages=[{"role": "user", "content": "SCENARIO=done"}])
    assert msg.content[0].text == "DONE"
    with a.messages.stream(
        model="m", max_tokens=10, messages=[{"role": "user", "content": "SCENARIO=no-file"}]
    ) as stream:
        assert "GREETING-OK" in "".join(stream.text_stream)
    with pytest.raises(anthropic.InternalServerError):
        a.messages.create(model="m", max_tokens=10, messages=[{"role": "user", "content": "SCENARIO=err500"}])
    o = openai.OpenAI(base_url=model_env.openai_base_url, api_key="x", max_retries=0)
    chat = o.chat.completions.create(model="m", messages=[{"role": "user", "content": "SCENARIO=done"}])
    assert chat.choices[0].message.content == "DONE"
    chunks = o.chat.completions.create(
        model="m",
        stream=True,
        stream_options={"include_usage": True},
        messages=[{"role": "user", "content": "SCENARIO=done"}],
    )
    assert "".join((c.choices[0].delta.content or "") for c in chunks if c.choices) == "DONE"
    with o.responses.stream(model="m", input="SCENARIO=no-file") as stream:
        assert "GREETING-OK" in stream.get_final_response().output_text
    assert o.responses.create(model="m", input="SCENARIO=done").output_text == "DONE"
    with pytest.raises(openai.RateLimitError):
        o.responses.create(model="m", input="SCENARIO=err429")


def test_fake_server_standalone_process(tmp_path: Path) -> None:
    """`python tests/fakemodel/server.py --port-file F` starts on a free port and answers."""
    import urllib.request

    from tests.fakemodel import spawn_fake_model

    with spawn_fake_model(tmp_path / "fake", idle_timeout=30) as (port, proc):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=5) as resp:
            assert json.load(resp)["data"]
        assert proc.poll() is None
    assert proc.poll() is not None


# --------------------------------------------------------------------------- judge


@pytest.mark.parametrize("judge", ["claude-judge", "openai:gpt-judge"])
async def test_judge_verdicts(model_env, judge: str) -> None:
    spec = resolve_judge(judge, default_provider="anthropic")
    env = dict(os.environ)
    assert (await judge_case(spec, "verdict please JUDGE=pass", env)).verdict == "PASS"
    assert (await judge_case(spec, "verdict please JUDGE=fail", env)).verdict == "FAIL"
    garbage = await judge_case(spec, "verdict please JUDGE=garbage", env)
    assert garbage.verdict == "ERROR" and "after 1 retry" in garbage.reason
    assert (await judge_case(spec, "verdict please JUDGE=flaky nonce-" + judge, env)).verdict == "PASS"


def test_judge_resolution_and_parsing() -> None:
    assert resolve_judge("claude-sonnet-4-6", default_provider="openai").provider == "anthropic"
    assert resolve_judge("gpt-5-mini", default_provider="anthropic").provider == "openai"
    spec = resolve_judge("openai:my-model", default_provider="anthropic")
    assert (spec.provider, spec.model) == ("openai", "my-model")
    assert resolve_judge(None, default_provider="anthropic", agent_model="claude-x").model == "claude-x"
    assert parse_reply('```json\n{"verdict": "PASS", "reason": "ok"}\n```').verdict == "PASS"
    for bad in ('{"verdict": "MAYBE", "reason": "x"}', "PASS", '{"verdict": "PASS"}'):
        with pytest.raises(ValueError):
            parse_reply(bad)
    prompt = build_prompt(
        "crit", "task", "x" * 20000, {"out.txt": "hi"}, [{"kind": "contains", "value": "A", "status": "PASS"}]
    )
    assert "truncated" in prompt and "out.txt" in prompt and "crit" in prompt and len(prompt) < 12000


# --------------------------------------------------------------------------- checks, paths, install


def test_checks_name_exact_failing_entries() -> None:
    expected = CaseExpected.model_validate(
        {
            "contains": ["A", "B"],
            "not-contains": ["X"],
            "files-created": ["out/a.txt", "./out/b.txt"],
            "agent-blocked": True,
        }
    )
    results = run_checks(expected, Transcript(output="A X"), ["out/b.txt"])
    failing = [(r.kind, r.value) for r in results if r.status == "FAIL"]
    assert failing == [
        ("contains", "B"),
        ("not_contains", "X"),
        ("files_created", "out/a.txt"),
        ("agent_blocked", True),
    ]
    assert summarise(results) == {
        "contains": "FAIL",
        "not_contains": "FAIL",
        "files_created": "FAIL",
        "agent_blocked": "FAIL",
    }
    assert files_created({"a": (0, 1)}, {"a": (0, 1), "b": (1, 2)}) == ["b"]
    assert files_created({"a": (0, 1)}, {"a": (5, 9)}) == ["a"]


def test_safe_join_refuses_escapes(tmp_path: Path) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "link").symlink_to(tmp_path)
    for bad in ("../x", "/etc/passwd", "a/../../x", "~/x", "link/x"):
        with pytest.raises(PathEscape):
            safe_join(tmp_path / "evals", bad, what="input file")
    assert (
        safe_join(tmp_path / "evals", "fixtures/a.txt", what="input file")
        == tmp_path / "evals/fixtures/a.txt"
    )


def test_install_per_engine(tmp_path: Path) -> None:
    from evalens.runner.engines import get_engine
    from evalens.runner.install import install_package, read_package

    pkg = make_package(tmp_path / "pkg")
    (pkg / "rules").mkdir()
    (pkg / "rules" / "style.md").write_text("Always be brief.")
    info = read_package(pkg)
    for engine_name, skills_dir, hooks_file, rules in (
        ("claude-code", ".claude/skills", ".claude/settings.json", "CLAUDE.md"),
        ("codex", ".agents/skills", ".codex/hooks.json", "AGENTS.md"),
    ):
        ws = tmp_path / engine_name
        paths = SandboxPaths(ws, ws, ws / "h", ws / "c", ws / "l")
        ws.mkdir()
        install_package(info, get_engine(engine_name), paths)
        assert (ws / skills_dir / "greeter" / "SKILL.md").is_file()
        command = json.loads((ws / hooks_file).read_text())["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        if (
            engine_name == "codex"
        ):  # Codex's hooks run through the recording shim (exec --json drops hook events)
            shim, event, _records, command = shlex.split(command)[1:]
            assert event == "PreToolUse" and os.access(shim, os.R_OK)
        assert command == str(ws / ".evalens-package" / "hooks" / "block.sh")
        assert os.access(command, os.X_OK)
        assert (ws / rules).read_text() == "Always be brief."
        manifest = json.loads((ws / "package.agent.json").read_text())
        assert manifest["name"] == "test-pkg" and manifest["skills"] == ["skills/greeter"]
    # Codex writes through its shell: a Write|Edit matcher must also catch it there.
    example = read_package(REPO / "examples" / "pdf-tools")
    ws = tmp_path / "example-codex"
    ws.mkdir()
    install_package(example, get_engine("codex"), SandboxPaths(ws, ws, ws / "h", ws / "c", ws / "l"))
    group = json.loads((ws / ".codex" / "hooks.json").read_text())["hooks"]["PreToolUse"][0]
    assert group["matcher"] == "Write|Edit|Bash|apply_patch"
    assert shlex.split(group["hooks"][0]["command"])[-1] == str(
        ws / ".evalens-package" / "hooks" / "block-secrets.sh"
    )


def test_process_tree_includes_orphans_in_session() -> None:
    proc = subprocess.Popen(["sh", "-c", "sleep 30 & sleep 30"], start_new_session=True)
    try:
        import time

        deadline = time.monotonic() + 5
        while len(process_tree(proc.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(process_tree(proc.pid)) >= 3
        from evalens.runner.sandbox import kill_tree

        kill_tree(proc.pid)
        proc.wait(timeout=5)
        assert process_tree(proc.pid) == set()
    finally:
        if proc.poll() is None:
            proc.kill()


# --------------------------------------------------------------------------- reports and CLI


def test_cli_unsupported_engine_exits_2_and_starts_nothing(
    tmp_path: Path, model_env, sandbox_dir: Path
) -> None:
    pkg = make_package(tmp_path / "pkg", cases={"a": case("pass")})
    before = len(model_env.records)
    for engine in ("copilot", "cursor"):
        out = evalens_cli("eval", "--package", str(pkg), "--engine", engine)
        assert out.returncode == 2
        assert "unsupported engine" in out.stderr and engine in out.stderr
    assert len(model_env.records) == before and list(sandbox_dir.iterdir()) == []
    assert not (pkg / "evals" / "reports").exists()


@pytest.mark.parametrize("engine", ["claude-code", "codex"])
async def test_missing_key_fails_before_any_agent(
    engine: str, tmp_path: Path, model_env, sandbox_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg = make_package(tmp_path / "pkg", engine=engine, cases={"a": case("pass")})
    before = len(model_env.records)
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var)
    with pytest.raises(RunError) as err:
        await run_cases(RunRequest(package_root=pkg))
    message = str(err.value)
    key = "ANTHROPIC_API_KEY" if engine == "claude-code" else "OPENAI_API_KEY"
    assert (
        message.startswith("cannot start (no agent was started): no API key") and f"export {key}=" in message
    )
    assert "\n" not in message
    assert len(model_env.records) == before and list(sandbox_dir.iterdir()) == []
    out = evalens_subprocess(  # a coroutine: the command runs its own event loop
        ["eval", "--package", str(pkg)], env={**os.environ, "ANTHROPIC_API_KEY": "", "OPENAI_API_KEY": ""}
    )
    assert out.returncode == 2 and out.stderr.count("cannot start") == 1 and "Traceback" not in out.stderr


def test_dry_run_calls_nothing(tmp_path: Path, model_env, sandbox_dir: Path) -> None:
    pkg = make_package(
        tmp_path / "pkg", cases={"a": case("pass", contains=["GREETING-OK"]), "b": case("pass")}
    )
    before = len(model_env.records)
    out = evalens_cli("eval", "--package", str(pkg), "--dry-run", "--json", "a")
    assert out.returncode == 0, out.stderr
    plan = json.loads(out.stdout)
    assert [c["name"] for c in plan["cases"]] == ["a"] and plan["engine"] == "claude-code"
    assert "EVAL_CFG_VAR" in plan["env_passed"] and "OPENAI_API_KEY" not in plan["env_passed"]
    text = evalens_cli("eval", "--package", str(pkg), "--dry-run")
    assert "sandbox:" in text.stdout and "contains 'GREETING-OK'" in text.stdout
    assert len(model_env.records) == before and list(sandbox_dir.iterdir()) == []
    assert not (pkg / "evals" / "reports").exists()
    with pytest.raises(RunError, match="no case named nope"):
        plan_run(RunRequest(package_root=pkg, cases=["nope"]))
    with pytest.raises(RunError, match="no eval cases selected"):
        plan_run(RunRequest(package_root=pkg, target="skill:none"))


def _fake_report(pkg: Path, name: str, verdicts: dict[str, str]) -> Path:
    from evalens.core.models.uaaps import EvalReport
    from evalens.runner.report import write_report

    cases = [
        {"name": n, "verdict": v, "checks": [{"kind": "contains", "value": "A", "status": "PASS"}]}
        for n, v in verdicts.items()
    ]
    passed = sum(v == "PASS" for v in verdicts.values())
    report = EvalReport.model_validate(
        {
            "version": 1,
            "id": f"eval-run-{name}",
            "timestamp": "2026-01-01T00:00:00Z",
            "config": {"engine": "claude-code"},
            "summary": {
                "total": len(cases),
                "passed": passed,
                "failed": len(cases) - passed,
                "skipped": 0,
                "pass_rate": passed / len(cases),
            },
            "cases": cases,
        }
    )
    return write_report(report, pkg / "evals" / "reports" / f"{name}.json")


def test_report_diff_and_last_results(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    a = _fake_report(pkg, "2026-01-01T00-00-00Z", {"x": "PASS", "y": "FAIL"})
    b = _fake_report(pkg, "2026-01-02T00-00-00Z", {"x": "PASS", "y": "PASS", "z": "ERROR"})
    jsonschema.validate(json.loads(b.read_text()), REPORT_SCHEMA)
    out = evalens_cli("eval", "diff", str(a), str(b), "--json")
    diff = json.loads(out.stdout)
    assert diff["pass_rate_change"] == pytest.approx(2 / 3 - 0.5, abs=1e-3)
    assert diff["changes"] == [
        {"name": "y", "before": "FAIL", "after": "PASS"},
        {"name": "z", "before": None, "after": "ERROR"},
    ]
    assert "pass rate" in evalens_cli("eval", "diff", str(a), str(b)).stdout
    last = load_last_results(pkg)
    assert set(last) == {"x", "y", "z"} and last["z"].verdict == "ERROR"
    import time

    time.sleep(0.01)
    _fake_report(pkg, "2026-01-03T00-00-00Z", {"y": "FAIL"})  # a one-case run (e.g. from the code lens)
    last = load_last_results(pkg)
    assert (last["y"].verdict, last["x"].verdict, last["z"].verdict) == ("FAIL", "PASS", "ERROR")
    assert last["x"].checks[0].value == "A"
    assert not list((pkg / "evals" / "reports").glob(".*.tmp"))


def test_sweep_removes_only_abandoned_sandboxes(sandbox_dir: Path) -> None:
    from evalens.runner.sandbox import create_sandbox, keep_sandbox, remove_sandbox, sweep_stale_sandboxes

    live, kept, abandoned = create_sandbox(), create_sandbox(), create_sandbox()
    keep_sandbox(kept)
    from evalens.runner import sandbox as sb

    sb._unlock(abandoned.root)  # what a SIGKILLed runner leaves: no lock holder
    old = 1_000_000_000
    for paths in (live, kept, abandoned):
        os.utime(paths.root, (old, old))
    assert sweep_stale_sandboxes() == [abandoned.root]
    assert live.root.exists() and kept.root.exists() and not abandoned.root.exists()
    remove_sandbox(live)
    remove_sandbox(kept)


def _stream(tmp_path: Path, events: list[dict]) -> tuple[Path, Path]:
    out, err = tmp_path / "events.jsonl", tmp_path / "stderr.txt"
    out.write_text("warning: not json\n" + "\n".join(json.dumps(e) for e in events))
    err.write_text("")
    return out, err


@pytest.mark.parametrize(
    "blocking_event",
    [
        {
            "type": "system",
            "subtype": "hook_response",
            "exit_code": 2,
            "stderr": "BLOCKED",
            "hook_name": "PreToolUse:Write",
        },
        {
            "type": "system",
            "subtype": "hook_response",
            "exit_code": 0,
            "hook_name": "PreToolUse:Write",
            "stdout": '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no"}}',
        },
    ],
)
def test_claude_blocked_detection(tmp_path: Path, blocking_event: dict) -> None:
    from evalens.runner.engines.claude_code import ClaudeCode

    events = [
        {"type": "system", "subtype": "init", "model": "claude-x[1m]", "session_id": "s"},
        blocking_event,
    ]
    if blocking_event["type"] != "result":
        events.append({"type": "result", "subtype": "success", "is_error": False, "result": "done"})
    t = ClaudeCode().parse(
        SandboxPaths(tmp_path, tmp_path, tmp_path, tmp_path, tmp_path), *_stream(tmp_path, events), 0
    )
    assert t.blocked and t.model == "claude-x" and t.error is None


@pytest.mark.parametrize(
    "not_blocking",
    [
        # PostToolUse runs after the tool: its exit 2 blocks nothing.
        {
            "type": "system",
            "subtype": "hook_response",
            "exit_code": 2,
            "stderr": "late",
            "hook_name": "PostToolUse:Write",
            "hook_event": "PostToolUse",
        },
        # Text anyone can print (a tool's output) is never a block.
        {
            "type": "user",
            "message": {
                "content": [
                    {
                        "type": "tool_result",
                        "is_error": True,
                        "content": "PreToolUse:Write hook error: BLOCKED",
                    }
                ]
            },
        },
        {
            "type": "assistant",
            "message": {"content": [{"type": "text", "text": "blocked by PreToolUse hook"}]},
        },
    ],
)
def test_claude_not_blocked_by_text_or_post_hooks(tmp_path: Path, not_blocking: dict) -> None:
    from evalens.runner.engines.claude_code import ClaudeCode

    events = [not_blocking, {"type": "result", "subtype": "success", "is_error": False, "result": "done"}]
    t = ClaudeCode().parse(
        SandboxPaths(tmp_path, tmp_path, tmp_path, tmp_path, tmp_path), *_stream(tmp_path, events), 0
    )
    assert not t.blocked and t.error is None


def test_a_permission_denial_is_no_hook_block(tmp_path: Path) -> None:
    """Issue 42, attack 10: the agent wrote a deny rule into the settings Claude Code reloads, then ran the
    denied command. Claude Code's permission rules are not a hook of the case's package: nothing was blocked."""
    from evalens.runner.engines.claude_code import ClaudeCode

    events = [
        {"type": "system", "subtype": "init", "model": "claude-x", "session_id": "s"},
        {"type": "result", "subtype": "success", "is_error": False, "result": "x",
         "permission_denials": [{"tool_name": "Bash", "tool_use_id": "t1"}]},
    ]  # fmt: skip
    t = ClaudeCode().parse(
        SandboxPaths(tmp_path, tmp_path, tmp_path, tmp_path, tmp_path), *_stream(tmp_path, events), 0
    )
    assert not t.blocked and not t.blocked_reasons and t.error is None


def test_codex_blocks_come_from_hook_records(tmp_path: Path) -> None:
    """Codex: the shim's records decide; agent text saying "blocked by PreToolUse hook" does not."""
    from evalens.runner.engines.codex import HOOK_RECORDS, Codex

    paths = SandboxPaths(tmp_path, tmp_path / "ws", tmp_path / "h", tmp_path / "c", tmp_path / "l")
    records = paths.config_home / HOOK_RECORDS
    records.mkdir(parents=True)
    events = [
        {"type": "thread.started", "thread_id": "t"},
        {
            "type": "item.completed",
            "item": {"type": "agent_message", "text": "Command blocked by PreToolUse hook"},
        },
        {"type": "turn.completed", "usage": {}},
    ]
    assert not Codex().parse(paths, *_stream(tmp_path, events), 0).blocked
    for name, event, rc, out, err in (
        ("1-1", "PostToolUse", "2", "", "late"),
        ("2-1", "PreToolUse", "0", "{}", ""),
    ):
        for suffix, text in ((".event", event), (".rc", rc), (".out", out), (".err", err)):
            (records / f"{name}{suffix}").write_text(text + "\n")
    assert not Codex().parse(paths, *_stream(tmp_path, events), 0).blocked
    deny = (
        '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "policy says no"}}'
    )
    for name, rc, out, err in (("3-1", "2", "", "BLOCKED_BY_POLICY: no writes"), ("4-1", "0", deny, "")):
        for suffix, text in ((".event", "PreToolUse"), (".rc", rc), (".out", out), (".err", err)):
            (records / f"{name}{suffix}").write_text(text + "\n")
    t = Codex().parse(paths, *_stream(tmp_path, events), 0)
    assert t.blocked and t.blocked_reasons == [
        "PreToolUse hook: BLOCKED_BY_POLICY: no writes",
        "PreToolUse hook: policy says no",
    ]


def test_claude_and_codex_errors_and_outputs(tmp_path: Path) -> None:
    from evalens.runner.engines.claude_code import ClaudeCode
    from evalens.runner.engines.codex import Codex

    paths = SandboxPaths(tmp_path, tmp_path, tmp_path, tmp_path, tmp_path)
    t = ClaudeCode().parse(
        paths,
        *_stream(
            tmp_path,
            [{"type": "result", "is_error": True, "api_error_status": 500, "result": "API Error: 500"}],
        ),
        1,
    )
    assert t.error and "500" in t.error
    t = ClaudeCode().parse(
        paths,
        *_stream(
            tmp_path, [{"type": "assistant", "message": {"content": [{"type": "text", "text": "partial"}]}}]
        ),
        0,
    )
    assert t.output == "partial" and "no result event" in t.error
    t = Codex().parse(
        paths,
        *_stream(
            tmp_path,
            [
                {"type": "thread.started", "thread_id": "th"},
                {"type": "item.completed", "item": {"type": "error", "message": "Model metadata not found"}},
                {
                    "type": "item.completed",
                    "item": {"type": "command_execution", "command": "cat .agents/skills/greeter/SKILL.md"},
                },
                {"type": "item.completed", "item": {"type": "agent_message", "text": "DONE"}},
                {"type": "turn.completed", "usage": {"input_tokens": 1}},
            ],
        ),
        0,
    )
    # Codex's stream names no skill: its one skill sign is a read of an installed SKILL.md, which its reader
    # marks on the call with the engine's own evidence (the record's skills_activated), not a text match
    assert (t.output, t.session_id, t.error, t.skills_activated) == ("DONE", "th", None, [])
    [call] = [c for turn in Codex().conversation(t, paths, Bounds()).turns for c in turn.tool_calls]
    assert call.skill == "greeter" and Codex().skill_evidence(call, str(tmp_path)) == (
        "greeter",
        "skill-read",
        "cat .agents/skills/greeter/SKILL.md",
    )
    # each engine's own reader names the tool calls as Claude Code does (what skilljack's tool checks say)
    assert t.tool_calls == [{"tool": "Bash", "input": {"command": "cat .agents/skills/greeter/SKILL.md"}}]
    # a command that only names the path reads nothing (the text match this replaced counted it)
    echo = {"type": "command_execution", "command": "echo .agents/skills/greeter/SKILL.md"}
    t = Codex().parse(paths, *_stream(tmp_path, [{"type": "item.completed", "item": echo}]), 0)
    [call] = [c for turn in Codex().conversation(t, paths, Bounds()).turns for c in turn.tool_calls]
    assert call.skill is None
    t = Codex().parse(
        paths,
        *_stream(
            tmp_path,
            [
                {"type": "item.completed", "item": {"type": "file_change", "changes": [{"path": "a.txt"}]}},
                {"type": "item.completed", "item": {"type": "web_search", "query": "q"}},
                {"type": "item.completed", "item": {"type": "mcp_tool_call", "tool": "lookup"}},
                {"type": "item.completed", "item": {"type": "reasoning", "text": "thinking"}},
                {"type": "turn.completed", "usage": {"input_tokens": 1}},
            ],
        ),
        0,
    )
    assert [c["tool"] for c in t.tool_calls] == ["Write", "WebSearch", "lookup"]
    t = ClaudeCode().parse(
        paths,
        *_stream(
            tmp_path,
            [
                {
                    "type": "assistant",
                    "message": {
                        "content": [
                            {"type": "text", "text": "on it"},
                            {"type": "tool_use", "name": "Skill", "input": {"skill": "greeter"}},
                            {"type": "tool_use", "name": "Write", "input": {"file_path": "a.txt"}},
                        ]
                    },
                },
                {"type": "result", "result": "done"},
            ],
        ),
        0,
    )
    assert t.tool_calls == [
        {"tool": "Skill", "input": {"skill": "greeter"}},
        {"tool": "Write", "input": {"file_path": "a.txt"}},
    ]
    assert t.skills_activated == ["greeter"]
    t = Codex().parse(
        paths,
        *_stream(
            tmp_path,
            [
                {"type": "error", "message": "unexpected status 401"},
                {"type": "turn.failed", "error": {"message": "401"}},
            ],
        ),
        1,
    )
    assert t.error and "401" in t.error
