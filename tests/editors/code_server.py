"""One code-server session for an e2e module: the built .vsix in a fresh profile, the real evalens server, the
fake model for the real ``claude``, and a playwright-core driver script (recipe:
shared/reference/editors-e2e.md §3). Each module runs its driver once and asserts on the facts it recorded.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.editors.shared_build import build_lock

REPO = Path(__file__).resolve().parents[2]
EXT_DIR = REPO / "vscode-extension"
E2E_DIR = Path(__file__).resolve().parent / "vscode"
EXAMPLE = REPO / "examples" / "pdf-tools"
VSIX = EXT_DIR / "evalens.vsix"
CODE_SERVER = Path(
    os.environ.get("CODE_SERVER", REPO / ".tools" / "code-server" / "node_modules" / ".bin" / "code-server")
)
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _kill_group(proc: subprocess.Popen) -> None:
    """Stop a process started with start_new_session=True and everything it forked."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(
            proc.pid, signal.SIGKILL
        )  # children (extension host, language server, agents) may outlive it
    except ProcessLookupError:
        pass
    proc.wait(timeout=5)


def _vsix_is_stale() -> bool:
    if not VSIX.exists():
        return True
    with zipfile.ZipFile(VSIX) as z:
        # a .vsix built before issue 45 carries no evalens wheel; the first-minute test needs one
        if not any(n.startswith("extension/bundled/wheels/evalens-") for n in z.namelist()):
            return True
    built = VSIX.stat().st_mtime
    sources = [
        EXT_DIR / "package.json",
        EXT_DIR / "README.md",
        EXT_DIR / ".vscodeignore",
        EXT_DIR / "scripts" / "bundle_python.py",
        *(EXT_DIR / "images").glob("*"),
        *(EXT_DIR / "src").rglob("*.ts"),
    ]
    return any(p.stat().st_mtime > built for p in sources)


def _build_vsix() -> None:
    if not (EXT_DIR / "node_modules" / ".bin" / "vsce").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=EXT_DIR, check=True)
    subprocess.run(["npm", "run", "--silent", "package"], cwd=EXT_DIR, check=True, stdout=subprocess.DEVNULL)


def claude_binary() -> str | None:
    """Where the runner will find `claude` (see runner/engines/base.py): override, .tools, PATH."""
    tools = Path(os.environ.get("EVALENS_TOOLS_DIR", REPO / ".tools"))
    for candidate in (
        os.environ.get("EVALENS_CLAUDE_BIN"),
        tools / "node" / "node_modules" / ".bin" / "claude",
    ):
        if candidate and Path(candidate).exists():
            return str(candidate)
    return shutil.which("claude")


def _wait_for_port_file(path: Path, proc: subprocess.Popen, timeout: float = 20) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return int(path.read_text().strip())
        if proc.poll() is not None:
            raise RuntimeError(f"fake model server exited with {proc.returncode}")
        time.sleep(0.1)
    raise RuntimeError("fake model server wrote no port file")


def _wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"code-server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError("code-server did not answer /healthz")


def extension_log(ud: Path) -> str:
    """The extension's LogOutputChannel ("evalens") as written by code-server."""
    texts = [p.read_text(errors="replace") for p in ud.rglob("*evalens*.log")]
    return "\n".join(texts)


@contextmanager
def code_server_session(
    run: Path,
    artifacts: Path,
    driver: str,
    driver_env: dict[str, str],
    prepare: Callable[[Path], None] | None = None,
    scenarios: Path = E2E_DIR / "scenarios.json",
    default_scenario: str = "extract",
    timeout: float = 600,
    cwd: Path | None = None,
    user_settings: dict[str, Any] | None = None,
    env_overrides: dict[str, str] | None = None,
    untrusted: bool = False,
) -> Iterator[dict[str, Any]]:
    """Start the fake model and code-server on a copy of examples/pdf-tools (``prepare`` may add files), run the
    driver ``tests/editors/vscode/<driver>`` once, and yield the facts it wrote (``steps``, values) with its
    output and the extension's log. ``cwd``: code-server's working directory, which its extension host inherits
    (default: this process's). ``user_settings`` is laid over the profile's settings (a ``None`` value removes the
    key, e.g. ``evalens.server.path`` for the extension's bundled evalens); ``env_overrides`` over code-server's
    environment (PATH, proxies); ``untrusted`` opens the workspace in Restricted Mode (workspace trust on, its
    prompt off, as a user who answers "No" sees it). Everything started is stopped, screenshots and logs stay in ``artifacts``."""
    if not CODE_SERVER.exists():
        pytest.skip(f"code-server not installed at {CODE_SERVER} (run .ci/install-vscode.sh)")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"chromium not installed at {CHROMIUM} (run .ci/install-vscode.sh)")
    if claude_binary() is None:
        pytest.fail("the claude CLI is not installed (run .ci/install-agents.sh): the runs need it")
    t0 = time.monotonic()
    with build_lock():  # the lanes of the editors tier share these folders: one builds, the others reuse it
        if not (E2E_DIR / "node_modules" / "playwright-core").exists():
            subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=E2E_DIR, check=True)
        if _vsix_is_stale():
            _build_vsix()
    timings = {"vsix": round(time.monotonic() - t0, 1)}

    home, ud, ext = run / "home", run / "ud", run / "ext"
    for d in (home, ud / "User", ext):
        d.mkdir(parents=True)
    ws = run / "ws" / "pdf-tools"
    shutil.copytree(EXAMPLE, ws, ignore=shutil.ignore_patterns("reports"))
    (ws / "evals" / "reports").mkdir()
    if prepare is not None:
        prepare(ws)
    if artifacts.exists():
        shutil.rmtree(artifacts)
    artifacts.mkdir(parents=True)

    procs: list[subprocess.Popen] = []
    logs = []
    try:
        # 1. the fake model server (own process group; stops by itself when idle)
        port_file = run / "fakemodel.port"
        fm_log = open(artifacts / "fakemodel.log", "w")  # noqa: SIM115 - closed in teardown
        logs.append(fm_log)
        fake = subprocess.Popen(
            [
                sys.executable,
                str(REPO / "tests" / "fakemodel" / "server.py"),
                "--port-file",
                str(port_file),
                "--log-dir",
                str(artifacts / "fakemodel"),
                "--idle-timeout",
                "600",
                "--scenarios",
                str(scenarios),
                "--default-scenario",
                default_scenario,
            ],
            stdout=fm_log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        procs.append(fake)
        fake_port = _wait_for_port_file(port_file, fake)

        # 2. a fresh code-server profile whose evalens server is this interpreter's `python -m evalens lsp`
        settings = json.loads((E2E_DIR / "settings.json").read_text())
        settings.update({"evalens.server.path": sys.executable, "evalens.server.args": []})
        settings.update(user_settings or {})
        if untrusted:
            settings.update(
                {"security.workspace.trust.enabled": True, "security.workspace.trust.startupPrompt": "never"}
            )
        settings = {k: v for k, v in settings.items() if v is not None}
        (ud / "User" / "settings.json").write_text(json.dumps(settings, indent=2))
        port = _free_port()
        config = run / "config.yaml"
        config.write_text(f"bind-addr: 127.0.0.1:{port}\nauth: none\ncert: false\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "CLAUDE"))}
        env.update(
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_DATA_HOME=str(home / ".local/share"),
            XDG_CACHE_HOME=str(home / ".cache"),
            XDG_STATE_HOME=str(home / ".local/state"),
            ANTHROPIC_BASE_URL=f"http://127.0.0.1:{fake_port}",
            ANTHROPIC_API_KEY="sk-ant-fake-e2e",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            CLAUDE_CODE_MAX_RETRIES="1",
            EVALENS_TOOLS_DIR=os.environ.get("EVALENS_TOOLS_DIR", str(REPO / ".tools")),
        )
        env.update(env_overrides or {})
        cs_args = [
            str(CODE_SERVER),
            "--config",
            str(config),
            "--user-data-dir",
            str(ud),
            "--extensions-dir",
            str(ext),
        ]
        t1 = time.monotonic()
        subprocess.run(
            [*cs_args, "--install-extension", str(VSIX)],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
            timeout=120,
        )
        timings["install"] = round(time.monotonic() - t1, 1)
        cs_log = open(artifacts / "code-server.log", "w")  # noqa: SIM115 - closed in teardown
        logs.append(cs_log)
        cs = subprocess.Popen(
            [
                *cs_args,
                "--disable-telemetry",
                "--disable-update-check",
                *([] if untrusted else ["--disable-workspace-trust"]),
                str(ws),
            ],
            env=env,
            cwd=cwd,
            stdout=cs_log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        procs.append(cs)
        base = f"http://127.0.0.1:{port}"
        _wait_healthy(base, cs)

        # 3. drive it
        result_file = artifacts / "result.json"
        t2 = time.monotonic()
        drive = subprocess.run(
            ["node", str(E2E_DIR / driver), base, str(ws)],
            env={
                **env,
                "SHOT_DIR": str(artifacts),
                "RESULT_FILE": str(result_file),
                "CHROMIUM": CHROMIUM,
                **driver_env,
            },
            cwd=E2E_DIR,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        timings["drive"] = round(time.monotonic() - t2, 1)
        (artifacts / "drive.log").write_text(drive.stdout + drive.stderr)
        result = json.loads(result_file.read_text()) if result_file.exists() else {"steps": []}
        result.update(
            timings=timings,
            driver_output=drive.stdout + drive.stderr,
            ext_log=extension_log(ud),
            workspace=str(ws),
        )
        print(f"vscode e2e timings: {timings}")
        yield result
    finally:
        for proc in reversed(procs):
            _kill_group(proc)
        for fh in logs:
            fh.close()
        for log in ud.rglob("*.log"):
            if "evalens" in log.name or "exthost" in log.name:
                shutil.copy(log, artifacts / log.name)


def step(result: dict[str, Any], name: str) -> None:
    """Fail with the driver's and the extension's last words unless the driver's step ``name`` passed."""
    for s in result["steps"]:
        if s["name"] == name:
            assert s["ok"], (
                f"{name}: {s.get('error')}\n{result['driver_output'][-3000:]}\n{result['ext_log'][-3000:]}"
            )
            return
    pytest.fail(f"step {name!r} did not run:\n{result['driver_output'][-3000:]}\n{result['ext_log'][-3000:]}")
