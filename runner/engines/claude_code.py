"""Claude Code (`claude -p`) as an eval engine: stream-json events, project hooks, `.claude/skills`.

Invocation, env and detection follow shared/reference/agent-clis.md §2 (verified against claude 2.1.x).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evalens.runner.engines.base import AgentCommand, Engine, Invocation, SandboxPaths, Transcript, read_jsonl
from evalens.runner.engines.claude_record import LiveReader, UsageReader, conversation
from evalens.runner.engines.conversation import as_int
from evalens.runner.engines.hooks import hook_denial
from evalens.runner.run_limits import UsageSource
from evalens.runner.trigger_detect import installed_skill_md


def _settings_path(paths: SandboxPaths) -> Path:
    return paths.workspace / ".claude" / "settings.json"


def merge_settings(paths: SandboxPaths, extra: dict[str, Any]) -> None:
    """Merge keys into the workspace's `.claude/settings.json` (project settings are the only source loaded)."""
    path = _settings_path(paths)
    data: dict[str, Any] = {}
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key].update(value)
        else:
            data[key] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


def engine_sandbox_settings(network: bool) -> dict[str, Any]:
    """Claude Code's own sandbox, as strict as it goes, for a run bubblewrap cannot confine (issue 40): every
    Bash command sandboxed (Seatbelt on macOS, Claude Code's own bubblewrap on Linux), no way to ask for an
    unsandboxed one, and the CLI refuses to run at all when its sandbox cannot start (``failIfUnavailable``),
    which the run reports as ERROR. Without network the commands reach no host at all (the CLI's own model calls
    are not Bash commands: they still reach the bridge), and the web tools are denied."""
    sandbox: dict[str, Any] = {
        "enabled": True,
        "failIfUnavailable": True,
        "autoAllowBashIfSandboxed": True,
        "allowUnsandboxedCommands": False,
    }
    settings: dict[str, Any] = {"sandbox": sandbox}
    if not network:
        sandbox["network"] = {"allowedDomains": [], "allowLocalBinding": False}
        settings["permissions"] = {"deny": ["WebFetch", "WebSearch"]}
    return settings


def _text_blocks(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    out = []
    for block in content or []:
        if isinstance(block, dict) and block.get("type") == "text":
            out.append(str(block.get("text", "")))
    return out


class ClaudeCode(Engine):
    name = "claude-code"
    binary_name = "claude"
    binary_env = "EVALENS_CLAUDE_BIN"
    skills_dir = ".claude/skills"
    rules_file = "CLAUDE.md"
    agents_dir = ".claude/agents"
    key_env = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
    endpoint_env = ("ANTHROPIC_BASE_URL", "https://api.anthropic.com")
    install_command = "npm install -g @anthropic-ai/claude-code"
    npm_package = "@anthropic-ai/claude-code"
    verified_versions = ("2.1.197", "2.1.332")

    def command(self, invocation: Invocation) -> AgentCommand:
        paths = invocation.paths
        if not invocation.outer_sandbox:
            merge_settings(paths, engine_sandbox_settings(invocation.network))
        argv = [
            str(self.binary),
            "-p",
            invocation.prompt,
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-hook-events",
            "--setting-sources",
            "project",
            "--dangerously-skip-permissions",
        ]
        if invocation.model:
            argv += ["--model", invocation.model]
        own_env = {
            "HOME": str(paths.home),
            "CLAUDE_CONFIG_DIR": str(paths.config_home),
            "IS_SANDBOX": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "CLAUDE_CODE_MAX_RETRIES": invocation.env.get("CLAUDE_CODE_MAX_RETRIES", "1"),
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
        }
        return AgentCommand(argv=argv, env=own_env, engine_sandbox=not invocation.outer_sandbox)

    def install_hooks(self, paths: SandboxPaths, hooks: dict[str, Any]) -> None:
        merge_settings(paths, {"hooks": hooks})

    def settings_dirs(self, paths: SandboxPaths) -> tuple[Path, ...]:
        return (paths.workspace / ".claude",)  # `--setting-sources project`: Claude Code reloads it mid-run

    def model_endpoints(self, env: dict[str, str]) -> list[str]:
        return [env.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com"]

    def live_reader(self, paths: SandboxPaths) -> Any:
        return LiveReader(str(paths.workspace))

    def usage_source(self, paths: SandboxPaths) -> Any:
        return UsageSource(stream=UsageReader())

    def conversation(self, transcript: Transcript, paths: SandboxPaths, bounds: Any) -> Any:
        return conversation(transcript, bounds, str(paths.workspace))

    def skill_evidence(self, call: Any, workspace: str | None) -> tuple[str, str, str] | None:
        """A ``Skill`` call names the skill it fires; a ``Read`` of an installed skill's SKILL.md reads it."""
        value = call.input if isinstance(call.input, dict) else {}
        if call.name == "Skill":
            skill = str(value.get("skill") or "")
            args = value.get("args")
            return skill, "tool-call", skill + (f" {args}" if isinstance(args, str) and args else "")
        if call.name == "Read":
            path = str(value.get("file_path") or "")
            folder = installed_skill_md(path, self.skills_dir, workspace)
            return (folder, "skill-read", path) if folder is not None else None
        return None

    def parse(self, paths: SandboxPaths, stdout: Path, stderr: Path, exit_code: int | None) -> Transcript:
        events = read_jsonl(stdout)
        t = Transcript(events=events, exit_code=exit_code)
        texts: list[str] = []
        results: list[dict[str, Any]] = []
        for ev in events:
            kind = ev.get("type")
            if kind == "system":
                _read_system_event(t, ev)
            elif kind == "assistant":
                _read_assistant_event(t, ev, texts)
            elif kind == "result":
                results.append(ev)
            elif kind not in QUIET_EVENTS:
                t.skip(f"event {kind!r}" if isinstance(kind, str) else "an event without a type")
        if results:
            _read_results(t, results, texts, self.cli_label)
        else:
            t.output = "\n".join(texts)
            t.error = (
                f"the agent produced no result event ({self.cli_label()}){t.unread_note()}"
                + _stderr_tail(stderr)
            )
        if t.error is None and exit_code not in (0, None):
            t.error = f"agent exited with status {exit_code}" + _stderr_tail(stderr)
        if t.session_id:
            for found in paths.config_home.glob(f"projects/*/{t.session_id}.jsonl"):
                t.extra_files["claude-session.jsonl"] = found
        return t


QUIET_EVENTS = frozenset({"user", "stream_event", "rate_limit_event"})
"""Event types the transcript has no use for (tool results are read by the run record, partial messages and rate
limits by nothing), which are therefore not noted as unread."""
SYSTEM_SUBTYPES = frozenset(
    {
        "init",
        "hook_started",
        "hook_progress",
        "hook_response",
        "compact_boundary",
        "status",
        "api_retry",
        "informational",
        "local_command_output",
        "background_tasks_changed",
        "task_started",
        "task_progress",
        "task_updated",
        "task_notification",
    }
)
"""``system`` events seen from Claude Code 2.1.197 to 2.1.332 (the task ones come with background subagents, the
Agent tool's default since 2.1.3xx); any other subtype is noted as unread."""
RESULT_SUBTYPES = frozenset({"success", None})
"""Result subtypes read as the run's end (none at all: the minimal ``{"type": "result", "result": ...}`` of a
scripted CLI); ``error*`` (``error_max_turns``, ``error_during_execution``, ``error_max_budget_usd``) are errors
whatever ``is_error`` says, and any other subtype is unreadable."""


def _read_system_event(t: Transcript, ev: dict[str, Any]) -> None:
    """``init`` names the model and session (a second ``init`` opens the turn a background task's notification
    starts); ``hook_response`` is a hook's own report of what it decided."""
    if ev.get("subtype") not in SYSTEM_SUBTYPES:
        t.skip(f"system/{ev.get('subtype')}")
    if ev.get("subtype") == "init":
        t.model = str(ev.get("model") or t.model or "").split("[", 1)[0] or None
        t.session_id = ev.get("session_id") or t.session_id
    elif ev.get("subtype") == "hook_response":
        reason = hook_denial(
            str(ev.get("hook_event") or str(ev.get("hook_name") or "").split(":", 1)[0]),
            ev.get("exit_code"),
            ev.get("stdout"),
            ev.get("stderr"),
        )
        if reason is not None:
            t.blocked = True
            t.blocked_reasons.append(f"{ev.get('hook_name') or 'hook'}: {reason}")


def _read_assistant_event(t: Transcript, ev: dict[str, Any], texts: list[str]) -> None:
    """The model's text, its tool calls, and the skills it activated through the ``Skill`` tool."""
    message = ev.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list | str):
        t.skip("assistant message without content blocks")
        return
    texts.extend(_text_blocks(content))
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict) or block.get("type") != "tool_use":
            if not isinstance(block, dict) or block.get("type") not in KNOWN_BLOCKS:
                t.skip(
                    f"assistant block {block.get('type') if isinstance(block, dict) else type(block).__name__!r}"
                )
            continue
        t.tool_calls.append({"tool": str(block.get("name")), "input": block.get("input") or {}})
        if block.get("name") == "Skill":
            skill = (block.get("input") or {}).get("skill")
            if skill:
                t.skills_activated.append(str(skill))


KNOWN_BLOCKS = frozenset({"text", "thinking", "redacted_thinking", "tool_use", "server_tool_use"})
"""Assistant content blocks the reader knows (a web search's ``server_tool_use`` and thinking carry nothing a
check reads); others are noted as unread."""


def _read_results(t: Transcript, results: list[dict[str, Any]], texts: list[str], cli: Any) -> None:
    """The ``result`` events: one per turn of the session. Claude Code 2.1.3xx ends a turn again when a background
    task's notification wakes it (``result_index`` 0, 1, …): the output is the last turn's, usage adds up, the cost
    is the session's total so far, and any turn's error is the run's."""
    for result in results:
        _read_result_event(t, result, texts, cli)
        if t.error is not None:
            return
    last = results[-1]
    if len(results) > 1:
        per_turn: list[dict[str, Any]] = [r["usage"] for r in results if isinstance(r.get("usage"), dict)]
        usage: dict[str, int] = {
            key: sum(as_int(u.get(key)) or 0 for u in per_turn)
            for key in (
                "input_tokens",
                "output_tokens",
                "cache_read_input_tokens",
                "cache_creation_input_tokens",
            )
        }
        costs = [r["total_cost_usd"] for r in results if isinstance(r.get("total_cost_usd"), int | float)]
        turns = [r["num_turns"] for r in results if isinstance(r.get("num_turns"), int)]
        durations = [r["duration_ms"] for r in results if isinstance(r.get("duration_ms"), int | float)]
        t.usage = {
            "usage": usage,
            "total_cost_usd": max(costs) if costs else None,
            "num_turns": sum(turns) if turns else None,
            "duration_ms": sum(durations) if durations else last.get("duration_ms"),
        }


def _read_result_event(t: Transcript, result: dict[str, Any], texts: list[str], cli: Any) -> None:
    """One ``result`` event: output, usage, the engine's own denials, and an API error's status. A result whose
    shape evalens cannot read is the run's error, naming the CLI: it must never be read as an answer."""
    subtype = result.get("subtype")
    text = result.get("result")
    flag = result.get("is_error", False)
    if not isinstance(flag, bool) or (text is not None and not isinstance(text, str)):
        field_name, value = ("is_error", flag) if not isinstance(flag, bool) else ("result", text)
        t.error = (
            f"the agent's result event has {'an' if field_name == 'is_error' else 'a'} {field_name} evalens cannot read ({type(value).__name__}, from "
            f"{cli()}){t.unread_note()}"
        )
        return
    if subtype not in RESULT_SUBTYPES and not (isinstance(subtype, str) and subtype.startswith("error")):
        t.error = f"the agent ended with a result evalens cannot read (subtype {subtype!r}, from {cli()})"
        return
    t.session_id = result.get("session_id") or t.session_id
    usage_models = list((result.get("modelUsage") or {}).keys())
    if not t.model and usage_models:
        t.model = usage_models[0].split("[", 1)[0]
    t.usage = {
        "usage": result.get("usage"),
        "total_cost_usd": result.get("total_cost_usd"),
        "num_turns": result.get("num_turns"),
        "duration_ms": result.get("duration_ms"),
    }
    # ``permission_denials`` are Claude Code's permission rules at work, never a block: the rules live in
    # settings the agent may write, and `agent-blocked` means a hook of the case's own package ran and blocked.
    t.output = text if text is not None else "\n".join(texts)
    if flag or subtype not in RESULT_SUBTYPES:
        status = result.get("api_error_status")
        t.api_status = status if isinstance(status, int) and not isinstance(status, bool) else None
        detail = str(result.get("result") or result.get("subtype") or "error")[:300]
        t.error = f"agent error{f' (API status {status})' if status else ''}: {detail}"


def _stderr_tail(stderr: Path) -> str:
    try:
        text = stderr.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""
    return f": {text[-300:]}" if text else ""
