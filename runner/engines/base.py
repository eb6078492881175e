"""What every agent engine adapter provides: how to install into a workspace, launch headless, and read the trace.

An engine knows its CLI (flags, env, config files) and its event-stream shape; it knows nothing of sandboxing,
timeouts or verdicts. The runner gives it an :class:`Invocation` and gets back an :class:`AgentCommand`, then
hands the captured streams to :meth:`Engine.parse` to get a typed :class:`Transcript`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalens.core.engines import judge_provider
from evalens.runner import probe_cache
from evalens.runner.engines.conversation import Builder, Conversation


class EngineNotFound(Exception):
    """The engine's CLI binary cannot be found; the message says where evalens looked."""


@dataclass(slots=True)
class SandboxPaths:
    """Per-run directories; all private to one case run and removed afterwards."""

    root: Path  # the run directory (holds everything below)
    workspace: Path  # the agent's cwd
    home: Path  # fresh HOME
    config_home: Path  # engine config dir (CLAUDE_CONFIG_DIR / CODEX_HOME)
    logs: Path  # captured stdout/stderr, bridge sockets


@dataclass(frozen=True, slots=True)
class Invocation:
    """What one agent run asks of its engine, built once by the sandbox (``launch_agent``) when its confinement is
    decided, so every engine's :meth:`Engine.command` reads the same inputs under the same names."""

    paths: SandboxPaths
    prompt: str
    model: str | None  # None: the engine's own default model
    env: Mapping[str, str]  # the already-filtered environment the agent will get (endpoints rewritten)
    outer_sandbox: bool  # bubblewrap confines the agent; False: only the engine's own sandbox, if any
    network: bool  # the agent may reach the network (beyond its model endpoints)


@dataclass(slots=True)
class AgentCommand:
    """A fully specified headless invocation: argv, the engine's own env additions, files it reads at start."""

    argv: list[str]
    env: dict[str, str]
    stdout_name: str = "stdout.jsonl"
    stderr_name: str = "stderr.txt"
    # Whether the engine should rely on its own sandbox (no outer bubblewrap) — informative only.
    engine_sandbox: bool = False
    # The same command with the engine's own sandbox off, for when an outer read-only workspace rules it out.
    argv_without_own_sandbox: list[str] | None = None


@dataclass(slots=True)
class Transcript:
    """The engine-neutral facts the checks and the judge need, extracted from the event stream."""

    output: str = ""
    events: list[dict[str, Any]] = field(default_factory=list)
    model: str | None = None
    session_id: str | None = None
    blocked: bool = False
    blocked_reasons: list[str] = field(default_factory=list)
    # skills the stream itself names (Claude Code's Skill calls); the run record adds each call its reader marks
    # with the engine's skill evidence (a Codex SKILL.md read), and that is the run's list (record.skills_activated)
    skills_activated: list[str] = field(default_factory=list)
    # {tool, input} per call, named as Claude Code names its tools (what skilljack's tool checks are written in)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None  # set when the agent failed (API error, crash, missing result)
    api_status: int | None = None  # the HTTP status of the model API error the engine reported, if any
    exit_code: int | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    extra_files: dict[str, Path] = field(default_factory=dict)  # artifact name → source (rollout, transcript)
    # what the reader met and does not read (an event type or item type a newer CLI added), each once with its
    # count: tolerated while the run's own outcome is readable, named in the error when it is not
    unread: dict[str, int] = field(default_factory=dict)

    def skip(self, what: str) -> None:
        """Note a shape the reader does not read (``system/task_notification``, ``item collab_tool_call``)."""
        self.unread[what] = self.unread.get(what, 0) + 1

    def unread_note(self) -> str:
        """The shapes the reader skipped, for an error message; empty when it read everything."""
        if not self.unread:
            return ""
        shown = ", ".join(f"{k} ×{n}" if n > 1 else k for k, n in list(self.unread.items())[:8])
        more = f" and {len(self.unread) - 8} more" if len(self.unread) > 8 else ""
        return f"; the stream held shapes evalens does not read: {shown}{more}"

    def to_json(self) -> dict[str, Any]:
        return {
            "output": self.output,
            "model": self.model,
            "session_id": self.session_id,
            "blocked": self.blocked,
            "blocked_reasons": self.blocked_reasons,
            "skills_activated": self.skills_activated,
            "error": self.error,
            "exit_code": self.exit_code,
            "usage": self.usage,
        }


READ_LIMIT = 64 << 20  # bytes of one trace file the runner reads (the agent may write the engine's files)


def json_event(line: bytes | str) -> dict[str, Any] | None:
    """One line of an engine's JSON lines (its event stream, a trace or a rollout file) as its object; None for
    anything else (a warning the CLI printed, a torn line, an array or a scalar): never read as an event. Every
    reader of those lines, live or finished, goes through it, so they agree on what an event is."""
    text = (line.decode("utf-8", errors="replace") if isinstance(line, bytes) else line).strip()
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def read_jsonl(path: Path, limit: int = READ_LIMIT) -> list[dict[str, Any]]:
    """Parse JSON lines, skipping non-JSON noise (both CLIs may print warnings to stdout). Reads at most ``limit``
    bytes of a regular file, never through a link (engine files live where the agent can write)."""
    events: list[dict[str, Any]] = []
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return events
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return events
        remaining = limit
        while remaining > 0 and (raw := fh.readline(remaining)):
            remaining -= len(raw)
            if (event := json_event(raw)) is not None:
                events.append(event)
    return events


def tools_bin_dirs() -> list[Path]:
    """Private CLI installs looked at before PATH: ``$EVALENS_TOOLS_DIR`` or a source checkout's ``.tools``."""
    dirs: list[Path] = []
    env_dir = os.environ.get("EVALENS_TOOLS_DIR")
    if env_dir:
        dirs.append(Path(env_dir) / "node" / "node_modules" / ".bin")
    dirs.append(Path(__file__).resolve().parents[2] / ".tools" / "node" / "node_modules" / ".bin")
    return dirs


def find_binary(name: str, override_env: str, install: str = "") -> Path:
    """Locate a CLI: ``$<override_env>``, then the tools dirs, then PATH. ``install`` is the command that
    installs it, named in the error."""
    override = os.environ.get(override_env)
    if override:
        path = Path(override)
        if path.is_file() and os.access(path, os.X_OK):
            return path
        raise EngineNotFound(
            f"{override_env}={override} is not an executable file (unset it, or point it at the "
            f"`{name}` binary)"
        )
    for directory in tools_bin_dirs():
        candidate = directory / name
        if candidate.exists() and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which(name)
    if found:
        return Path(found)
    fix = f"install it with `{install}`" if install else "install it"
    raise EngineNotFound(
        f"the `{name}` CLI is not on PATH: {fix} (Node.js 18+), or set {override_env} to its path"
    )


_versions: dict[str, tuple[Any, str]] = {}  # binary -> (its file key, its --version line)


def cli_key(binary: str) -> list[Any] | None:
    """What a CLI's ``--version`` depends on, as files: the binary (:func:`~evalens.runner.probe_cache.file_key`)
    and, for a script, its interpreter (``#!/usr/bin/env node``: the ``node`` on PATH; Codex's ``codex.js``), so a
    replaced or removed Node asks again. None when the binary cannot be read."""
    key = probe_cache.file_key(binary)
    if key is None:
        return None
    try:
        with open(key[1], "rb") as fh:
            head = fh.read(256).split(b"\n", 1)[0]
    except OSError:
        return None
    if head.startswith(b"#!"):
        words = head[2:].decode("utf-8", "replace").split()
        if words and os.path.basename(words[0]) == "env":
            words = [w for w in words[1:] if not w.startswith("-")]
            found = shutil.which(words[0]) if words else None
            words = [found] if found else []
        key = [*key, probe_cache.file_key(words[0]) if words else None]
    return key


def binary_version(binary: str, fresh: bool = False) -> str | None:
    """``<binary> --version`` (a few hundred ms per call: Codex starts node), asked once per installed file:
    remembered in this process and across processes (:mod:`~evalens.runner.probe_cache`) under :func:`cli_key`,
    so a first run in a fresh server does not ask again, and an upgraded or replaced CLI is asked at once (also by
    a server that kept running). A failed probe is never remembered; ``fresh`` (``evalens doctor``) asks anyway."""
    key = cli_key(binary)
    if key is not None and not fresh:
        known = _versions.get(binary)
        if known is not None and known[0] == key:
            return known[1]
        remembered = probe_cache.recall("cli-versions", binary, key)
        if isinstance(remembered, str):
            _versions[binary] = (key, remembered)
            return remembered
    try:
        out = subprocess.run(
            [binary, "--version"], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (out.stdout or out.stderr).strip().splitlines()
    version = text[0].strip() if text else None
    # only a clean answer of a file that did not change meanwhile is remembered
    if version is not None and out.returncode == 0 and key is not None and cli_key(binary) == key:
        _versions[binary] = (key, version)
        probe_cache.remember("cli-versions", binary, key, version)
    return version


def forget_versions() -> None:
    """Forget this process's answers (a test that must see the probe run; the file cache is keyed anyway)."""
    _versions.clear()


def version_tuple(text: str | None) -> tuple[int, ...] | None:
    """The first dotted number of a ``--version`` line (``2.1.332 (Claude Code)``, ``codex-cli 0.171.0``)."""
    match = re.search(r"\d+(?:\.\d+)+", text or "")
    return tuple(int(p) for p in match.group(0).split(".")) if match else None


class Engine(ABC):
    """One agent CLI. Subclasses are stateless apart from the resolved binary."""

    name: str
    binary_name: str
    binary_env: str
    skills_dir: str  # where skills are discovered, relative to the workspace
    rules_file: str  # CLAUDE.md / AGENTS.md
    agents_dir: str | None = None  # where project subagents are discovered, if the engine has such a folder
    key_env: tuple[str, ...]  # env vars that may carry the agent's API key
    endpoint_env: tuple[str, str] | None = None  # (env var, default URL) of the agent's model endpoint
    install_command: str = ""  # how a user installs the CLI
    npm_package: str = ""  # the CLI's package (what .ci/install-agents.sh installs)
    # The CLI versions this evalens was verified against (docs/cli-tracks.md): the oldest still verified and the
    # pin (.ci/install-agents.sh reads the pin from here; the committed cassettes are recorded with it). The one
    # place that holds the range: doctor compares the installed CLI with it, a reader's error names it.
    verified_versions: tuple[str, str] = ("", "")

    def __init__(self) -> None:
        self._binary: Path | None = None

    @property
    def binary(self) -> Path:
        if self._binary is None:
            self._binary = find_binary(self.binary_name, self.binary_env, self.install_command)
        return self._binary

    def version(self) -> str | None:
        return binary_version(str(self.binary))

    def verified(self, version: str | None) -> bool | None:
        """Whether ``version`` (a ``--version`` line) lies in :attr:`verified_versions`; None: unknown."""
        found, low, high = (version_tuple(v) for v in (version, *self.verified_versions))
        if found is None or low is None or high is None:
            return None
        return low <= found <= high

    def verified_range(self) -> str:
        low, high = self.verified_versions
        return f"{low}–{high}" if low != high else low

    def cli_label(self, version: str | None = None) -> str:
        """The CLI by name and version for an error message (``claude 2.1.332, verified 2.1.197–2.1.332``): a
        reader that cannot read a stream says which CLI wrote it, and whether evalens was verified with it."""
        if version is None:
            try:
                version = self.version()
            except EngineNotFound:
                version = None
        found = version_tuple(version)
        label = (
            f"{self.binary_name} {'.'.join(map(str, found)) if found else version or 'of unknown version'}"
        )
        if self.verified_versions[1]:
            label += f", verified {self.verified_range()}"
        return label

    @property
    def default_provider(self) -> str:
        """The provider of the agent's own model ("anthropic" / "openai"), as the engine registry declares."""
        return judge_provider(self.name)

    @abstractmethod
    def command(self, invocation: Invocation) -> AgentCommand:
        """Build the headless command line of one run, and the files the engine reads at its start."""

    @abstractmethod
    def install_hooks(self, paths: SandboxPaths, hooks: dict[str, Any]) -> None:
        """Write normalised Claude-style hook settings where this engine reads project hooks."""

    def settings_dirs(self, paths: SandboxPaths) -> tuple[Path, ...]:
        """The workspace folders the engine reads its project settings (and the package's hooks) from, which the
        sandbox makes read-only: an agent that rewrites them mid-run could add a hook or rule of its own and
        have its block counted as the package's (issue 42)."""
        return ()

    @abstractmethod
    def parse(self, paths: SandboxPaths, stdout: Path, stderr: Path, exit_code: int | None) -> Transcript:
        """Turn captured output into a :class:`Transcript`; sets ``error`` when the run is unusable."""

    def model_endpoints(self, env: dict[str, str]) -> list[str]:
        """Base URLs the agent must reach for its model (bridged into a network-less sandbox)."""
        return []

    def live_reader(self, paths: SandboxPaths) -> Any:
        """A reader of the event stream one event at a time, for the turns shown while the agent runs
        (:mod:`evalens.runner.live`); None: this engine's turns are not streamed."""
        return None

    def usage_source(self, paths: SandboxPaths) -> Any:
        """Where this engine reports each model call while it runs (:class:`~evalens.runner.run_limits.UsageSource`),
        for the per-run limits; None: it reports none, and per-run limits cannot be enforced (preflight says so)."""
        return None

    def live_hook_records(self, paths: SandboxPaths) -> Path | None:
        """A folder of hook-run records written while the agent runs (engines whose stream omits hooks)."""
        return None

    def skill_evidence(self, call: Any, workspace: str | None) -> tuple[str, str, str] | None:
        """What one tool call of this engine's reader (a ``run_record.ToolCall``) shows of a skill firing
        (docs/triggers.md): the skill as the call names it, how (``tool-call`` / ``skill-read``) and the
        argument to show; None: nothing. Default: nothing, so only the skills the reader reports the engine
        injected count (:func:`evalens.runner.trigger_detect.detect`)."""
        return None

    def conversation(self, transcript: Transcript, paths: SandboxPaths, bounds: Any) -> Any:
        """What the trace says the agent did (:class:`~evalens.runner.engines.conversation.Conversation`: turns,
        tool calls, hooks, usage), read while the sandbox still exists. Default: the final output as one turn."""
        build = Builder(bounds)
        build.add_text(build.new_turn(), transcript.output)
        return Conversation(turns=build.finish(), sources=["events.jsonl"])
