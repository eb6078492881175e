"""Issue 28 B1: the agent never maps to host root.

The real CLI, driven by a scripted model, makes a setuid copy of ``id`` in its workspace and opens the workspace
to everyone (``cp /usr/bin/id suid-id; chmod 4755 suid-id; chmod 755 "$PWD"``). Run as root with the engine
installed where uid 65534 cannot read it (a private folder under ``/root``, like a native ``claude`` under
``~root/.local``), the file must not be owned by host root, no other local user may reach it, and no
setuid/setgid bit survives into the kept sandbox. Also run with evalens as an unprivileged user.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakemodel import FakeModelServer
from tests.runner.runner_helpers import agents_available, case, make_package
from tests.runner.test_agents_sandbox import UNPRIVILEGED_UID, evalens_command

# setuid files and a private install under /root, as uid 65534: no agent test beside them
pytestmark = [pytest.mark.agents, pytest.mark.alone]

ATTACK = (
    'cp /usr/bin/id suid-id; chmod 4755 suid-id; chmod 755 "$PWD"; mkdir -p d; cp /usr/bin/id d/sgid-id; '
    'chmod 2755 d/sgid-id; cp /usr/bin/id "$HOME/suid-home"; chmod 4755 "$HOME/suid-home"; '
    "stat -c 'MODE=%a' suid-id"
)
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def hostroot_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeModelServer]:
    scenarios = {"suid-attack": [{"shell": ATTACK}, {"text": "attack: {last_tool_output}"}]}
    with FakeModelServer(
        log_dir=tmp_path_factory.mktemp("hostroot-model"), idle_timeout=600, scenarios=scenarios
    ) as fake:
        yield fake


@pytest.fixture(scope="module")
def private_tools() -> Iterator[Path]:
    """The repository's CLI installs, hard-linked into a folder only root can search (mode 0700 under /root)."""
    if os.geteuid() != 0:
        pytest.skip("an install unreachable by uid 65534 needs root")
    source = REPO / ".tools" / "node"
    if not source.is_dir():
        pytest.skip("no .tools/node (run .ci/setup.sh)")
    home = Path("/root")
    private = home / f".evalens-b1-{uuid.uuid4().hex[:8]}"
    private.mkdir(mode=0o700)
    subprocess.run(["cp", "-al", str(source), str(private / "node")], check=True)
    yield private
    shutil.rmtree(private, ignore_errors=True)


def _other_user_runs(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            "setpriv",
            f"--reuid={UNPRIVILEGED_UID + 1}",
            f"--regid={UNPRIVILEGED_UID + 1}",
            "--clear-groups",
            "--",
            str(path),
            "-u",
        ],
        capture_output=True,
        text=True,
        timeout=20,
    )


MATRIX = [
    ("claude-code", "root"),
    ("codex", "root"),
    ("claude-code", "unprivileged"),
    ("codex", "unprivileged"),
]


@pytest.mark.parametrize(("engine", "who"), MATRIX)
def test_setuid_workspace_file_is_never_host_root(
    engine: str, who: str, hostroot_model: FakeModelServer, private_tools: Path, runner_work: Path
) -> None:
    if not agents_available(engine):
        pytest.skip(f"{engine} CLI not installed")
    from evalens.runner.sandbox import bubblewrap_usable

    if not bubblewrap_usable():
        pytest.skip("bubblewrap cannot create user namespaces here")
    work = runner_work
    pkg = make_package(
        work / "pkg",
        engine=engine,
        timeout=120,
        cases={"suid": case("suid-attack", contains=["MODE=4755"])},
    )
    prefix = evalens_command(who, work)
    env = {
        **os.environ,
        "EVALENS_SANDBOX_DIR": str(work / "sandboxes"),
        "HOME": str(work / "home"),
        "ANTHROPIC_BASE_URL": hostroot_model.anthropic_base_url,
        "ANTHROPIC_API_KEY": "test-key",
        "OPENAI_BASE_URL": hostroot_model.openai_base_url,
        "OPENAI_API_KEY": "test-key",
    }
    if who == "root":
        env["EVALENS_TOOLS_DIR"] = str(private_tools)  # the engine lives where uid 65534 cannot read
        env.pop("EVALENS_SANDBOX_UID", None)
    argv = [*prefix, "eval", "--package", str(pkg), "--no-judge", "--json", "--keep-sandbox"]
    if engine == "codex":
        argv += ["--model", "gpt-fake"]
    out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in out.stderr, out.stderr[-3000:]
    report = json.loads(out.stdout)
    [result] = report["cases"]
    assert result["verdict"] == "PASS", (result.get("error"), [c for c in result["checks"]])
    assert report["sandbox"]["enforced"] is True, report["sandbox"]

    [root] = [p for p in (work / "sandboxes").iterdir() if p.name.startswith("evalens-eval-")]
    made = [root / "ws" / "suid-id", root / "ws" / "d" / "sgid-id", root / "home" / "suid-home"]
    assert made[0].exists() and made[1].exists()  # Codex's own nested sandbox keeps it out of HOME
    for path in (p for p in made if p.exists()):
        st = os.lstat(path)
        assert not st.st_mode & (stat.S_ISUID | stat.S_ISGID), f"{path} kept mode {oct(st.st_mode)}"
        assert st.st_uid != 0, f"{path} is owned by host root"
    assert not os.stat(root).st_mode & 0o007, f"sandbox root is {oct(os.stat(root).st_mode)} for others"
    if shutil.which("setpriv"):
        ran = _other_user_runs(root / "ws" / "suid-id")
        assert ran.returncode != 0 or ran.stdout.strip() != "0", ran
