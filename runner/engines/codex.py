"""Codex (`codex exec --json`) as an eval engine: a custom Responses provider, `.agents/skills`, `.codex/hooks.json`.

Invocation, config and detection follow shared/reference/agent-clis.md §3 (verified against codex-cli 0.169).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from evalens.runner.engines.base import AgentCommand, Engine, Invocation, SandboxPaths, Transcript, read_jsonl
from evalens.runner.engines.claude_code import _stderr_tail
from evalens.runner.engines.codex_record import (
    SKILLS_DIR,
    LiveReader,
    RolloutUsage,
    conversation,
    skill_read,
    stream_usage,
)
from evalens.runner.engines.hooks import BLOCKING_EVENTS, hook_denials
from evalens.runner.run_limits import JsonlTail, UsageSource

DEFAULT_OPENAI_BASE = "https://api.openai.com/v1"
HOOK_RECORDS = (
    "evalens-hook-runs"  # under CODEX_HOME: writable inside the sandbox, which the logs folder is not
)
# `codex exec --json` drops Codex's HookStarted/HookCompleted events and the rollout does not persist them, so
# each hook that can deny a tool call runs through this shim, which records its exit status and stdout for
# Codex.parse (the decision itself stays Codex's: the shim passes stdin, stdout, stderr and status through).
HOOK_SHIM = """#!/bin/sh
# evalens: run one package hook and record how it ended (event, exit status, stdout, stderr).
event=$1; dir=$2; command=$3
mkdir -p "$dir"
n="$(date +%s%N)-$$"
/bin/sh -c "$command" >"$dir/$n.out" 2>"$dir/$n.err"
rc=$?
cat "$dir/$n.out"
cat "$dir/$n.err" >&2
printf '%s\\n' "$event" >"$dir/$n.event"
printf '%s\\n' "$rc" >"$dir/$n.rc"
exit "$rc"
"""
# Codex's error kinds (task_complete.error.codex_error_info) that stand for an HTTP status its message drops.
ERROR_STATUS = {
    "internal_server_error": 500,
    "server_overloaded": 503,
    "unauthorized": 401,
    "bad_request": 400,
    "usage_limit_exceeded": 429,
}


def _toml_str(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string


class Codex(Engine):
    name = "codex"
    binary_name = "codex"
    binary_env = "EVALENS_CODEX_BIN"
    skills_dir = SKILLS_DIR
    rules_file = "AGENTS.md"
    key_env = ("OPENAI_API_KEY", "CODEX_API_KEY")
    endpoint_env = ("OPENAI_BASE_URL", DEFAULT_OPENAI_BASE)
    install_command = "npm install -g @openai/codex"
    npm_package = "@openai/codex"
    verified_versions = ("0.169.0", "0.171.0")

    def command(self, invocation: Invocation) -> AgentCommand:
        paths, env, model = invocation.paths, invocation.env, invocation.model
        key_var = next((k for k in self.key_env if env.get(k)), "OPENAI_API_KEY")
        hooks = (paths.workspace / ".codex" / "hooks.json").is_file()
        lines = []
        if model:
            lines.append(f"model = {_toml_str(model)}")
        lines += [
            'model_provider = "evalens"',
            "check_for_update_on_startup = false",
            "",
            "[model_providers.evalens]",
            'name = "evalens"',
            f"base_url = {_toml_str(env.get('OPENAI_BASE_URL') or DEFAULT_OPENAI_BASE)}",
            f"env_key = {_toml_str(key_var)}",
            'wire_api = "responses"',
            "supports_websockets = false",
            "request_max_retries = 1",
            "stream_max_retries = 1",
            "",
            "[analytics]",
            "enabled = false",
            "",
            "[features]",
            "plugins = false",
            f"hooks = {'true' if hooks else 'false'}",
            "",
            f"[projects.{_toml_str(str(paths.workspace))}]",
            'trust_level = "trusted"',
        ]
        lines += [
            "",
            "[sandbox_workspace_write]",
            f"network_access = {'true' if invocation.network else 'false'}",
        ]
        paths.config_home.mkdir(parents=True, exist_ok=True)
        (paths.config_home / "config.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
        argv = [str(self.binary), "exec", "--json", "--skip-git-repo-check"]
        tail = (["--dangerously-bypass-hook-trust"] if hooks else []) + ["--", invocation.prompt]
        own_env = {"HOME": str(paths.home), "CODEX_HOME": str(paths.config_home)}
        # Codex's own sandbox also runs nested inside evalens' bubblewrap (agent-clis.md §7.4): its tool commands
        # then cannot write CODEX_HOME, where Codex keeps the rollout the runner reads. It needs a writable
        # workspace (it mounts over .git, .aws… there), so with writable-paths the outer sandbox confines alone.
        return AgentCommand(
            argv=[*argv, "--sandbox", "workspace-write", *tail],
            env=own_env,
            engine_sandbox=not invocation.outer_sandbox,
            argv_without_own_sandbox=[*argv, "--dangerously-bypass-approvals-and-sandbox", *tail],
        )

    def settings_dirs(self, paths: SandboxPaths) -> tuple[Path, ...]:
        return (paths.workspace / ".codex",)  # the package's hooks.json

    def install_hooks(self, paths: SandboxPaths, hooks: dict[str, Any]) -> None:
        """Codex edits files through its shell (hook tool name ``Bash``) and ``apply_patch``, never through
        ``Write``/``Edit``: a matcher naming those also matches Codex's file-changing tools."""
        hooks = json.loads(json.dumps(hooks))
        for groups in hooks.values():
            for group in groups:
                matcher = group.get("matcher")
                if (
                    isinstance(matcher, str)
                    and any(t in matcher for t in ("Write", "Edit"))
                    and "Bash" not in matcher
                    and matcher not in ("", "*")
                ):
                    group["matcher"] = f"{matcher}|Bash|apply_patch"
        shim = paths.config_home / "evalens-hook-shim.sh"
        shim.parent.mkdir(parents=True, exist_ok=True)
        shim.write_text(HOOK_SHIM, encoding="utf-8")
        shim.chmod(0o755)
        records = paths.config_home / HOOK_RECORDS
        for event, groups in hooks.items():
            if event not in BLOCKING_EVENTS:
                continue
            for group in groups:
                for hook in group.get("hooks") or []:
                    if hook.get("type", "command") == "command" and isinstance(hook.get("command"), str):
                        hook["command"] = " ".join(
                            shlex.quote(a)
                            for a in ("/bin/sh", str(shim), event, str(records), hook["command"])
                        )
        target = paths.workspace / ".codex" / "hooks.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({"hooks": hooks}, indent=2), encoding="utf-8")

    def model_endpoints(self, env: dict[str, str]) -> list[str]:
        return [env.get("OPENAI_BASE_URL") or DEFAULT_OPENAI_BASE]

    def live_reader(self, paths: SandboxPaths) -> Any:
        return LiveReader(str(paths.workspace))

    def usage_source(self, paths: SandboxPaths) -> Any:
        """The rollout's per-response usage records as they are written (``--json`` has only the total, at the
        end: it still counts, for a run whose rollout is missing)."""
        return UsageSource(
            stream=stream_usage,
            files=JsonlTail(paths.config_home, "sessions/**/rollout-*.jsonl"),
            record=RolloutUsage(),
        )

    def live_hook_records(self, paths: SandboxPaths) -> Path | None:
        return paths.config_home / HOOK_RECORDS

    def conversation(self, transcript: Transcript, paths: SandboxPaths, bounds: Any) -> Any:
        return conversation(transcript, bounds, str(paths.workspace), paths.config_home / HOOK_RECORDS)

    def skill_evidence(self, call: Any, workspace: str | None) -> tuple[str, str, str] | None:
        return skill_read(call, workspace)

    def parse(self, paths: SandboxPaths, stdout: Path, stderr: Path, exit_code: int | None) -> Transcript:
        events = read_jsonl(stdout)
        t = Transcript(events=events, exit_code=exit_code)
        texts: list[str] = []
        errors: list[str] = []
        completed = False
        for ev in events:
            completed |= _read_stream_event(t, ev, texts, errors)
        status = _read_rollouts(t, paths)
        for reason in hook_denials(paths.config_home / HOOK_RECORDS):
            t.blocked = True
            t.blocked_reasons.append(reason)
        t.output = "\n".join(texts)
        if t.error is not None:  # the reader could not read the answer: never a verdict on a guess
            t.error += f" (from {self.cli_label()}){t.unread_note()}"
        elif errors:
            final = [e for e in errors if not e.startswith("Reconnecting...")] or errors
            status = status or _status_in(final[-1])
            t.api_status = status
            t.error = f"agent error{f' (API status {status})' if status else ''}: " + final[-1][:400]
        elif not completed:
            t.error = (
                f"the agent did not complete its turn ({self.cli_label()}){t.unread_note()}"
                + _stderr_tail(stderr)
            )
        elif exit_code not in (0, None):
            t.error = f"agent exited with status {exit_code}" + _stderr_tail(stderr)
        return t


CLAUDE_TOOL_NAMES = {"command_execution": "Bash", "file_change": "Write", "web_search": "WebSearch"}
"""Codex's item types under the Claude Code tool names skilljack's tool checks are written in (an MCP call keeps
its own tool name)."""
QUIET_ITEMS = frozenset({"reasoning", "todo_list", "error", "user_message"})
"""Items that are no tool call and no answer (``error`` items are warnings such as the fallback model metadata)."""
STREAM_EVENTS = frozenset(
    {
        "thread.started",
        "turn.started",
        "turn.completed",
        "turn.failed",
        "item.started",
        "item.updated",
        "error",
    }
)
"""``--json`` events seen from codex-cli 0.169 to 0.171 besides ``item.completed``; others are noted as unread."""


def _read_stream_event(t: Transcript, ev: dict[str, Any], texts: list[str], errors: list[str]) -> bool:
    """One ``--json`` event into the transcript; True for ``turn.completed`` (the turn ended normally). An item
    type a newer Codex added is kept as a tool call under its own name (a check that no tool ran must not pass on
    a call the reader did not know) and noted as unread; an answer whose text is not text is an error."""
    kind = ev.get("type")
    if kind == "thread.started":
        t.session_id = ev.get("thread_id")
    elif kind == "item.completed":
        raw = ev.get("item")
        item: dict[str, Any] = raw if isinstance(raw, dict) else {}
        item_type = item.get("type")
        if item_type == "agent_message":
            if not isinstance(item.get("text", ""), str):
                t.error = t.error or (
                    f"the agent answered with an agent_message whose text evalens cannot read "
                    f"({type(item['text']).__name__})"
                )
                return False
            texts.append(str(item.get("text", "")))
            return False
        if item_type in QUIET_ITEMS:
            return False
        tool = CLAUDE_TOOL_NAMES.get(str(item_type), str(item.get("tool") or ""))
        if not tool and item_type != "mcp_tool_call":
            t.skip(f"item {item_type!r}")
            tool = str(item_type or "unknown item")
        if tool:
            t.tool_calls.append(
                {"tool": tool, "input": {"command": item.get("command")} if tool == "Bash" else {}}
            )
    elif kind not in STREAM_EVENTS:
        t.skip(f"event {kind!r}")
    if kind == "turn.completed":
        t.usage = {"usage": ev.get("usage")}
        return True
    if kind == "error":
        errors.append(str(ev.get("message", "error")))
    elif kind == "turn.failed":
        errors.append(str((ev.get("error") or {}).get("message", "turn failed")))
    return False


def _read_rollouts(t: Transcript, paths: SandboxPaths) -> int | None:
    """The model and an API error's status from Codex's rollout files (kept as artifacts too)."""
    status: int | None = None
    for rollout in sorted(paths.config_home.glob("sessions/**/rollout-*.jsonl")):
        t.extra_files[f"codex-{rollout.name}"] = rollout
        for entry in read_jsonl(rollout):
            payload = entry.get("payload") or {}
            if entry.get("type") == "turn_context" and payload.get("model"):
                t.model = str(payload["model"])
            if payload.get("type") == "task_complete" and isinstance(payload.get("error"), dict):
                status = _error_status(payload["error"].get("codex_error_info")) or status
    return status


def _error_status(info: Any) -> int | None:
    """An HTTP status from Codex's structured error kind (``"internal_server_error"`` or
    ``{"http_connection_failed": {"http_status_code": 502}}``)."""
    if isinstance(info, str):
        return ERROR_STATUS.get(info)
    if isinstance(info, dict):
        for value in info.values():
            if isinstance(value, dict) and isinstance(value.get("http_status_code"), int):
                return value["http_status_code"]
    return None


def _status_in(message: str) -> int | None:
    """The status Codex writes into some messages (``unexpected status 401 …``, ``last status: 429 …``)."""
    match = re.search(r"(?:unexpected status|last status:)\s*(\d{3})", message)
    return int(match.group(1)) if match else None
