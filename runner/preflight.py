"""What a run needs before any agent starts: the engine's CLI, the agent's and the judge's keys and SDKs, the
judge's provider, the sandbox and writable temp space. One list of checks feeds three faces: the run's refusal
(one actionable message naming the fix, raised before anything is paid for), ``evalens doctor``'s table and its
``--json``. The CLI (``evalens eval`` / ``evalens run``), the code lens and the Test Explorer all go through
:func:`preflight`, because they all start runs through ``runner.api`` (``run_cases`` or ``run_file``).

Everything here is cheap (no SDK import, cached ``--version``); :func:`import_judge_sdk` does the real import
and is run off the event loop, before the first agent unless an earlier process proved it on the same files
(:func:`judge_sdk_ready`).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import shutil
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from evalens.core.engines import engine_names
from evalens.runner import probe_cache
from evalens.runner.engines import UnsupportedEngine, get_engine
from evalens.runner.engines.base import EngineNotFound, binary_version, cli_key
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
    fresh: bool = False,
) -> list[Check]:
    """The engine's CLI is found and runs, and its API key is set; ``fresh``: the CLI is asked even when its
    answer is on record (``evalens doctor`` is where a user checks that it still runs)."""
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
        version = binary_version(binary, fresh=fresh)
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
    fresh: bool = False,
) -> tuple[Preflight, Any]:
    """Every check a run of ``engine`` needs; returns the result and the resolved judge spec (None: no judge);
    ``fresh`` as for :func:`engine_checks`."""
    result = Preflight(engine_checks(engine, key_env=agent_key_env, env=env, fresh=fresh))
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
    """Import the judge's SDK for real (seconds on a busy machine: call it off the event loop); the problem, if any.
    A clean import is remembered under :func:`sdk_key` (:func:`judge_sdk_ready`)."""
    module = SDK_MODULES.get(provider, provider)
    try:
        importlib.import_module(module)
    except Exception as exc:  # a broken install fails in many ways; all mean "the judge cannot run"
        return (
            f"cannot start (no agent was started): the `{module}` package is installed but does not import "
            f"({type(exc).__name__}: {str(exc)[:200]}) — fix: {REINSTALL}"
        )
    # the files as they are once imported (a first import may have written the package's __pycache__)
    probe_cache.remember("sdk-imports", module, sdk_key(module), True)
    return None


def sdk_key(module: str) -> list[Any] | None:
    """What a clean import of ``module`` depends on, as files: the interpreter, the SDK's ``__init__`` and folder,
    and every site-packages folder on ``sys.path`` (``pip install`` / ``uninstall`` of any package, a dependency
    included, adds or removes entries there, which changes the folder). None: not installed, or not a file."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not os.path.isfile(spec.origin):
        return None
    folders = [os.path.dirname(spec.origin)] + [
        p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages") and os.path.isdir(p)
    ]
    keys = [probe_cache.file_key(sys.executable), probe_cache.file_key(spec.origin)]
    keys += [probe_cache.file_key(f) for f in dict.fromkeys(folders)]
    return None if any(k is None for k in keys) else [sys.version, *keys]


def _proven(module: str) -> bool:
    key = sdk_key(module)
    return key is None or probe_cache.recall("sdk-imports", module, key) is True  # None: nothing to prove


def _cli_binaries() -> list[str]:
    """Every supported engine's CLI that is installed."""
    found = []
    for name in engine_names():
        try:
            found.append(str(get_engine(name).binary))
        except (EngineNotFound, UnsupportedEngine):
            continue
    return found


def unprimed() -> bool:
    """Whether a probe a run makes before its agent has no record on this machine yet: an installed judge SDK not
    proven on its current files, an installed CLI whose ``--version`` was not asked (:func:`prime_probes`)."""
    if not all(_proven(m) for m in SDK_MODULES.values()):
        return True
    return any(probe_cache.recall("cli-versions", b, cli_key(b)) is None for b in _cli_binaries())


def prime_probes() -> None:
    """Make the probes a run makes before its agent, so that they are on record
    (:mod:`~evalens.runner.probe_cache`) before a first run ever asks: the server runs this in a child process at
    its first Run lens (``prime_command``), so a new user's first click (issue 45: the first minute) does not prove
    the SDK (2-3 s) before its agent, and the server's own process never imports an SDK it may not need."""
    for provider, module in SDK_MODULES.items():
        if not _proven(module):
            import_judge_sdk(provider)
    for binary in _cli_binaries():
        binary_version(binary)


PRIME = "from evalens.runner.preflight import prime_probes\nprime_probes()\n"
PRIMING_WAIT = 60.0  # seconds a run waits for the priming child's record before it probes itself


def prime_command() -> list[str] | None:
    """The child process that makes the missing records, or None when every probe is on record or there is no
    cache to keep them in. It runs at the server's own priority: a click that comes before it is done waits for
    its record (:func:`judge_sdk_ready`), and must not wait behind a child the machine's load starves."""
    if probe_cache.cache_dir() is None or not unprimed():
        return None
    return [sys.executable, "-c", PRIME]


_priming: asyncio.Task[None] | None = None  # this process's one priming child (prime_soon)


def prime_soon() -> asyncio.Task[None]:
    """Start :func:`prime_probes` in a child process, once per process (call it on the event loop)."""
    global _priming
    if _priming is None:
        _priming = asyncio.get_running_loop().create_task(_prime())
    return _priming


async def _prime() -> None:
    argv = await asyncio.to_thread(prime_command)
    if argv is None:
        return
    child = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        await child.wait()
    finally:
        if child.returncode is None:  # stopped: by a run that waited too long, or the server's shutdown
            child.kill()
            await child.wait()


async def stop_priming() -> None:
    """Stop the priming child if it still runs (the server shutting down; a run that waited long enough)."""
    task = _priming
    if task is not None and not task.done():
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task


def _recorded(module: str) -> bool:
    """``module`` imported cleanly, in this interpreter, from the files it has now (:func:`sdk_key`)."""
    key = sdk_key(module)
    return key is not None and probe_cache.recall("sdk-imports", module, key) is True


async def _primed(module: str) -> bool:
    """Whether ``module`` is on record, once the priming child, if it still runs, has recorded it or ended: its
    proof is already under way, so waiting for it is never longer than proving again (at most
    :data:`PRIMING_WAIT` seconds, then the child is stopped)."""
    task = _priming
    loop = asyncio.get_running_loop()
    end = loop.time() + PRIMING_WAIT
    while task is not None and not task.done() and not _recorded(module):
        if loop.time() > end:
            await stop_priming()
            break
        await asyncio.wait({task}, timeout=0.1)
    return _recorded(module)


_imports: set[asyncio.Future[Any]] = set()  # imports running beside a batch's first agent (kept referenced)


async def judge_sdk_ready(provider: str) -> str | None:
    """Before a batch's first agent: the judge's SDK imports, else the problem (the run is refused before any
    agent is paid for).

    Importing the SDK to prove it costs seconds (``anthropic`` 2-3 s), and a first click in a fresh server paid it
    before its agent started (issue 45). When this interpreter already imported it cleanly from exactly these files
    (:func:`sdk_key`, remembered by :func:`import_judge_sdk` in an earlier process), the proof is that record, and
    the import runs in a worker thread beside the agent (whose process runs on its own core); the judge imports
    through the same module lock (``judge.ask_parsed``), so it waits for it, and an import that fails after all is
    the judge's ERROR, never a PASS. A priming child still at work (:func:`prime_soon`) is waited for; anything
    else, a changed install included, imports here before the agent."""
    module = SDK_MODULES.get(provider, provider)
    if module in sys.modules:
        return None
    if await _primed(module):
        future = asyncio.get_running_loop().run_in_executor(None, import_judge_sdk, provider)
        _imports.add(future)
        future.add_done_callback(_imports.discard)
        return None
    return await asyncio.to_thread(import_judge_sdk, provider)
