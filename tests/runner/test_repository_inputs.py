"""Issue 42: what a pull request or a cloned repository writes runs nothing on the host.

An eval config's ``env`` is refused by name for every loader, shell, runtime, proxy, base-URL and key variable, in
the editor (a diagnostic) and at run time; skilljack's ``expect_javascript`` runs in a bubblewrap sandbox of its own,
so the known ``vm`` escape reaches an empty, network-less root; the bubblewrap launcher is handed the agent's
variables through a sealed file, never its own environment. These run real bubblewrap and node where present."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

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
    "NODE_DEBUG",
    "XDG_CONFIG_HOME",
    "LESSOPEN",
    "PIP_INDEX_URL",
    "PGPASSWORD",
    "DATABASE_URL",
    "MONGODB_URI",
    "SSLKEYLOGFILE",
    "KRB5CCNAME",
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


CASE = "name: {name}\ninput:\n  prompt: say hi\nexpected:\n  contains: [hi]\njudge:\n  criteria: The agent says hi.\n"


def _package(root: Path, env: dict[str, str]) -> Path:
    (root / "evals" / "cases").mkdir(parents=True)
    (root / "skills" / "greeter").mkdir(parents=True)
    (root / "skills" / "greeter" / "SKILL.md").write_text(
        "---\nname: greeter\ndescription: Writes greetings into output/.\n---\nWrite a greeting.\n"
    )
    (root / "evals" / "eval-config.json").write_text(
        json.dumps({"version": 1, "engine": "claude-code", "timeout": 30, "env": env})
    )
    (root / "evals" / "cases" / "one.yaml").write_text(CASE.format(name="one"))
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


# ------------------------------------------------------------------ attack 3: a git repository as plain files


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.email=t@e", "-c", "user.name=t", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()


@pytest.fixture
def repo_with_embedded_git(tmp_path: Path) -> tuple[Path, Path]:
    """A clone whose package commits a whole git repository as plain files (``HEAD``, ``objects/``, ``refs/``, a
    ``config`` with ``worktree = .``, ``hooks/post-checkout``): ``git -C <package>`` took it for the repository and
    ran its hook. The clone's own ``.git/hooks/post-checkout`` is there too: hooks are off for every call."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    marker = tmp_path / "PWNED"
    hook = f"#!/bin/sh\necho ran >> {marker}\n"
    src = tmp_path / "src"
    src.mkdir()
    _git(src, "init", "-q", "-b", "main")
    (src / "f").write_text("x\n")
    _git(src, "add", "f")
    _git(src, "commit", "-qm", "embedded")
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    pkg = _package(repo / "pkg", {"PDF_STRICT": "1"})
    for part in ("HEAD", "objects", "refs"):
        source = src / ".git" / part
        (shutil.copytree if source.is_dir() else shutil.copy)(source, pkg / part)
    (pkg / "config").write_text("[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n")
    (pkg / "hooks").mkdir()
    for where in (pkg / "hooks" / "post-checkout", repo / ".git" / "hooks" / "post-checkout"):
        where.write_text(hook)
        where.chmod(0o755)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "v1")
    (pkg / "evals" / "cases" / "two.yaml").write_text(CASE.format(name="two"))
    return pkg, marker


def test_changed_since_with_a_git_repository_committed_as_plain_files_runs_no_hook(
    repo_with_embedded_git: tuple[Path, Path],
) -> None:
    """Attack 3: ``--changed-since`` (even with ``--dry-run``) compares with the clone's own repository (``two`` is
    new since HEAD there; the embedded repository knows no eval file), and no hook runs."""
    pkg, marker = repo_with_embedded_git
    flags = ["--changed-since", "HEAD", "--dry-run"]
    out = subprocess.run(
        [sys.executable, "-m", "evalens", "eval", "--package", str(pkg), *flags, "--no-judge"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=pkg,
        env={**os.environ, "NO_COLOR": "1", "ANTHROPIC_API_KEY": "k"},
    )
    assert "Traceback" not in out.stderr, out.stderr
    assert not marker.exists(), f"a hook ran: {marker.read_text()}"
    assert "two" in out.stdout + out.stderr, out.stdout + out.stderr
    assert re.findall(r"^\s+(\S+)\s+\[", out.stdout, re.M) == ["two"], out.stdout  # the case lines only


def test_baseline_checkout_with_a_git_repository_committed_as_plain_files_runs_no_hook(
    repo_with_embedded_git: tuple[Path, Path],
) -> None:
    """Attack 3, ``--baseline HEAD``: the checkout it runs the baseline from is the clone's HEAD (it holds
    ``one`` only), made with hooks off; it is removed afterwards."""
    import asyncio

    from evalens.runner.baseline import checked_out, resolve

    pkg, marker = repo_with_embedded_git
    plan = resolve("HEAD", pkg)
    assert plan is not None and plan.repo == pkg.parent.resolve()

    async def look() -> Path:
        async with checked_out(plan) as held:
            assert held is not None and held.worktree is not None
            then = held.worktree / "pkg" / "evals" / "cases"
            assert (then / "one.yaml").is_file() and not (then / "two.yaml").exists()
            return held.worktree

    tree = asyncio.run(look())
    assert not tree.exists()
    assert not marker.exists(), f"a hook ran: {marker.read_text()}"


def test_the_runners_git_resolves_the_clone_not_the_embedded_repository(
    repo_with_embedded_git: tuple[Path, Path],
) -> None:
    from evalens.runner.ci.shard import commit_of
    from evalens.runner.git_repo import ref_commit, repository_of

    pkg, marker = repo_with_embedded_git
    repo = pkg.parent
    assert repository_of(pkg) == repo.resolve()
    head = _git(repo, "rev-parse", "HEAD")
    assert ref_commit("--changed-since HEAD", "HEAD", pkg) == (repo.resolve(), head)
    assert commit_of(pkg) == head
    assert not marker.exists()


@pytest.fixture
def repo_with_filter_drivers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A clone whose committed ``.gitattributes`` selects filter and diff drivers that its configuration defines:
    the clone's own ``.git/config`` (a repository handed over as an archive, or a user's global setup such as
    git-lfs) and the user's global configuration, one driver name in mixed case. Each program appends to a
    marker. Plain ``git diff <ref>`` after a touch, and ``git worktree add``, run them (checked below)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    marker = tmp_path / "PWNED"
    program = f"sh -c 'echo $0 >> {marker}; cat' "
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    pkg = _package(repo / "pkg", {"PDF_STRICT": "1"})
    (repo / ".gitattributes").write_text("* filter=evil diff=evil\n*.yaml filter=Upper.Case\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "v1")
    for key, value in {
        "filter.evil.clean": program + "clean",
        "filter.evil.smudge": program + "smudge",
        "filter.evil.required": "true",
        "diff.evil.textconv": program + "textconv",
        "diff.evil.command": program + "diff",
    }.items():
        _git(repo, "config", key, value)
    global_config = tmp_path / "gitconfig"
    for key, value in {"process": program + "process", "smudge": program + "gsmudge"}.items():
        _git(repo, "config", "--file", str(global_config), f"filter.Upper.Case.{key}", value)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(global_config))
    return pkg, marker


def _touch_every_file(root: Path) -> None:
    for path in root.rglob("*"):
        if path.is_file() and ".git" not in path.parts:
            os.utime(path, (1_000_000_000, 1_000_000_000))


def test_plain_git_runs_the_drivers_a_committed_gitattributes_selects(
    repo_with_filter_drivers: tuple[Path, Path], tmp_path: Path
) -> None:
    """The attack is real: without the overrides, both a diff after a touch and a worktree run the programs."""
    pkg, marker = repo_with_filter_drivers
    repo = pkg.parent
    _touch_every_file(repo)
    subprocess.run(["git", "diff", "--name-only", "HEAD"], cwd=repo, capture_output=True, timeout=60)
    subprocess.run(
        ["git", "worktree", "add", "-q", "--detach", str(tmp_path / "plain"), "HEAD"],
        cwd=repo,
        capture_output=True,
        timeout=60,
    )
    ran = marker.read_text().split()
    assert "clean" in ran and "smudge" in ran and ("process" in ran or "gsmudge" in ran), ran


def test_no_filter_or_diff_driver_runs_in_any_git_call_evalens_makes(
    repo_with_filter_drivers: tuple[Path, Path],
) -> None:
    """``--changed-since`` (a worktree at the ref), the replay guard's diff (``--replay-base``), ``--baseline``
    (a worktree) and the shard planner's commit: no program of a driver runs, and the checkout holds the
    committed bytes."""
    import asyncio

    from evalens.cli.changed import changed_units
    from evalens.runner.baseline import checked_out, resolve
    from evalens.runner.ci.shard import commit_of
    from evalens.runner.replay import edited_since

    pkg, marker = repo_with_filter_drivers
    repo = pkg.parent
    _touch_every_file(repo)
    (pkg / "evals" / "cases" / "one.yaml").write_text(CASE.format(name="one").replace("say hi", "say hello"))
    edited, why = edited_since(pkg, "HEAD")
    assert why is None and edited == {(pkg / "evals" / "cases" / "one.yaml").resolve()}
    assert set(changed_units(pkg, {"one": "evals/cases/one.yaml"}, "HEAD")) == {"one"}
    assert commit_of(pkg) == _git(repo, "rev-parse", "HEAD")
    plan = resolve("HEAD", pkg)

    async def look() -> str:
        async with checked_out(plan) as held:
            assert held is not None and held.worktree is not None
            return (held.worktree / "pkg" / "evals" / "cases" / "one.yaml").read_text()

    assert asyncio.run(look()) == CASE.format(name="one")
    assert not marker.exists(), f"a driver ran: {marker.read_text()}"


# ------------------------------------------------------------ attack 4: Python started in a hostile checkout


def _action_steps() -> dict[str, dict]:
    import yaml

    spec = yaml.safe_load((REPO / "action.yml").read_text())
    return {step.get("id", str(i)): step for i, step in enumerate(spec["runs"]["steps"])}


def test_every_python_the_action_starts_is_isolated() -> None:
    """The Action's steps run in the checkout: ``python3 -c``/``-m`` there would put it first on sys.path."""
    import re

    for step_id, step in _action_steps().items():
        for call in re.findall(r"\bpython3?\b[^\n|]*", step.get("run", "")):
            assert call.split()[1:2] == ["-I"], f"{step_id}: {call}"


def test_the_actions_engine_lookup_does_not_import_the_checkouts_json_py(tmp_path: Path) -> None:
    """Attack 4: a ``json.py`` at the checkout's root ran in the install-agent step (``import json`` in
    ``python3 -c``). The step now reads the engine with the real json module, and the file never runs."""
    workspace = tmp_path / "checkout"
    pkg = _package(workspace, {"PDF_STRICT": "1"})
    marker = tmp_path / "PWNED"
    (workspace / "json.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\nraise SystemExit(0)\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").write_text("#!/bin/sh\necho '9.9.9 (stand-in)'\n")
    (bin_dir / "claude").chmod(0o755)
    out_file = tmp_path / "out"
    out_file.write_text("")
    step = _action_steps()["install-agent"]
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        cwd=workspace,
        env={
            "PATH": f"{bin_dir}:{os.environ['PATH']}",
            "AGENT": "",
            "AGENT_VERSION": "",
            "PACKAGE": str(pkg.relative_to(workspace)) if pkg != workspace else ".",
            "EVAL_FILE": "",
            "GITHUB_OUTPUT": str(out_file),
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert not marker.exists(), "the checkout's json.py ran"
    assert "agent=claude-code" in out_file.read_text(), done.stdout + done.stderr


def test_the_editors_start_python_isolated() -> None:
    """The VS Code extension's interpreter check, server start and the private venv's install (issue 45: venv,
    pip from its wheel), and the Neovim recipe and its :EvalensInstall."""
    server = (REPO / "vscode-extension" / "src" / "serverCommand.ts").read_text()
    install = (REPO / "vscode-extension" / "src" / "install.ts").read_text()
    env = (REPO / "vscode-extension" / "src" / "bundledEnv.ts").read_text()
    assert server.count('args: [ISOLATED, "-m", "evalens", "lsp", ...') == 4
    assert '[ISOLATED, "-c", "import evalens.server"]' in install
    assert '[ISOLATED, "-m", "venv", "--without-pip"' in env
    assert 'ISOLATED,\n    path.join(pipWheel, "pip"),\n    "install"' in env
    assert '[ISOLATED, "-c", "import evalens.server"]' in env
    nvim_install = (REPO / "editors" / "nvim" / "lua" / "evalens" / "install.lua").read_text()
    assert "'-I', '-m', 'venv'" in nvim_install and "'-I', '-m', 'pip', 'install'" in nvim_install
    for doc in (
        REPO / "editors" / "nvim" / "README.md",
        REPO / "editors" / "nvim" / "lua" / "evalens" / "health.lua",
        REPO / "editors" / "nvim" / "lua" / "evalens" / "install.lua",
    ):
        text = doc.read_text()
        assert "'-m', 'evalens'" not in text.replace("'-I', '-m', 'evalens'", ""), doc


def test_python_isolated_in_a_checkout_with_its_own_evalens_package(tmp_path: Path) -> None:
    """What ``-I`` buys: in a folder holding an ``evalens/`` package, ``python -m evalens`` ran that package;
    ``python -I -m evalens`` runs the installed one."""
    hostile = tmp_path / "evalens"
    hostile.mkdir()
    marker = tmp_path / "PWNED"
    (hostile / "__init__.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    (hostile / "__main__.py").write_text("")
    out = subprocess.run(
        [sys.executable, "-I", "-m", "evalens", "--version"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0 and "evalens" in out.stdout, out.stdout + out.stderr
    assert not marker.exists()
    subprocess.run(
        [sys.executable, "-m", "evalens", "--version"], cwd=tmp_path, capture_output=True, timeout=60
    )
    assert marker.exists(), "without -I the checkout's package runs (the attack this guards against)"


# ------------------------------------------------------------ attack 7: writes through a committed link


def _tape(root: Path, unit: str = "greets") -> Any:
    import asyncio

    from evalens.runner.replay import CassetteBatch

    batch = CassetteBatch("record", root / "evals" / "cassettes", root)
    return asyncio.run(batch.open(unit, 1, "claude-code", {}))


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    target = tmp_path / "victim.sh"
    target.write_text("# the runner's own file\n")
    return target


def test_recording_never_writes_through_a_committed_tmp_link(tmp_path: Path, victim: Path) -> None:
    """Attack 7: ``evals/cassettes/<unit>-1.json.tmp`` committed as a link to a file the runner may write.
    The cassette goes through a fresh temporary file of a random name; the link and its target stay as they were."""
    root = tmp_path / "pkg"
    folder = root / "evals" / "cassettes"
    folder.mkdir(parents=True)
    tape = _tape(root)
    (folder / f"{tape.path.name}.tmp").symlink_to(victim)
    tape.write()
    assert victim.read_text() == "# the runner's own file\n"
    assert json.loads(tape.path.read_text())["unit"] == "greets"
    assert not tape.path.is_symlink() and (folder / f"{tape.path.name}.tmp").is_symlink()


@pytest.mark.parametrize("where", ["cassette", "folder"])
def test_recording_refuses_a_cassette_or_folder_that_is_a_link(
    tmp_path: Path, victim: Path, where: str
) -> None:
    from evalens.core.regular_files import LinkRefused

    root = tmp_path / "pkg"
    (root / "evals").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if where == "folder":
        (root / "evals" / "cassettes").symlink_to(elsewhere)
    tape = _tape(root)
    if where == "cassette":
        tape.path.parent.mkdir(parents=True, exist_ok=True)
        tape.path.symlink_to(victim)
    with pytest.raises(LinkRefused, match="is a symbolic link"):
        tape.write()
    assert victim.read_text() == "# the runner's own file\n"
    assert list(elsewhere.iterdir()) == []


def test_reports_and_records_refuse_a_link_at_their_path(tmp_path: Path, victim: Path) -> None:
    from evalens.core.regular_files import LinkRefused, write_json_atomic

    (tmp_path / "report.json").symlink_to(victim)
    with pytest.raises(LinkRefused):
        write_json_atomic(tmp_path / "report.json", {"a": 1}, indent=1)
    assert victim.read_text() == "# the runner's own file\n"


def test_a_skilljack_config_may_not_send_results_outside_its_repository(tmp_path: Path) -> None:
    """``output.dir`` in a committed ``eval.config.yaml`` chose where evalens writes agent-controlled text (a
    report named after the skill) anywhere the runner may write; now it must stay inside the repository, and
    ``--output-dir`` is how the runner writes elsewhere."""
    suite = tmp_path / "repo" / "suite"
    (suite / "skills" / "greeter").mkdir(parents=True)
    (suite.parent / ".git").mkdir()
    (suite / "skills" / "greeter" / "SKILL.md").write_text(
        "---\nname: greeter\ndescription: Greets.\n---\nGreet.\n"
    )
    (suite / "tasks.yaml").write_text("skill: greeter\ntasks:\n  - id: t\n    prompt: hi\n")
    outside = tmp_path / "outside"
    (suite / "eval.config.yaml").write_text(f"output:\n  dir: {outside}\n")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalens",
            "run",
            str(suite / "tasks.yaml"),
            "--engine",
            "claude-code",
            "--no-judge",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=suite,
        env={**os.environ, "NO_COLOR": "1", "ANTHROPIC_API_KEY": "k"},
    )
    assert "Traceback" not in out.stderr, out.stderr
    assert out.returncode == 2, out.stdout + out.stderr
    assert "output.dir" in out.stderr and "--output-dir" in out.stderr, out.stderr
    assert not outside.exists()


def test_a_lens_run_of_a_skilljack_suite_never_writes_where_its_config_points_outside(tmp_path: Path) -> None:
    """The editor's lens run writes where ``skilljack_results_dir`` says: a config's folder inside the
    repository, else the default ``results/`` beside the suite, never a folder outside it."""
    from evalens.runner.suites.skilljack_files import skilljack_results_dir

    (tmp_path / ".git").mkdir()
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "tasks.yaml").write_text("skill: x\ntasks: []\n")
    for configured, expected in (
        (str(tmp_path.parent / "elsewhere"), suite / "results"),
        ("../../..", suite / "results"),
        ("out", suite / "out"),
    ):
        (suite / "eval.config.yaml").write_text(f"output:\n  dir: {configured}\n")
        assert skilljack_results_dir(suite / "tasks.yaml") == expected, configured


def test_a_committed_reports_link_takes_no_report_elsewhere(tmp_path: Path) -> None:
    """``evals/reports`` committed as a link: the batch is refused before it starts, nothing lands at the target."""
    from datetime import UTC, datetime

    from evalens.runner.api_types import RunError
    from evalens.runner.report import allocate_report_path

    pkg = _package(tmp_path / "pkg", {"PDF_STRICT": "1"})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (pkg / "evals" / "reports").symlink_to(elsewhere)
    with pytest.raises(RunError, match="is a symbolic link"):
        allocate_report_path(pkg, datetime.now(UTC))
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
def test_package_files_and_doctor_read_a_device_link_as_nothing(tmp_path: Path, target: str) -> None:
    """``package.agent.json`` and ``eval-config.json`` committed as links to ``/dev/zero`` or a FIFO: ``evalens
    eval --dry-run`` reads the package as having no manifest, ``evalens doctor`` (which the Action runs in the
    checkout) reads no config from it; neither hangs nor raises."""
    pkg = _package(tmp_path / "pkg", {"PDF_STRICT": "1"})
    if target == "fifo":
        os.mkfifo(tmp_path / "fifo")
        target = str(tmp_path / "fifo")
    (pkg / "package.agent.json").symlink_to(target)
    env = {**os.environ, "NO_COLOR": "1", "ANTHROPIC_API_KEY": "k"}
    out = subprocess.run(
        [sys.executable, "-m", "evalens", "eval", "--package", str(pkg), "--no-judge", "--dry-run"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert "Traceback" not in out.stderr, out.stderr[-2000:]
    assert out.returncode == 0 and "one" in out.stdout, out.stdout + out.stderr
    (pkg / "evals" / "eval-config.json").unlink()
    (pkg / "evals" / "eval-config.json").symlink_to(target)
    doctor = subprocess.run(
        [sys.executable, "-m", "evalens", "doctor", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=pkg,
        env=env,
    )
    assert "Traceback" not in doctor.stderr, doctor.stderr[-2000:]
    json.loads(doctor.stdout)


def test_the_run_log_never_appends_through_a_link(tmp_path: Path, victim: Path) -> None:
    """A resumed batch's folder can be the repository's: a ``run.log`` committed as a link is refused, and the
    linked file is neither appended to nor cut."""
    from evalens.core.regular_files import LinkRefused
    from evalens.runner.run_log import RunLogWriter

    (tmp_path / "run.log").symlink_to(victim)
    with pytest.raises(LinkRefused, match="is a symbolic link"):
        RunLogWriter(tmp_path / "run.log")
    assert victim.read_text() == "# the runner's own file\n"


def test_artifact_copies_replace_a_committed_link_instead_of_writing_through_it(
    tmp_path: Path, victim: Path
) -> None:
    from evalens.runner.sandbox import copy_bounded

    (tmp_path / "out.txt").write_text("agent output")
    (tmp_path / "artifact.txt").symlink_to(victim)
    copy_bounded(tmp_path / "out.txt", tmp_path / "artifact.txt", 1 << 20)
    assert victim.read_text() == "# the runner's own file\n"
    assert not (tmp_path / "artifact.txt").is_symlink()
    assert (tmp_path / "artifact.txt").read_text() == "agent output"
