"""Codex (`codex exec --json`) as an eval engine: a custom Responses provider, `.agents/skills`, `.codex/hooks.json`.

Invocation, config and detection follow shared/reference/agent-clis.md §3 (verified against codex-cli 0.169).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evalens.runner.engines.base import AgentCommand, Engine, SandboxPaths, Transcript, read_jsonl
from evalens.runner.engines.claude_code import _stderr_tail

BLOCKED_MARKERS = ("blocked by PreToolUse hook",)
DEFAULT_OPENAI_BASE = "https://api.openai.com/v1"


def _toml_str(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string


class Codex(Engine):
    name = "codex"
    binary_name = "codex"
    binary_env = "EVALENS_CODEX_BIN"
    skills_dir = ".agents/skills"
    rules_file = "AGENTS.md"
    default_provider = "openai"
    key_env = ("OPENAI_API_KEY", "CODEX_API_KEY")
    endpoint_env = ("OPENAI_BASE_URL", DEFAULT_OPENAI_BASE)

    def command(self, paths: SandboxPaths, prompt: str, *, model: str | None, env: dict[str, str],
                outer_sandbox: bool, network: bool) -> AgentCommand:
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
        lines += ["", "[sandbox_workspace_write]", f"network_access = {'true' if network else 'false'}"]
        paths.config_home.mkdir(parents=True, exist_ok=True)
        (paths.config_home / "config.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
        argv = [str(self.binary), "exec", "--json", "--skip-git-repo-check"]
        tail = (["--dangerously-bypass-hook-trust"] if hooks else []) + ["--", prompt]
        own_env = {"HOME": str(paths.home), "CODEX_HOME": str(paths.config_home)}
        # Codex's own sandbox also runs nested inside evalens' bubblewrap (agent-clis.md §7.4): its tool commands
        # then cannot write CODEX_HOME, where Codex keeps the rollout the runner reads. It needs a writable
        # workspace (it mounts over .git, .aws… there), so with writable-paths the outer sandbox confines alone.
        return AgentCommand(argv=[*argv, "--sandbox", "workspace-write", *tail], env=own_env,
                            engine_sandbox=not outer_sandbox,
                            argv_without_own_sandbox=[*argv, "--dangerously-bypass-approvals-and-sandbox", *tail])

    def install_hooks(self, paths: SandboxPaths, hooks: dict[str, Any]) -> None:
        """Codex edits files through its shell (hook tool name ``Bash``) and ``apply_patch``, never through
        ``Write``/``Edit``: a matcher naming those also matches Codex's file-changing tools."""
        hooks = json.loads(json.dumps(hooks))
        for groups in hooks.values():
            for group in groups:
                matcher = group.get("matcher")
                if isinstance(matcher, str) and any(t in matcher for t in ("Write", "Edit")) \
                        and "Bash" not in matcher and matcher not in ("", "*"):
                    group["matcher"] = f"{matcher}|Bash|apply_patch"
        target = paths.workspace / ".codex" / "hooks.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({"hooks": hooks}, indent=2), encoding="utf-8")

    def model_endpoints(self, env: dict[str, str]) -> list[str]:
        return [env.get("OPENAI_BASE_URL") or DEFAULT_OPENAI_BASE]

    def parse(self, paths: SandboxPaths, stdout: Path, stderr: Path, exit_code: int | None) -> Transcript:
        events = read_jsonl(stdout)
        t = Transcript(events=events, exit_code=exit_code)
        texts: list[str] = []
        completed = False
        errors: list[str] = []
        for ev in events:
            kind = ev.get("type")
            if kind == "thread.started":
                t.session_id = ev.get("thread_id")
            elif kind == "item.completed":
                item = ev.get("item") or {}
                if item.get("type") == "agent_message":
                    texts.append(str(item.get("text", "")))
                elif item.get("type") == "command_execution":
                    command = str(item.get("command", "")).replace("\\", "/")
                    marker = "skills/"
                    if marker in command and "SKILL.md" in command:
                        name = command.split(marker, 1)[1].split("/", 1)[0]
                        t.skills_activated.append(name)
            elif kind == "turn.completed":
                completed = True
                t.usage = {"usage": ev.get("usage")}
            elif kind == "error":
                errors.append(str(ev.get("message", "error")))
            elif kind == "turn.failed":
                errors.append(str((ev.get("error") or {}).get("message", "turn failed")))
        rollouts = sorted(paths.config_home.glob("sessions/**/rollout-*.jsonl"))
        for rollout in rollouts:
            t.extra_files[f"codex-{rollout.name}"] = rollout
            for entry in read_jsonl(rollout):
                payload = entry.get("payload") or {}
                if entry.get("type") == "turn_context" and payload.get("model"):
                    t.model = str(payload["model"])
                if payload.get("type") in ("function_call_output", "custom_tool_call_output"):
                    output = payload.get("output")
                    text = output if isinstance(output, str) else json.dumps(output)
                    if any(m in text for m in BLOCKED_MARKERS):
                        t.blocked = True
                        t.blocked_reasons.append(text[:300])
        t.output = "\n".join(texts)
        if errors:
            t.error = "agent error: " + "; ".join(errors)[:400]
        elif not completed:
            t.error = "the agent did not complete its turn" + _stderr_tail(stderr)
        elif exit_code not in (0, None):
            t.error = f"agent exited with status {exit_code}" + _stderr_tail(stderr)
        return t
