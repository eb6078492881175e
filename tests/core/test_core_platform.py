"""``evalens.core.platform.infer_platform``: the profile a SKILL.md is judged by, from evidence in real folders
— the folders Claude Code, UAAPS and the cross-agent installer load from decide alone; otherwise Claude Code
evidence (frontmatter keys, a plugin manifest, ``CLAUDE.md``, a README installing into Claude Code) gives the
Claude Code profile unless other agents are targeted too; a README that runs ``npx skills add`` only for a
third-party skill is not such a target; and nothing is borrowed from above the repository root."""

from __future__ import annotations

from pathlib import Path

from evalens.core.platform import CLAUDE_ONLY_KEYS, Platform, frontmatter_evidence, infer_platform


def _skill(root: Path, rel: str = "skills/greet") -> Path:
    """A skill in a repository (``.git`` is the root marker)."""
    (root / ".git").mkdir(parents=True, exist_ok=True)
    folder = root / rel
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text("---\nname: greet\ndescription: Greets.\n---\nGreet.\n")
    return folder / "SKILL.md"


def test_frontmatter_evidence() -> None:
    assert frontmatter_evidence({"name": "x", "description": "d"}) == []
    assert frontmatter_evidence({"model": "opus", "hooks": {}, "allowed-tools": ["Read"]}) == [
        "`model`",
        "`hooks`",
        "`allowed-tools` as a list",
    ]
    assert frontmatter_evidence({"allowed-tools": "Read Grep"}) == []
    assert frontmatter_evidence(["model"]) == []
    assert "when_to_use" in CLAUDE_ONLY_KEYS


def test_the_loading_folders_decide_alone(tmp_path: Path) -> None:
    claude = infer_platform(tmp_path / "r" / ".claude" / "skills" / "x" / "SKILL.md", {"model": "opus"})
    assert (claude.profile, claude.claude, claude.frontmatter) == (
        "claude-code",
        ["`.claude/skills/`", "`model`"],
        ["`model`"],
    )
    assert claude.claude_only_repository
    shared = infer_platform(tmp_path / "r" / ".agents" / "skills" / "x" / "SKILL.md", {"model": "opus"})
    assert (shared.profile, shared.others) == ("agentskills", ["`.agents/skills/`"])
    assert shared.multi_agent


def test_no_evidence_is_the_strict_specification(tmp_path: Path) -> None:
    p = infer_platform(_skill(tmp_path / "repo"), {"name": "greet"})
    assert p == Platform("agentskills")
    assert p.why() == "no platform evidence: the strict agentskills specification"
    assert not p.claude_only_repository and not p.multi_agent


def test_a_uaaps_package(tmp_path: Path) -> None:
    md = _skill(tmp_path / "pkg")
    (tmp_path / "pkg" / "package.agent.json").write_text("{}")
    assert infer_platform(md, {"model": "opus"}).profile == "uaaps"


def test_claude_evidence_from_the_repository(tmp_path: Path) -> None:
    md = _skill(tmp_path / "plugin")
    (tmp_path / "plugin" / ".claude-plugin").mkdir()
    (tmp_path / "plugin" / ".claude-plugin" / "plugin.json").write_text('{"name": "greeter"}')
    (tmp_path / "plugin" / "CLAUDE.md").write_text("notes\n")
    p = infer_platform(md, {})
    assert p.profile == "claude-code"
    assert p.claude == ["`.claude-plugin/plugin.json`", "`CLAUDE.md`"]
    assert p.claude_only_repository
    assert p.why() == "Claude Code: `.claude-plugin/plugin.json`, `CLAUDE.md`"


def test_frontmatter_alone_is_claude_code_but_not_a_claude_only_repository(tmp_path: Path) -> None:
    p = infer_platform(_skill(tmp_path / "repo"), {"user-invocable": True})
    assert p.profile == "claude-code" and p.claude == ["`user-invocable`"]
    assert not p.claude_only_repository


def test_other_agents_turn_claude_evidence_portable(tmp_path: Path) -> None:
    md = _skill(tmp_path / "repo")
    (tmp_path / "repo" / "CLAUDE.md").write_text("x\n")
    (tmp_path / "repo" / ".cursor-plugin").mkdir()
    p = infer_platform(md, {})
    assert p.profile == "agentskills" and p.multi_agent
    assert p.why() == "Claude Code: `CLAUDE.md`; other agents: `.cursor-plugin`"


def test_readme_install_instructions(tmp_path: Path) -> None:
    claude_md = _skill(tmp_path / "a")
    (tmp_path / "a" / "README.md").write_text("Install: copy into ~/.claude/skills/greet\n")
    p = infer_platform(claude_md, {})
    assert (p.profile, p.claude) == ("claude-code", ["README installs into Claude Code"])

    both = _skill(tmp_path / "b")
    (tmp_path / "b" / "README.md").write_text("Use `/plugin install greet`. Also works in Cursor.\n")
    p = infer_platform(both, {})
    assert p.profile == "agentskills" and p.others == ["README mentions `Cursor`"]

    prose = _skill(tmp_path / "c")
    (tmp_path / "c" / "README.md").write_text("Copy to ~/.claude/skills. Move the cursor to the end.\n")
    assert infer_platform(prose, {}).profile == "claude-code"  # "the cursor" is no agent


def test_npx_skills_for_a_third_party_skill_is_not_shipping_to_other_agents(tmp_path: Path) -> None:
    dep = _skill(tmp_path / "greeter")
    (tmp_path / "greeter" / "README.md").write_text(
        "Install into ~/.claude/skills.\nIt needs `npx skills add vercel-labs/agent-skills` first.\n"
    )
    assert infer_platform(dep, {}).profile == "claude-code"

    own = _skill(tmp_path / "greeter2")
    (tmp_path / "greeter2" / "README.md").write_text(
        "Install into ~/.claude/skills, or `npx skills add someone/greeter2` for other agents.\n"
    )
    p = infer_platform(own, {})
    assert p.profile == "agentskills" and p.others == ["README mentions `npx skills`"]

    bare = _skill(tmp_path / "greeter3")
    (tmp_path / "greeter3" / "README.md").write_text("Install into ~/.claude/skills or with `npx skills`.\n")
    assert infer_platform(bare, {}).profile == "agentskills"


def test_nothing_is_borrowed_from_above_the_repository_root(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text("the home folder's\n")
    (tmp_path / "README.md").write_text("~/.claude/skills\n")
    md = _skill(tmp_path / "checkout")
    assert infer_platform(md, {}).profile == "agentskills"
    # without a root marker the search stops after six levels
    deep = tmp_path / "loose" / "a" / "b" / "c" / "d" / "e" / "f" / "g"
    deep.mkdir(parents=True)
    (tmp_path / "loose" / "CLAUDE.md").write_text("x\n")
    assert infer_platform(deep / "SKILL.md", {}).profile == "agentskills"
    assert infer_platform(tmp_path / "loose" / "a" / "SKILL.md", {}).profile == "claude-code"
