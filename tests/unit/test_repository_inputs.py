"""Issue 42: what a pull request or a cloned repository writes runs nothing on the host.

An eval config's ``env`` is refused by name for every loader, shell, runtime, proxy, base-URL and key variable, in
the editor (a diagnostic) and at run time; skilljack's ``expect_javascript`` runs in a bubblewrap sandbox of its own,
so the known ``vm`` escape reaches an empty, network-less root; the bubblewrap launcher is handed the agent's
variables through a sealed file, never its own environment. These run real bubblewrap and node where present."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evalens.core.env_policy import refusal, refused_reason
from evalens.runner import bwrap
from evalens.runner.checks import CheckNotRun
from evalens.runner.confined_check import unavailable
from evalens.runner.suites.skilljack import _js_check
from tests.conftest import REPO

REFUSED = [
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "ld_audit",
    "DYLD_INSERT_LIBRARIES",
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "BASH_FUNC_ls%%",
    "SHELLOPTS",
    "PS4",
    "http_proxy",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "no_proxy",
    "ANTHROPIC_BASE_URL",
    "OPENAI_BASE_URL",
    "OPENAI_API_BASE",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "GH_TOKEN",
    "MY_SERVICE_SECRET",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "PYTHONSTARTUP",
    "NODE_OPTIONS",
    "PATH",
    "HOME",
    "GIT_CONFIG_GLOBAL",
    "SSL_CERT_FILE",
    "NODE_EXTRA_CA_CERTS",
    "EVALENS_SANDBOX_DIR",
    "GLIBC_TUNABLES",
    "A=B",
    "",
]
ALLOWED = ["PDF_STRICT", "EVAL_CFG_VAR", "GREETING_STYLE", "LANG_CHOICE"]


@pytest.mark.parametrize("name", REFUSED)
def test_an_eval_config_may_not_set_a_variable_a_loader_shell_proxy_or_client_reads(name: str) -> None:
    why = refusal(name)
    assert why is not None and f"env.{name} is refused" in why


@pytest.mark.parametrize("name", ALLOWED)
def test_an_eval_config_may_set_its_own_settings(name: str) -> None:
    assert refused_reason(name) is None


def _package(root: Path, env: dict[str, str]) -> Path:
    (root / "evals" / "cases").mkdir(parents=True)
    (root / "skills" / "greeter").mkdir(parents=True)
    (root / "skills" / "greeter" / "SKILL.md").write_text(
        "---\nname: greeter\ndescription: Writes greetings into output/.\n---\nWrite a greeting.\n"
    )
    (root / "evals" / "eval-config.json").write_text(
        json.dumps({"version": 1, "engine": "claude-code", "timeout": 30, "env": env})
    )
    (root / "evals" / "cases" / "one.yaml").write_text("name: one\ninput:\n  prompt: hi\n")
    return root


def test_the_editor_shows_a_refused_env_variable_as_an_error(tmp_path: Path) -> None:
    """The same refusal as a diagnostic on the key, before anyone runs the config."""
    pkg = _package(tmp_path / "pkg", {"LD_PRELOAD": "./evil.so", "PDF_STRICT": "1", "HTTPS_PROXY": "x"})
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalens",
            "validate",
            str(pkg / "evals" / "eval-config.json"),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert "Traceback" not in out.stderr, out.stderr
    text = out.stdout
    assert "env-refused" in text, text
    assert "LD_PRELOAD" in text and "HTTPS_PROXY" in text, text
    assert "PDF_STRICT" not in text, text
    assert out.returncode != 0


def test_a_run_refuses_the_config_naming_the_variable(tmp_path: Path) -> None:
    """At run time, before a sandbox or an agent exists: exit 2, one line naming each refused variable."""
    pkg = _package(
        tmp_path / "pkg", {"LD_PRELOAD": str(tmp_path / "evil.so"), "ANTHROPIC_BASE_URL": "http://x"}
    )
    out = subprocess.run(
        [sys.executable, "-m", "evalens", "eval", "--package", str(pkg), "--no-judge"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NO_COLOR": "1", "ANTHROPIC_API_KEY": "k"},
    )
    assert "Traceback" not in out.stderr, out.stderr
    assert out.returncode == 2, out.stdout + out.stderr
    assert "env.LD_PRELOAD is refused: a dynamic loader variable" in out.stderr, out.stderr
    assert "env.ANTHROPIC_BASE_URL is refused" in out.stderr, out.stderr


def test_the_launcher_env_file_sets_the_agent_env_inside_the_namespace_only() -> None:
    """bubblewrap reads ``--clearenv --setenv …`` from a sealed memory file: inside, exactly the agent's
    variables (no loader variable even if one got this far); the launcher's own environment is the fixed one."""
    if unavailable():
        pytest.skip(f"no bubblewrap here: {unavailable()}")
    identity = bwrap.probe_identities(bwrap._configured_uid())[0]  # noqa: SLF001 - the sandbox's own choice
    agent = {"PATH": "/usr/bin:/bin", "SECRET_KEY_X": "inside-only", "LD_PRELOAD": "/nonexistent.so"}
    fd = bwrap.env_args_fd(agent)
    try:
        argv = [
            shutil.which("bwrap") or "bwrap",
            "--args",
            str(fd),
            "--unshare-user",
            "--unshare-net",
            "--ro-bind",
            "/usr",
            "/usr",
            "--symlink",
            "usr/bin",
            "/bin",
            "--symlink",
            "usr/lib",
            "/lib",
            "--symlink",
            "usr/lib64",
            "/lib64",
            "--proc",
            "/proc",
            "--",
            "/usr/bin/env",
        ]
        out = subprocess.run(
            argv,
            env=dict(bwrap.LAUNCHER_ENV),
            capture_output=True,
            text=True,
            timeout=30,
            pass_fds=(fd,),
            user=identity.uid,
            group=identity.gid,
            extra_groups=[] if identity.uid is not None else None,
        )
    finally:
        os.close(fd)
    assert out.returncode == 0, out.stderr
    inside = dict(line.split("=", 1) for line in out.stdout.splitlines())
    inside.pop("PWD", None)  # bubblewrap's own, for its --chdir
    assert inside == {"PATH": "/usr/bin:/bin", "SECRET_KEY_X": "inside-only"}, inside


ESCAPE = (
    "(()=>{{const p=String.constructor('return process')();"
    "const cp=p.getBuiltinModule?p.getBuiltinModule('child_process'):p.mainModule.require('child_process');"
    "throw new Error('RAN['+String(cp.execSync({cmd!r}))+']')}})()"
)


@pytest.fixture
def host_marker(tmp_path: Path) -> Path:
    folder = tmp_path / "world"
    folder.mkdir()
    folder.chmod(0o777)
    return folder / "pwned"


def test_expect_javascript_escaping_vm_reaches_only_an_empty_sandbox(host_marker: Path) -> None:
    """Attack 2: ``String.constructor('return process')()`` leaves ``vm``. The code then runs, but in a
    sandbox: uid 1000 of a user namespace, no host file (the marker's folder is world-writable), no ``/root``, no
    ``/etc``, an empty environment, no network; and the check fails, never passes."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    if unavailable():
        pytest.skip(f"no bubblewrap here: {unavailable()}")
    os.environ["EVALENS_CANARY_42"] = "canary-42"
    try:
        cmd = (
            f"touch {host_marker} 2>&1; id -u; ls /root 2>&1; ls /etc 2>&1; env; "
            "(exec 3<>/dev/tcp/127.0.0.1/22) 2>&1 || echo NONET"
        )
        passed, detail = _js_check(ESCAPE.format(cmd=cmd), "output")
    finally:
        del os.environ["EVALENS_CANARY_42"]
    assert not passed
    assert "RAN[" in detail, detail  # the escape itself worked: the sandbox is what held
    assert not host_marker.exists()
    assert "canary-42" not in detail and "ANTHROPIC" not in detail, detail
    assert "\n1000\n" in detail or "RAN[1000" in detail or "1000\n" in detail, detail
    assert "/root': No such file" in detail, detail
    assert "/etc': No such file" in detail, detail


def test_expect_javascript_still_answers_true_and_false() -> None:
    if shutil.which("node") is None or unavailable():
        pytest.skip("needs node and bubblewrap")
    assert _js_check("output.includes('GREETING')", "DONE GREETING-OK")[0] is True
    assert _js_check("output.length > 100", "short")[0] is False


def test_expect_javascript_without_a_sandbox_is_not_run(
    monkeypatch: pytest.MonkeyPatch, host_marker: Path
) -> None:
    """Without bubblewrap the check does not run at all (the run is ERROR "check not run"), never on the host."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    monkeypatch.setenv("EVALENS_NO_BWRAP", "1")
    with pytest.raises(CheckNotRun, match="expect_javascript not run: .*EVALENS_NO_BWRAP"):
        _js_check(ESCAPE.format(cmd=f"touch {host_marker}"), "output")
    assert not host_marker.exists()


def test_no_check_module_runs_node_or_a_shell_on_the_host() -> None:
    """Every subprocess a check or a suite starts goes through the check sandbox: a new ``subprocess`` in the
    check modules is a decision to make here, not by accident."""
    for path in [*(REPO / "runner").glob("checks*.py"), *(REPO / "runner" / "suites").glob("*.py")]:
        text = path.read_text()
        assert "import subprocess" not in text and "create_subprocess" not in text, path
