"""What a run needs before any agent starts: the engine's CLI, the agent's and the judge's keys and SDKs, the
judge's provider, the sandbox and writable temp space. One list of checks feeds three faces: the run's refusal
(one actionable message naming the fix, raised before anything is paid for), ``evalens doctor``'s table and its
``--json``. The CLI (``evalens eval`` / ``evalens run``), the code lens and the Test Explorer all go through
:func:`preflight`, because they all start runs through ``runner.api`` (``run_cases`` or ``run_file``).

Everything here is cheap (no SDK import, cached ``--version``); :func:`import_judge_sdk` does the real import
and is run off the event loop.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from evalens.runner.engines.base import EngineNotFound, binary_version
from evalens.runner.host_platform import this_host
from evalens.runner.judge import OPENAI_PREFIXES, PROVIDER_KEYS, default_judge, resolve_judge
from evalens.runner.resource_limits import ResourceLimits, create_cgroup
from evalens.runner.sandbox import plan_sandbox, sandbox_base

Status = Literal["ok", "missing", "warn", "skip"]
SDK_MODULES = {"anthropic": "anthropic", "openai": "openai"}
REINSTALL = "pip install --force-reinstall evalens"
MIN_FREE_BYTES = 200 << 20


def node_hint() -> str:
    """How to get Node.js here, in this platform's own package manager."""
    command = this_host().install("node")
    return "needs Node.js 18+ and npm" + (f" (e.g. `{command}`)" if command else "")


@dataclass(slots=True)
class Check:
    """One requirement: what was found and, when it is not met, the exact fix."""

    name: str
    status: Status
    detail: str
    fix: str = ""
    required: bool = True

    @property
    def failed(self) -> bool:
        return self.required and self.status == "missing"


@dataclass(slots=True)
class Preflight:
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(c.failed for c in self.checks)

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if c.failed]

    def message(self) -> str:
        """One line for the user: every missing piece with its fix; the run was not started."""
        parts = [f"{c.detail} — fix: {c.fix}" if c.fix else c.detail for c in self.failures]
        return "cannot start (no agent was started): " + "; ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "checks": [asdict(c) for c in self.checks]}


def _key_names(names: tuple[str, ...] | list[str]) -> str:
    return " or ".join(names)


def _version_check(engine: Any, label: str, version: str, binary: str, required: bool) -> Check:
    """The installed CLI against the versions this evalens was verified with (``Engine.verified_versions``): one
    outside them still runs (a warning, not a refusal: CLIs release every few days), but the user is told that its
    stream, tools or system prompt may have changed and which version is known to work."""
    verified = engine.verified(version) if hasattr(engine, "verified") else None
    if verified is None:
        return Check(label, "ok", f"{version} ({binary})", required=required)
    span = engine.verified_range()
    if verified:
        return Check(label, "ok", f"{version} ({binary}); verified {span}", required=required)
    pin = engine.verified_versions[1]
    return Check(
        label,
        "warn",
        f"{version} ({binary}) is outside the versions this evalens was verified with ({span}): its event "
        "stream, tools or prompt may differ, and committed cassettes recorded on another version will not replay",
        f"npm install -g {engine.npm_package}@{pin}" if engine.npm_package else f"install version {pin}",
        required,
    )


def engine_checks(
    engine: Any,
    *,
    key_env: tuple[str, ...] | None = None,
    required: bool = True,
    env: dict[str, str] | None = None,
) -> list[Check]:
    """The engine's CLI is found and runs, and its API key is set."""
    source = os.environ if env is None else env
    label = f"{engine.name} CLI"
    checks: list[Check] = []
    install = engine.install_command + ("" if shutil.which("npm") else f" ({node_hint()})")
    try:
        binary = str(engine.binary)
    except EngineNotFound as exc:
        override = os.environ.get(engine.binary_env)
        detail = (
            str(exc).split(" (unset it", 1)[0]
            if override
            else f"the `{engine.binary_name}` CLI ({engine.name}) is not installed"
        )
        checks.append(
            Check(
                label,
                "missing",
                detail,
                f"unset {engine.binary_env}, or {install}" if override else install,
                required,
            )
        )
    else:
        version = binary_version(binary)
        if version is None:
            checks.append(
                Check(
                    label,
                    "missing",
                    f"`{binary} --version` failed: the {engine.name} CLI does not run",
                    f"reinstall it: {install}",
                    required,
                )
            )
        else:
            checks.append(_version_check(engine, label, version, binary, required))
    names = tuple(key_env or engine.key_env)
    found = next((k for k in names if source.get(k)), None)
    key_label = f"{engine.name} agent key"
    if found:
        checks.append(Check(key_label, "ok", f"{found} is set", required=required))
    else:
        checks.append(
            Check(
                key_label,
                "missing",
                f"no API key for the {engine.name} agent ({_key_names(names)} is not set)",
                f"export {names[0]}=<your key>",
                required,
            )
        )
    return checks


def judge_checks(
    judge: str | None,
    *,
    default_provider: Any,
    key_env: tuple[str, ...] | None = None,
    env: dict[str, str] | None = None,
    label_model: str | None = None,
) -> tuple[list[Check], Any]:
    """The judge model's provider is known, its SDK is installed and its key is set; returns the resolved spec."""
    source = os.environ if env is None else env
    checks: list[Check] = []
    if (
        judge
        and ":" in judge
        and judge.split(":", 1)[0] not in PROVIDER_KEYS
        and "/" not in judge.split(":", 1)[0]
    ):
        head = judge.split(":", 1)[0]
        checks.append(
            Check(
                "judge provider",
                "missing",
                f"unknown judge provider `{head}` in `{judge}`",
                f"use anthropic:MODEL or openai:MODEL (e.g. --judge anthropic:{judge.split(':', 1)[1]})",
            )
        )
        return checks, None
    spec = resolve_judge(judge, default_provider=default_provider, key_env=key_env)
    model = label_model or spec.model
    lowered = (judge or "").lower()
    guessed = (
        judge is not None
        and bool(judge)
        and ":" not in judge
        and not lowered.startswith("claude")
        and not lowered.startswith(OPENAI_PREFIXES)
    )
    checks.append(
        Check(
            "judge provider",
            "warn" if guessed else "ok",
            f"{spec.provider} ({model})"
            + (f"; `{judge}` names no provider, assuming {spec.provider}" if guessed else ""),
            f"write {spec.provider}:{judge} to be explicit" if guessed else "",
        )
    )
    module = SDK_MODULES[spec.provider]
    if importlib.util.find_spec(module) is None:
        checks.append(
            Check(
                "judge SDK",
                "missing",
                f"the `{module}` Python package (the {spec.provider} judge's SDK) is not installed",
                f"pip install '{module}' (or {REINSTALL})",
            )
        )
    else:
        checks.append(Check("judge SDK", "ok", f"`{module}` installed"))
    found = next((k for k in spec.key_env if source.get(k)), None)
    if found:
        checks.append(Check("judge key", "ok", f"{found} is set"))
    else:
        checks.append(
            Check(
                "judge key",
                "missing",
                f"no API key for the {spec.provider} judge ({model}): {_key_names(spec.key_env)} is not set",
                f"export {spec.key_env[0]}=<your key>",
            )
        )
    return checks, spec


def resource_limits_check() -> Check:
    """How the per-run resource limits will be enforced here (docs/sandbox.md#resource-limits)."""
    if not shutil.which("prlimit"):
        return Check(
            "resource limits",
            "warn",
            "prlimit is missing: only the sandbox size is limited",
            this_host().install("prlimit")
            or "prlimit is Linux-only (util-linux); elsewhere the size watch bounds a run",
            required=False,
        )

    if os.environ.get("EVALENS_CGROUP") != "1":
        return Check(
            "resource limits",
            "ok",
            "prlimit and the sandbox size watch; pid and memory limits bound each process (a cgroup that names "
            "them is opt-in: EVALENS_CGROUP=1)",
            required=False,
        )
    group = create_cgroup(ResourceLimits())
    if group is None:
        return Check(
            "resource limits",
            "warn",
            "EVALENS_CGROUP=1 but no cgroup can be made here: prlimit only, a pid or memory limit met is not named",
            "run as root in the container, or in a delegated cgroup v2 tree",
            required=False,
        )
    group.remove()
    return Check(
        "resource limits",
        "ok",
        f"prlimit and a cgroup v{group.version} per run (pids, memory); meeting one is ERROR naming it",
        required=False,
    )


def sandbox_checks(network: bool = False) -> list[Check]:
    """Bubblewrap (or the fallback that will be used) and writable temp space for sandboxes."""
    checks: list[Check] = []
    plan = plan_sandbox(network, None)
    if plan.enforced:
        checks.append(
            Check(
                "sandbox", "ok", "bubblewrap: network off, writes confined to the workspace", required=False
            )
        )
    else:
        missing = [t for t in ("bwrap", "socat") if not shutil.which(t)]
        fix = this_host().sandbox_fix(missing)
        reason = (plan.warning or "").split("sandbox not enforced: ", 1)[-1].split(";", 1)[0]
        checks.append(
            Check("sandbox", "warn", f"fallback: the engine's own sandbox ({reason})", fix, required=False)
        )
    checks.append(resource_limits_check())
    try:
        base = sandbox_base()
        # a unique name: concurrent runs in one process (the server's lenses, Run all) probe at the same time
        with tempfile.NamedTemporaryFile(dir=base, prefix=".evalens-probe-"):
            pass
    except OSError as exc:
        checks.append(
            Check(
                "temp space",
                "missing",
                f"cannot write sandboxes: {exc}",
                "set EVALENS_SANDBOX_DIR to a writable folder outside /tmp",
            )
        )
        return checks
    free = shutil.disk_usage(base).free
    if free < MIN_FREE_BYTES:
        checks.append(
            Check(
                "temp space",
                "missing",
                f"only {free >> 20} MB free in {base}",
                f"free space in {base} or set EVALENS_SANDBOX_DIR elsewhere",
            )
        )
    else:
        checks.append(Check("temp space", "ok", f"{base} writable, {free >> 30} GB free", required=False))
    return checks


def preflight(
    engine: Any,
    *,
    judge: str | None = None,
    use_judge: bool = True,
    agent_key_env: tuple[str, ...] | None = None,
    judge_key_env: tuple[str, ...] | None = None,
    network: bool = False,
    env: dict[str, str] | None = None,
    judge_label: str | None = None,
) -> tuple[Preflight, Any]:
    """Every check a run of ``engine`` needs; returns the result and the resolved judge spec (None: no judge)."""
    result = Preflight(engine_checks(engine, key_env=agent_key_env, env=env))
    spec = None
    if use_judge:
        checks, spec = judge_checks(
            judge,
            default_provider=default_judge(engine.name, env),
            key_env=judge_key_env,
            env=env,
            label_model=judge_label,
        )
        result.checks += checks
    result.checks += sandbox_checks(network)
    return result, spec


def import_judge_sdk(provider: str) -> str | None:
    """Import the judge's SDK for real (seconds on a busy machine: call it off the event loop); the problem, if any."""
    module = SDK_MODULES.get(provider, provider)
    try:
        importlib.import_module(module)
    except Exception as exc:  # a broken install fails in many ways; all mean "the judge cannot run"
        return (
            f"cannot start (no agent was started): the `{module}` package is installed but does not import "
            f"({type(exc).__name__}: {str(exc)[:200]}) — fix: {REINSTALL}"
        )
    return None
