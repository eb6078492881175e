"""The composite GitHub Action (`action.yml`): its shell steps run locally with a fake GITHUB_* environment.
Fast tier: a scripted `claude`; agents tier: the real `codex` against the fake model server."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from evalens.runner.engines import get_engine
from evalens.runner.report import load_report
from tests.ci_helpers import validate_junit
from tests.conftest import REPO
from tests.runner.actions_emulator import Emulator, base_env, parse_outputs
from tests.runner.ci_fixtures import scripted_agent_fixture, twelve_case_package  # noqa: F401 - fixture
from tests.runner.runner_helpers import agents_available, case, make_package
from tests.workflow_log import commands


def _validate_junit(path: Path) -> None:
    validate_junit(path.read_text(encoding="utf-8"))


def test_action_runs_validates_reports_and_sets_outputs(
    tmp_path: Path, scripted_agent: Path, sandbox_dir: Path
) -> None:
    workspace = tmp_path / "repo"
    twelve_case_package(workspace / "pkg")
    run = Emulator(
        REPO,
        workspace,
        {"package": "pkg", "agent": "claude-code", "no-judge": "true", "jobs": "4"},
        base_env(),
    ).run(tmp_path / "steps")
    steps = run.steps
    assert [s for s in steps if steps[s].ran] == [
        "prepare",
        "install-evalens",
        "install-agent",
        "install-sandbox",
        "validate",
        "run",
        "view",
        "upload",
    ]
    for sid in ("prepare", "install-evalens", "install-agent", "install-sandbox", "validate"):
        assert steps[sid].returncode == 0, (sid, steps[sid].stdout, steps[sid].stderr)
    assert "using claude at" in steps["install-agent"].stdout  # found on PATH: nothing downloaded
    # 3 cases fail and 1 errors: the step fails (fail-on-failure defaults to true), later steps still run
    assert steps["run"].returncode == 1 and not run.success
    out = run.outputs
    assert out["pass-rate"] == "0.6667" and (out["total"], out["passed"], out["failed"], out["errored"]) == (
        "12",
        "8",
        "3",
        "1",
    )
    assert out["verdict"] == "fail" and out["flaky"] == "0" and out["skipped"] == "0"
    assert out["report-path"] == "evalens-out/report.json" and out["junit-path"] == "evalens-out/junit.xml"
    assert out["artifact-name"] == "evalens" and out["sarif-path"] == "evalens-out/evalens.sarif"
    report = load_report(workspace / out["report-path"])
    assert report.summary.total == 12
    _validate_junit(workspace / out["junit-path"])
    sarif = json.loads((workspace / out["sarif-path"]).read_text())
    assert sarif["version"] == "2.1.0"
    # annotations: one per failing / erroring case, at the case file's failed check, relative to the workspace
    annotations = [line for line in steps["run"].stdout.splitlines() if line.startswith("::")]
    assert len(annotations) == 4
    failing = next(a for a in annotations if "case-02" in a)
    assert re.match(
        r"::error file=pkg/evals/cases/02-case-02\.yaml,line=\d+,title=evalens FAIL%3A case-02::"
        r"contains 'GREETING-OK'",
        failing,
    ), failing
    line = int(re.search(r"line=(\d+)", failing).group(1))
    assert "GREETING-OK" in (workspace / "pkg/evals/cases/02-case-02.yaml").read_text().splitlines()[line - 1]
    assert any(
        a.startswith("::error file=pkg/evals/cases/09-case-09.yaml,") and "ERROR" in a for a in annotations
    )
    # the step summary
    assert "## evalens: test-pkg" in run.summary and "**8/12 passed (67%)**" in run.summary
    assert "| ❌ FAIL | 3 |" in run.summary and "| 💥 ERROR | 1 |" in run.summary
    # the run view page (`evalens show --html`; the step skips itself on an evalens without it)
    view = steps["view"]
    assert view.returncode == 0, view.stderr
    assert out["html-path"] == "evalens-out/report.html"
    page = (workspace / out["html-path"]).read_text()
    assert "case-02" in page and "case-09" in page
    assert steps["upload"].with_ == {"name": "evalens", "path": "evalens-out", "if-no-files-found": "ignore"}
    assert list(sandbox_dir.iterdir()) == []


def test_action_shard_and_a_broken_package(tmp_path: Path, scripted_agent: Path, sandbox_dir: Path) -> None:
    workspace = tmp_path / "repo"
    make_package(workspace / "pkg", cases={f"c{i}": case("pass", contains=["GREETING-OK"]) for i in range(4)})
    inputs = {
        "package": "pkg",
        "no-judge": "true",
        "shard": "2/3",
        "validate": "false",
        "fail-on-failure": "false",
        "output-dir": "out",
        "durations": "last/report.json",
    }
    run = Emulator(REPO, workspace, inputs, base_env()).run(tmp_path / "steps")
    assert run.success and not run.steps["validate"].ran
    assert "::notice::durations source last/report.json not found" in run.steps["run"].stdout
    assert run.outputs["artifact-name"] == "evalens-shard-2-of-3"
    report = load_report(workspace / "out" / "report.json")
    assert (report.shard.index, report.shard.count, report.shard.balanced_by) == (2, 3, "count")
    assert run.outputs["total"] == str(len(report.cases)) and run.outputs["verdict"] == "pass"
    assert "(shard 2/3)" in run.summary
    # an invalid case file stops the action at validation: nothing runs, the outputs stay empty
    (workspace / "pkg" / "evals" / "cases" / "99-bad.yaml").write_text("name: bad\ninput: {}\n")
    broken = Emulator(
        REPO, workspace, {"package": "pkg", "no-judge": "true", "output-dir": "out2"}, base_env()
    ).run(tmp_path / "steps2")
    assert broken.steps["validate"].returncode == 1 and not broken.steps["run"].ran
    assert broken.outputs["report-path"] == "" and broken.steps["upload"].ran
    assert "bad" in broken.steps["validate"].stdout + broken.steps["validate"].stderr
    # `validate --format github`: the problems are annotations on the pull request, at the file and line
    assert re.search(
        r"^::error file=pkg/evals/cases/99-bad\.yaml,line=\d+,col=\d+,.*title=evalens ",
        broken.steps["validate"].stdout,
        re.M,
    ), broken.steps["validate"].stdout
    assert not broken.steps["upload-sarif"].ran  # only when asked
    asked = Emulator(
        REPO,
        workspace,
        {"package": "pkg", "run": "false", "upload-sarif": "true", "output-dir": "out3"},
        base_env(),
    ).run(tmp_path / "steps3")
    assert asked.steps["upload-sarif"].with_ == {"sarif_file": "out3/evalens.sarif", "category": "evalens"}


def test_action_runs_only_the_cases_changed_since_a_ref_under_limits(
    tmp_path: Path, scripted_agent: Path, sandbox_dir: Path
) -> None:
    """``changed-since`` (a pull request's base SHA) narrows the run to the changed cases; ``max-turns`` and
    ``limits`` reach ``evalens eval``."""
    workspace = tmp_path / "repo"
    make_package(
        workspace / "pkg", cases={n: case("pass", contains=["GREETING-OK"]) for n in ("kept", "edited")}
    )
    git = ["git", "-C", str(workspace), "-c", "user.email=ci@example.com", "-c", "user.name=ci"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    base = subprocess.run(
        [*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    edited = next((workspace / "pkg" / "evals" / "cases").glob("*edited.yaml"))
    edited.write_text(edited.read_text().replace("SCENARIO=pass", "SCENARIO=pass please"))
    subprocess.run([*git, "commit", "-qam", "edit one case"], check=True)
    inputs = {
        "package": "pkg",
        "no-judge": "true",
        "validate": "false",
        "output-dir": "out",
        "changed-since": base,
        "max-turns": "8",
        "limits": "pids=512 workspace-mb=200",
    }
    run = Emulator(REPO, workspace, inputs, base_env()).run(tmp_path / "steps")
    assert run.success, run.steps["run"].stdout + run.steps["run"].stderr
    report = load_report(workspace / "out" / "report.json")
    assert [c.name for c in report.cases] == ["edited"]
    assert "edited:" in run.steps["run"].stderr and "kept" not in [c.name for c in report.cases]
    bad = Emulator(REPO, workspace, {**inputs, "limits": "ram=3", "output-dir": "out2"}, base_env()).run(
        tmp_path / "steps2"
    )
    assert not bad.success and "unknown limit 'ram'" in bad.steps["run"].stderr


SYSCTL = """#!/bin/sh
# sysctl on a runner stand-in: kernel.apparmor_restrict_unprivileged_userns kept in a file ($SYSCTL_STATE)
case "$1" in
  -n) [ "$2" = kernel.apparmor_restrict_unprivileged_userns ] || exit 255; cat "$SYSCTL_STATE" ;;
  -w) echo "$2" >> "$SYSCTL_STATE.log"; echo "${2#*=}" > "$SYSCTL_STATE" ;;
  *) exit 2 ;;
esac
"""


def test_action_lifts_apparmor_and_requires_the_sandbox(
    tmp_path: Path, scripted_agent: Path, sandbox_dir: Path
) -> None:
    workspace = tmp_path / "repo"
    make_package(workspace / "pkg", cases={"good": case("pass", contains=["GREETING-OK"])})
    stand_in = tmp_path / "stand-in"
    stand_in.mkdir()
    (stand_in / "sysctl").write_text(SYSCTL)
    (stand_in / "sysctl").chmod(0o755)
    state = tmp_path / "userns"
    state.write_text("1\n")  # Ubuntu 24.04's default: bwrap cannot map its uid
    env = base_env() | {"PATH": f"{stand_in}{os.pathsep}{os.environ['PATH']}", "SYSCTL_STATE": str(state)}
    inputs = {"package": "pkg", "agent": "claude-code", "no-judge": "true", "validate": "false"}
    run = Emulator(REPO, workspace, inputs, env).run(tmp_path / "steps")
    setup = run.steps["install-sandbox"]
    assert setup.returncode == 0, setup.stdout + setup.stderr
    # bubblewrap already works here (as a profile would let it): the machine-wide restriction is left alone;
    # test_sandbox_setup_as_the_runner_user_with_sudo shows it lifted where bwrap is blocked
    assert state.read_text().strip() == "1" and not (tmp_path / "userns.log").exists()
    assert "evalens doctor" in setup.stdout and "sandbox" in setup.stdout
    assert run.success and run.outputs["sandboxed"] == "true" and "sandboxed: true" in run.summary
    # a sandbox bubblewrap cannot enforce: `required` (the default) stops the run before any agent starts
    unusable = env | {"EVALENS_NO_BWRAP": "1"}
    refused = Emulator(REPO, workspace, inputs | {"output-dir": "out2"}, unusable).run(tmp_path / "steps2")
    assert refused.steps["run"].returncode == 2 and not refused.success
    assert "the sandbox is required" in refused.steps["run"].stderr
    assert not (workspace / "out2" / "report.json").exists() and refused.outputs["sandboxed"] == ""
    # `preferred` runs with the engine's own sandbox, and the outputs and the summary say so
    opted = Emulator(REPO, workspace, inputs | {"output-dir": "out3", "sandbox": "preferred"}, unusable).run(
        tmp_path / "steps3"
    )
    assert opted.success, opted.steps["run"].stderr
    assert opted.outputs["sandboxed"] == "engine" and "sandboxed: engine" in opted.summary
    assert load_report(workspace / "out3" / "report.json").sandbox.enforced is False
    # `off` installs nothing
    off = Emulator(
        REPO, workspace, inputs | {"output-dir": "out4", "sandbox": "off", "run": "false"}, unusable
    ).run(tmp_path / "steps4")
    assert not off.steps["install-sandbox"].ran


def test_action_injection_neither_forges_nor_hides(
    tmp_path: Path, scripted_agent: Path, sandbox_dir: Path
) -> None:
    """An agent whose failure text holds the issue's injection: the step's log, read as the runner reads it
    (stderr first, the worst order), holds exactly evalens's own annotations."""
    workspace = tmp_path / "repo"
    make_package(
        workspace / "pkg",
        cases={
            "steered": {"input": {"prompt": "INJECTME"}, "expected": {"contains": ["GREETING-OK"]}},
            "failing": {
                "input": {"prompt": "write a greeting FAILME"},
                "expected": {"contains": ["GREETING-OK"]},
            },
        },
    )
    run = Emulator(
        REPO,
        workspace,
        {
            "package": "pkg",
            "agent": "claude-code",
            "no-judge": "true",
            "validate": "false",
            "args": "--verbose",
        },
        base_env(),
    ).run(tmp_path / "steps")
    step = run.steps["run"]
    assert step.returncode == 1, step.stderr
    assert "FAKE" in step.stdout + step.stderr, step.stdout + step.stderr  # shown, as inert text
    parsed = commands(step.stderr + step.stdout)
    assert [c for c, _ in parsed] == ["error", "error"], parsed
    assert not any(data.startswith("FAKE") for _, data in parsed)
    assert "FAKE" not in run.outputs.get("verdict", "") and run.outputs["errored"] == "1"


def test_outputs_parser_reads_both_forms() -> None:
    assert parse_outputs("a=1\nb<<EOF\nx\ny\nEOF\nc=d=e\n") == {"a": "1", "b": "x\ny", "c": "d=e"}


@pytest.mark.agents
def test_action_with_codex_and_the_fake_model(tmp_path: Path, model_env, sandbox_dir: Path) -> None:
    if not agents_available("codex"):
        pytest.skip("codex CLI not installed")
    workspace = tmp_path / "repo"
    make_package(
        workspace / "pkg",
        engine="codex",
        cases={
            "good": case("pass", contains=["GREETING-OK"]),
            "judged-bad": case("pass", judge="fail", contains=["GREETING-OK"]),
        },
    )
    inputs = {
        "package": "pkg",
        "agent": "codex",
        "model": "gpt-fake",
        "judge": "openai:gpt-fake",
        "jobs": "2",
    }
    run = Emulator(REPO, workspace, inputs, base_env()).run(tmp_path / "steps")
    assert run.steps["run"].returncode == 1, run.steps["run"].stderr
    assert (run.outputs["passed"], run.outputs["failed"], run.outputs["pass-rate"]) == ("1", "1", "0.5000")
    (annotation,) = [x for x in run.steps["run"].stdout.splitlines() if x.startswith("::error")]
    assert "title=evalens FAIL%3A judged-bad" in annotation and "judge:" in annotation
    _validate_junit(workspace / run.outputs["junit-path"])
    assert "**1/2 passed (50%)**" in run.summary


NPM = """#!/bin/sh
# npm on a runner stand-in: records the install and puts a `codex` next to itself
echo "$@" >> "$(dirname "$0")/npm.log"
printf '#!/bin/sh\\necho "codex-cli stand-in"\\n' > "$(dirname "$0")/codex"
chmod +x "$(dirname "$0")/codex"
"""


def test_action_pins_the_verified_agent_cli(tmp_path: Path) -> None:
    """No agent CLI on PATH: the action installs the version the stream readers were verified with."""
    workspace = tmp_path / "repo"
    make_package(workspace / "pkg", engine="codex", cases={"a": case("pass")})
    stand_in = tmp_path / "stand-in"
    stand_in.mkdir()
    (stand_in / "npm").write_text(NPM)
    (stand_in / "npm").chmod(0o755)
    tools = tmp_path / "tools"  # every program on PATH but `codex`: the runner image has no agent CLI
    tools.mkdir()
    for folder in os.environ["PATH"].split(os.pathsep):
        for program in Path(folder).glob("*") if folder and Path(folder).is_dir() else ():
            if (
                program.name != "codex"
                and not (tools / program.name).exists()
                and os.access(program, os.X_OK)
            ):
                (tools / program.name).symlink_to(program)
    env = base_env() | {"PATH": os.pathsep.join([str(stand_in), str(tools)])}
    inputs = {"package": "pkg", "validate": "false", "run": "true", "sandbox": "off", "args": "--dry-run"}
    run = Emulator(REPO, workspace, inputs, env).run(tmp_path / "steps")
    step = run.steps["install-agent"]
    assert step.returncode == 0, step.stdout + step.stderr
    assert (stand_in / "npm.log").read_text().split() == [
        "install",
        "--global",
        "--no-fund",
        "--no-audit",
        f"@openai/codex@{get_engine('codex').verified_versions[1]}",  # the pin
    ]
    latest = Emulator(REPO, workspace, inputs | {"agent-version": "latest", "output-dir": "o2"}, env)
    (stand_in / "codex").unlink()
    assert latest.run(tmp_path / "steps2").steps["install-agent"].returncode == 0
    assert (stand_in / "npm.log").read_text().split()[-1] == "@openai/codex@latest"


GH = '''#!{python}
"""gh on a runner stand-in: the issue-comments API of one pull request, kept in $GH_STATE."""
import json, os, sys
state = os.environ["GH_STATE"]
comments = json.load(open(state)) if os.path.exists(state) else []
args = sys.argv[1:]
method = args[args.index("-X") + 1] if "-X" in args else "GET"
path = next(a for a in args[1:] if a.startswith("repos/"))
if method == "GET":
    assert path == "repos/owner/repo/issues/7/comments" and "--paginate" in args, args
    for c in comments:
        print(json.dumps({{"id": c["id"], "body": c["body"]}}))
    sys.exit(0)
body = open(args[args.index("-F") + 1].split("=@", 1)[1]).read()
if method == "POST":
    assert path == "repos/owner/repo/issues/7/comments", path
    comments.append({{"id": 100 + len(comments), "body": body}})
else:
    cid = int(path.rsplit("/", 1)[1])
    next(c for c in comments if c["id"] == cid)["body"] = body
json.dump(comments, open(state, "w"))
'''


def test_action_posts_one_pr_comment_and_updates_it(
    tmp_path: Path, scripted_agent: Path, sandbox_dir: Path
) -> None:
    import sys

    workspace = tmp_path / "repo"
    make_package(
        workspace / "pkg",
        cases={
            "good": {"input": {"prompt": "write a greeting"}, "expected": {"contains": ["GREETING-OK"]}},
            "bad": {
                "input": {"prompt": "write a greeting FAILME"},
                "expected": {"contains": ["GREETING-OK"]},
            },
        },
    )
    stand_in = tmp_path / "stand-in"
    stand_in.mkdir()
    (stand_in / "gh").write_text(GH.format(python=sys.executable))
    (stand_in / "gh").chmod(0o755)
    state = tmp_path / "comments.json"
    state.write_text(json.dumps([{"id": 1, "body": "a human's comment"}]))
    env = base_env() | {"PATH": f"{stand_in}{os.pathsep}{os.environ['PATH']}", "GH_STATE": str(state)}
    pr = {"event.pull_request.number": "7", "token": "t", "run_id": "42"}
    inputs = {
        "package": "pkg",
        "agent": "claude-code",
        "no-judge": "true",
        "validate": "false",
        "fail-on-failure": "false",
        "pr-comment": "true",
    }
    first = Emulator(REPO, workspace, inputs, env, pr).run(tmp_path / "steps")
    assert first.steps["comment"].returncode == 0, first.steps["comment"].stderr
    comments = json.loads(state.read_text())
    assert len(comments) == 2 and comments[0]["body"] == "a human's comment"
    body = comments[1]["body"]
    assert body.startswith("<!-- evalens:pr-comment:evalens -->\n") and "**1/2 passed (50%)**" in body
    assert "No base report" in body and "| ❌ FAIL | bad |" in body
    assert "https://github.com/owner/repo/actions/runs/42" in body
    # the next run on the pull request updates the same comment, now against a base report
    base = workspace / "base.json"
    base.write_text((workspace / "evalens-out" / "report.json").read_text())
    second = Emulator(
        REPO, workspace, inputs | {"base-report": "base.json", "output-dir": "out2"}, env, pr
    ).run(tmp_path / "steps2")
    assert "updated" in second.steps["comment"].stdout, second.steps["comment"].stderr
    comments = json.loads(state.read_text())
    assert (
        len(comments) == 2
        and "**Against the base:** pass rate 50% → 50% · no regression" in comments[1]["body"]
    )
    # the paired gate ran against the base by default: 2 equal units cannot rule out a 5-point drop
    gate = second.steps["gate"]
    assert gate.returncode == 0 and gate.outputs["regression"] == "INCONCLUSIVE", gate.stderr
    assert "::warning title=evalens regression gate::INCONCLUSIVE" in gate.stdout
    assert not first.steps["gate"].ran  # no base report: no gate
    # not a pull request: no comment step
    push = Emulator(REPO, workspace, inputs | {"output-dir": "out3"}, env).run(tmp_path / "steps3")
    assert not push.steps["comment"].ran


@pytest.mark.agents
def test_the_whole_action_as_the_runner_user(tmp_path: Path, model_env) -> None:
    """A stand-in of ubuntu-latest for every step: an unprivileged runner user with a passwordless ``sudo``
    (a stand-in that logs and runs the command as that user), evalens and the real ``claude`` on PATH. The
    action validates, runs in bubblewrap as that user, and writes the report, JUnit, SARIF and outputs."""
    import shutil
    import uuid

    from evalens.runner.sandbox import bubblewrap_usable
    from tests.runner.runner_helpers import agents_available
    from tests.runner.test_agents_sandbox import UNPRIVILEGED_UID, evalens_command

    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to become an unprivileged user")
    if not agents_available("claude-code") or not bubblewrap_usable():
        pytest.skip("needs the claude CLI and a usable bubblewrap")
    from evalens.runner.engines import get_engine

    claude = get_engine("claude-code").binary
    work = Path("/var/tmp/evalens-tests") / f"runner-user-{uuid.uuid4().hex[:8]}"
    workspace = work / "repo"
    make_package(
        workspace / "pkg",
        cases={
            "good": case("pass", contains=["GREETING-OK"]),
            "bad": case("fail-contains", contains=["GREETING-OK"]),
        },
    )
    for folder in ("home", "sandboxes", "bin", "steps"):
        (work / folder).mkdir(parents=True)
    log = work / "sudo.log"
    log.write_text("")
    try:
        work.parent.chmod(0o755)
        work.chmod(0o755)
        prefix = evalens_command("unprivileged", work)  # chowns `work` to the runner user
        become, boot = prefix[: prefix.index("--") + 1], prefix[prefix.index("--") + 1 :]
        (work / "boot.py").write_text(boot[2])
        tools = {
            "evalens": f'#!/bin/sh\nexec {boot[0]} {work / "boot.py"} "$@"\n',
            "sudo": f'#!/bin/sh\necho "sudo $*" >> {log}\n[ "$1" = -n ] && shift\nexec "$@"\n',
        }
        for name, text in tools.items():
            (work / "bin" / name).write_text(text)
            (work / "bin" / name).chmod(0o755)
        (work / "bin" / "claude").symlink_to(claude)
        path = f"{work / 'bin'}:{Path(boot[0]).parent}:/usr/local/bin:/usr/bin:/bin"
        env = base_env() | {
            "PATH": path,
            "HOME": str(work / "home"),
            "EVALENS_SANDBOX_DIR": str(work / "sandboxes"),
        }
        for dirpath, dirnames, filenames in os.walk(work):
            for name in [dirpath, *(os.path.join(dirpath, n) for n in dirnames + filenames)]:
                os.lchown(name, UNPRIVILEGED_UID, UNPRIVILEGED_UID)
        run = Emulator(
            REPO, workspace, {"package": "pkg", "no-judge": "true", "output-dir": "out"}, env, become=become
        ).run(work / "steps")
        steps = run.steps
        for sid in ("install-evalens", "install-agent", "install-sandbox", "validate"):
            assert steps[sid].returncode == 0, (sid, steps[sid].stdout, steps[sid].stderr)
        assert "using evalens" in steps["install-evalens"].stdout
        assert steps["run"].returncode == 1, steps["run"].stdout + steps["run"].stderr  # one case fails
        out = run.outputs
        assert (out["total"], out["passed"], out["failed"], out["sandboxed"]) == ("2", "1", "1", "true")
        report = workspace / out["report-path"]
        assert report.stat().st_uid == UNPRIVILEGED_UID  # written by the runner user, not root
        assert load_report(report).sandbox.enforced
        _validate_junit(workspace / out["junit-path"])
        assert json.loads((workspace / out["sarif-path"]).read_text())["version"] == "2.1.0"
        assert "**1/2 passed (50%)**" in run.summary
        assert log.read_text() == ""  # bubblewrap worked as this user: nothing needed sudo
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_sandbox_setup_as_the_runner_user_with_sudo() -> None:
    """The action's sandbox step on a stand-in of ubuntu-latest: a non-root user with passwordless sudo, no
    bubblewrap or socat installed, AppArmor restricting user namespaces (a simulated sysctl)."""
    import shutil
    import tempfile

    import yaml

    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to become an unprivileged user")
    step = next(
        s
        for s in yaml.safe_load((REPO / "action.yml").read_text())["runs"]["steps"]
        if s.get("id") == "install-sandbox"
    )
    home = Path(tempfile.mkdtemp(prefix="evalens-runner-"))
    try:
        home.chmod(0o777)
        log = home / "calls.log"
        log.write_text("")
        log.chmod(0o666)
        state = home / "userns"
        state.write_text("1\n")
        state.chmod(0o666)
        tools = {
            "sudo": f'#!/bin/sh\necho "sudo $*" >> {log}\n[ "$1" = -n ] && shift\nexec "$@"\n',
            "apt-get": f'#!/bin/sh\necho "apt-get $*" >> {log}\n',
            "sysctl": SYSCTL.replace('echo "$2" >> "$SYSCTL_STATE.log"; ', ""),
            "evalens": f'#!/bin/sh\necho "evalens $*" >> {log}\n',
        }
        bindir = home / "bin"
        bindir.mkdir()
        for name, text in tools.items():
            (bindir / name).write_text(text)
            (bindir / name).chmod(0o755)
        for tool in ("id", "cat"):  # no bwrap, no socat: the runner image has neither
            (bindir / tool).symlink_to(shutil.which(tool) or f"/usr/bin/{tool}")
        (home / "step.sh").write_text(step["run"])
        env = {
            "PATH": str(bindir),
            "SYSCTL_STATE": str(state),
            "PACKAGE": str(home / "absent"),
            "HOME": str(home),
            "SANDBOX": "required",
        }
        become = [shutil.which("setpriv") or "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        done = subprocess.run(
            [*become, "/bin/bash", "--noprofile", "--norc", "-eo", "pipefail", str(home / "step.sh")],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            cwd=home,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert log.read_text().splitlines() == [
            "sudo -n apt-get update -qq",
            "apt-get update -qq",
            "sudo -n apt-get install -y -qq --no-install-recommends bubblewrap socat",
            "apt-get install -y -qq --no-install-recommends bubblewrap socat",
            "sudo -n sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
            "evalens doctor",
        ]
        assert state.read_text().strip() == "0"
        # apt-get fails (no network, a broken mirror): required stops here, preferred warns and goes on
        (bindir / "apt-get").write_text("#!/bin/sh\nexit 100\n")
        for policy, code in (("required", 1), ("preferred", 0)):
            failed = subprocess.run(
                [*become, "/bin/bash", "--noprofile", "--norc", "-eo", "pipefail", str(home / "step.sh")],
                env=env | {"SANDBOX": policy},
                capture_output=True,
                text=True,
                timeout=60,
                cwd=home,
            )
            assert failed.returncode == code, (policy, failed.stdout, failed.stderr)
            assert ("::error::" if code else "::warning::") in failed.stdout
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_action_installs_evalens_from_its_own_checkout(tmp_path: Path) -> None:
    """No evalens of this checkout's version on PATH: pip installs the action's own folder; a version or a pip
    requirement (a git URL until a release exists) replaces it. The stand-in python3 only records."""
    stand_in = tmp_path / "stand-in"
    stand_in.mkdir()
    (stand_in / "python3").write_text(f'#!/bin/sh\necho "$*" >> {stand_in}/pip.log\n')
    (stand_in / "evalens").write_text('#!/bin/sh\necho "evalens 0.0.1-other"\n')  # a stale evalens on PATH
    for name in ("python3", "evalens"):
        (stand_in / name).chmod(0o755)
    env = base_env() | {"PATH": f"{stand_in}{os.pathsep}{os.environ['PATH']}"}
    workspace = tmp_path / "repo"
    workspace.mkdir()
    asked = {  # isolated (-I): `-m pip` in the checkout would import a repository's own pip/ first (#42)
        "": f"-I -m pip install --quiet {REPO}",
        "0.3.0": "-I -m pip install --quiet evalens==0.3.0",
        "git+https://github.com/OWNER/evalens@v0.1.0": "-I -m pip install --quiet git+https://github.com/OWNER/evalens@v0.1.0",
    }
    for version, expected in asked.items():
        run = Emulator(
            REPO,
            workspace,
            {"run": "false", "validate": "false", "upload": "false", "evalens-version": version},
            env,
        ).run(tmp_path / f"steps{len(version)}")
        assert run.steps["install-evalens"].returncode == 0, run.steps["install-evalens"].stderr
        assert (stand_in / "pip.log").read_text().splitlines()[-1] == expected
