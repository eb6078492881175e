"""Ablation arms (runner/arms.py): what each arm installs of a real package into a real workspace, a ref arm
from a git worktree removed afterwards, and the comparison's paired interval by hand."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from evalens.runner.arms import Arm, ArmError, compare, opened, parse, resolve_arm
from evalens.runner.engines import get_engine
from evalens.runner.engines.base import SandboxPaths
from evalens.runner.install import install_package, read_package
from tests.ci_helpers import make_case, make_report

HOOKS = {
    "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./hooks/h.sh"}]}]}
}


def _package(root: Path) -> Path:
    skill = root / "skills" / "greeter"
    (skill / "references").mkdir(parents=True)
    (skill / "scripts").mkdir()
    (skill / "SKILL.md").write_text("---\nname: greeter\ndescription: Greets.\n---\nGreet.\n")
    (skill / "references" / "style.md").write_text("warmly\n")
    (skill / "scripts" / "go.sh").write_text("echo hi\n")
    (root / "hooks").mkdir()
    (root / "hooks" / "hooks.json").write_text(json.dumps(HOOKS))
    (root / "hooks" / "h.sh").write_text("exit 0\n")
    (root / "rules").mkdir()
    (root / "rules" / "r.md").write_text("Be brief.\n")
    (root / "package.agent.json").write_text(json.dumps({"name": "greetings", "version": "1.0.0"}))
    return root


def _installed(arm: Arm, pkg: Path, tmp: Path) -> set[str]:
    """Every file the arm's run finds in a fresh workspace (Claude Code's layout)."""
    ws = tmp / f"ws-{arm.name.replace(':', '-')}"
    paths = SandboxPaths(tmp, ws, tmp / "home", tmp / "config", tmp / "logs")
    for p in (ws, paths.home, paths.config_home, paths.logs):
        p.mkdir(parents=True, exist_ok=True)
    info = arm.package(read_package(pkg))
    if info is not None:
        install_package(info, get_engine("claude-code"), paths)
    return {str(p.relative_to(ws)) for p in ws.rglob("*") if p.is_file()}


def test_each_arm_installs_its_part_of_the_package(tmp_path: Path) -> None:
    pkg = _package(tmp_path / "pkg")
    skill_files = {
        ".claude/skills/greeter/SKILL.md",
        ".claude/skills/greeter/references/style.md",
        ".claude/skills/greeter/scripts/go.sh",
    }
    seen = {}
    for name in ("skill", "no-skill", "plugin", "without:references", "without:scripts", "without:hooks"):
        arm = resolve_arm(name, pkg)
        with opened(arm):
            seen[name] = _installed(arm, pkg, tmp_path)
        assert arm.folder is None  # the filtered copies are gone
    assert seen["no-skill"] == set()
    assert seen["skill"] == skill_files | {"package.agent.json"}  # no hooks, no rules
    plugin = seen["plugin"]
    assert skill_files <= plugin and "CLAUDE.md" in plugin and ".claude/settings.json" in plugin
    assert ".evalens-package/hooks/h.sh" in plugin
    assert seen["without:references"] == plugin - {".claude/skills/greeter/references/style.md"}
    assert seen["without:scripts"] == plugin - {".claude/skills/greeter/scripts/go.sh"}
    no_hooks = seen["without:hooks"]
    assert skill_files <= no_hooks and "CLAUDE.md" in no_hooks
    assert not any(f.startswith(".evalens-package") or f == ".claude/settings.json" for f in no_hooks)
    manifest = json.loads((tmp_path / "ws-without-references" / "package.agent.json").read_text())
    assert manifest["name"] == "greetings"  # the package's name, not the copy's folder


def test_file_suite_skills_per_arm(tmp_path: Path) -> None:
    pkg = _package(tmp_path / "pkg")
    skills = {"greeter": pkg / "skills" / "greeter" / "SKILL.md"}
    assert resolve_arm("no-skill", pkg).skills(skills) == {}
    assert resolve_arm("plugin", pkg).skills(skills) == skills
    arm = resolve_arm("without:scripts", pkg)
    with opened(arm):
        copy = arm.skills(skills)["greeter"]
        assert copy.read_text() == skills["greeter"].read_text()
        assert (copy.parent / "references" / "style.md").is_file() and not (copy.parent / "scripts").exists()
        assert arm.skills(skills)["greeter"] == copy  # copied once
    assert not copy.exists()


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"}
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    ).stdout.strip()


def test_ref_arm_installs_the_package_as_it_was(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    pkg = _package(repo / "pkg")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "v1")
    _git(repo, "tag", "v1")
    (pkg / "skills" / "greeter" / "SKILL.md").write_text("---\nname: greeter\ndescription: New.\n---\nNew.\n")
    arm = resolve_arm("ref:v1", pkg)
    assert arm.label.startswith("v1 (") and arm.source().commit == _git(repo, "rev-parse", "v1")
    with opened(arm):
        info = arm.package(read_package(pkg))
        assert "Greets." in (info.skills["greeter"] / "SKILL.md").read_text()
        tree = arm.ref.worktree
        assert tree is not None and tree.is_dir()
    assert not tree.exists() and "worktree" not in _git(repo, "worktree", "list").split("\n", 1)[-1]
    with pytest.raises(ArmError, match=r"--arms ref:nope: unknown git ref"):
        resolve_arm("ref:nope", pkg)


def test_parse_refuses_unknown_repeated_and_lonely_arms() -> None:
    assert parse("skill, no-skill,ref:v1.2,without:hooks") == [
        "skill",
        "no-skill",
        "ref:v1.2",
        "without:hooks",
    ]
    for bad, why in (
        ("skill,without:docs", "not an arm"),
        ("skill,skill", "named twice"),
        ("skill", "at least two"),
        ("skill,ref:", "not an arm"),
    ):
        with pytest.raises(ArmError, match=why):
            parse(bad)


def test_comparison_pairs_units_by_identity() -> None:
    f = "evals/cases/c.yaml"
    ref = make_report(
        [make_case(n, "PASS", file=f) for n in ("a", "b", "c", "d")] + [make_case("e", "FAIL", file=f)]
    )
    arm = make_report(
        [make_case(n, v, file=f) for n, v in (("a", "FAIL"), ("b", "FAIL"), ("c", "PASS"), ("e", "PASS"))]
        + [make_case("only-arm", "PASS", file=f)]
    )
    units, pooled, method = compare(ref, arm, "no skill")
    assert (
        set(units) == {"a", "b", "c", "e"} and units["a"].difference == 1.0 and units["e"].difference == -1.0
    )
    # paired over a, b, c, e: both passed 1 (c), worse 1 (e: the arm passed, the reference failed), better 2
    # (a, b), neither 0 → d = 3/4 − 2/4 = +0.25; interval as newcombe_paired_difference(1, 1, 2, 0)
    from evalens.runner.stats import newcombe_paired_difference

    d, lo, hi = newcombe_paired_difference(1, 1, 2, 0)
    assert method == "newcombe-paired" and pooled is not None and pooled.difference == 0.25 == round(d, 4)
    assert pooled.interval == [round(lo, 4), round(hi, 4)]
    assert (pooled.passed, pooled.counted, pooled.baseline_passed, pooled.baseline_counted) == (3, 4, 2, 4)
    many = make_report([make_case("a", "PASS", file=f, run_verdicts=["PASS", "PASS", "FAIL"], runs=3)])
    few = make_report([make_case("a", "FAIL", file=f, run_verdicts=["FAIL", "FAIL", "PASS"], runs=3)])
    _, pooled, method = compare(many, few, "plugin")
    assert (
        method == "paired-bootstrap"
        and pooled is not None
        and pooled.difference == pytest.approx(1 / 3, abs=1e-4)
    )
