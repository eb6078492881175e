"""Plugin and Codex metadata formats (issue #39, item 3): what claims each file, and the checks the Claude CLI
oracle (`test_claude_plugin_oracle.py`) cannot show: severities below error, Codex (which has no validator) and
the git-checkout rule for missing paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalens.core.aggregate import related_of
from evalens.core.formats.registry import detect
from evalens.core.problems import Severity
from tests.format_helpers import apply, check


def _write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2), encoding="utf-8")
    return path


def _levels(path: Path) -> dict[str, Severity]:
    return {p.code: p.severity for p in check(path).problems}


def test_each_file_is_claimed_by_its_format(tmp_path: Path) -> None:
    plugin = tmp_path / "p"
    files = {
        ".claude-plugin/plugin.json": ({"name": "p"}, "claude-plugin"),
        ".claude-plugin/marketplace.json": (
            {"name": "m", "owner": {"name": "o"}, "plugins": []},
            "claude-marketplace",
        ),
        "hooks/hooks.json": ({"hooks": {}}, "claude-hooks"),
        ".codex-plugin/plugin.json": ({"name": "p"}, "codex-plugin"),
    }
    for rel, (data, fmt) in files.items():
        path = _write(plugin / rel, data)
        found = detect(str(path), path.read_text()).format
        assert found is not None and found.id == fmt, rel
    skill = tmp_path / "s"
    _write(skill / "SKILL.md", "---\nname: s\ndescription: d\n---\n")
    path = _write(skill / "agents" / "openai.yaml", "interface:\n  display_name: S\n")
    found = detect(str(path), path.read_text()).format
    assert found is not None and found.id == "codex-skill-metadata"


def test_another_tools_hooks_json_is_left_alone(tmp_path: Path) -> None:
    """`hooks/hooks.json` outside a plugin, without a Claude Code event, belongs to some other tool."""
    path = _write(tmp_path / "app" / "hooks" / "hooks.json", {"onSave": ["lint"]})
    assert detect(str(path), path.read_text()).format is None


def test_a_missing_component_path_is_an_error_only_in_a_git_checkout(tmp_path: Path) -> None:
    """A copy of a plugin folder (a corpus excerpt, a download) cannot tell a missing file from one not copied."""
    manifest = {"name": "p", "commands": "./cmds/"}
    copied = _write(tmp_path / "copy" / "p" / ".claude-plugin" / "plugin.json", manifest)
    (tmp_path / "copy" / "p" / "LICENSE").write_text("MIT")
    assert "plugin-path" not in _levels(copied)
    checkout = _write(tmp_path / "repo" / "p" / ".claude-plugin" / "plugin.json", manifest)
    (tmp_path / "repo" / ".git").mkdir()
    assert _levels(checkout)["plugin-path"] is Severity.ERROR


def test_unknown_keys_are_silent_unless_misspelt(tmp_path: Path) -> None:
    """Claude Code ignores an unknown manifest key and never fails on it; a near-miss is worth a warning."""
    path = _write(
        tmp_path / "p" / ".claude-plugin" / "plugin.json", {"name": "p", "contributors": [], "skill": "./"}
    )
    problems = check(path).problems
    assert [(p.code, p.severity, p.data["suggestion"]) for p in problems] == [
        ("unknown-key", Severity.WARNING, "skills")
    ]


def test_hook_severity_follows_the_event(tmp_path: Path) -> None:
    """The same broken hook fails the plugin under PreToolUse and is only skipped under Stop."""
    broken = [{"hooks": [{"type": "command"}]}]
    guard = _write(tmp_path / "a" / "hooks" / "hooks.json", {"hooks": {"PreToolUse": broken}})
    other = _write(tmp_path / "b" / "hooks" / "hooks.json", {"hooks": {"Stop": broken}})
    assert _levels(guard)["hook-invalid"] is Severity.ERROR
    assert _levels(other)["hook-invalid"] is Severity.WARNING


def test_a_name_with_spaces_gets_its_kebab_case_rename(tmp_path: Path) -> None:
    path = _write(tmp_path / "p" / ".claude-plugin" / "plugin.json", {"name": "PDF Tools"})
    (name,) = [p for p in check(path).problems if p.code == "plugin-name"]
    assert name.severity is Severity.ERROR
    assert json.loads(apply(path.read_text(), name.fixes[0].edits))["name"] == "pdf-tools"


@pytest.mark.parametrize(
    ("name", "refused"),
    [
        ("claude-code-tracing", True),
        ("claude_foo", True),
        ("anthropics-x", True),
        ("ccplugin-x", True),
        ("claude", True),
        ("xclaude-official", True),
        ("claudecode", True),
        ("cl-aude", True),
        ("ClaudeCode", True),
        ("foo-claude", False),
        ("claudette", False),
        ("ccpluginx", False),
    ],
)
def test_a_reserved_plugin_name_is_an_error(tmp_path: Path, name: str, refused: bool) -> None:
    """`claude plugin validate` 2.1.332 refuses a plugin named as Anthropic's own ("Plugin name … is reserved"),
    in plugin.json and in a marketplace entry (Arize-ai/coding-harness-tracing's `claude-code-tracing`)."""
    path = _write(tmp_path / "p" / ".claude-plugin" / "plugin.json", {"name": name})
    assert (_levels(path).get("plugin-name") is Severity.ERROR) is refused
    market = {"name": "m", "owner": {"name": "o"}, "plugins": [{"name": name, "source": "./p"}]}
    path = _write(tmp_path / ".claude-plugin" / "marketplace.json", market)
    assert (_levels(path).get("plugin-name") is Severity.ERROR) is refused


@pytest.mark.parametrize(
    ("name", "warned"),
    [
        ("codex-in-claude", True),
        ("foo_claude", True),
        ("my-anthropic", True),
        ("foo-anthropics", True),
        ("foo-claude-code", True),
        ("fooclaude", False),
        ("foo-claudes", False),
        ("x-claudecode", False),
        ("claudette", False),
    ],
)
def test_a_plugin_name_that_reads_as_anthropics_is_a_hint(tmp_path: Path, name: str, warned: bool) -> None:
    """`claude plugin validate` 2.1.332 loads a plugin with `claude` / `anthropic(s)` as a later word of its name and
    warns "reads as one of Anthropic's own" (0xA3B/skills' `codex-in-claude`): advice, as the not-kebab-case
    warning is, in plugin.json and in a marketplace entry."""
    reads = "reads as one of Anthropic's own"
    path = _write(tmp_path / "p" / ".claude-plugin" / "plugin.json", {"name": name})
    found = [p for p in check(path).problems if p.code == "plugin-name" and reads in p.message]
    assert [p.severity for p in found] == ([Severity.HINT] if warned else [])
    market = {"name": "m", "owner": {"name": "o"}, "plugins": [{"name": name, "source": "./p"}]}
    path = _write(tmp_path / ".claude-plugin" / "marketplace.json", market)
    found = [p for p in check(path).problems if p.code == "plugin-name" and reads in p.message]
    assert [p.severity for p in found] == ([Severity.HINT] if warned else [])


def test_anthropics_own_marketplaces_may_list_a_reserved_name(tmp_path: Path) -> None:
    """The CLI passes `claude-x` as an entry of `anthropic-agent-skills` (anthropics/skills lists `claude-api`),
    and refuses it in any other marketplace; a marketplace's own name is never judged by this rule."""
    market = {
        "name": "anthropic-agent-skills",
        "owner": {"name": "o"},
        "plugins": [{"name": "claude-api", "source": "./p"}],
    }
    path = _write(tmp_path / ".claude-plugin" / "marketplace.json", market)
    assert "plugin-name" not in _levels(path)
    market["name"] = "claude-market"
    path = _write(tmp_path / ".claude-plugin" / "marketplace.json", market)
    assert _levels(path).get("plugin-name") is Severity.ERROR


def test_codex_plugin_values_it_drops_are_warnings(tmp_path: Path) -> None:
    """Codex fails open: a path outside `./`, a fourth or over-long default prompt, a bad colour are dropped."""
    manifest = {
        "name": "p",
        "skills": "skills/",
        "interface": {
            "defaultPrompt": ["a", "b", "c", "d", "x" * 200],
            "brandColor": "blue",
            "logo": "../logo.png",
        },
    }
    path = _write(tmp_path / "p" / ".codex-plugin" / "plugin.json", manifest)
    (p,) = check(path).problems  # five findings of one kind: one diagnostic, the others its related locations
    assert (p.code, p.severity, p.data["path"]) == ("codex-ignored", Severity.WARNING, ["skills"])
    lines = sorted(r["span"][0] + 1 for r in related_of(p))
    text = path.read_text().splitlines()
    assert [text[i - 1].strip()[:5] for i in lines] == ['"d",', '"xxxx', '"bran', '"logo']
    assert json.loads(apply(path.read_text(), p.fixes[0].edits))["skills"] == "./skills/"


def test_codex_plugin_type_errors_say_the_plugin_is_not_loaded(tmp_path: Path) -> None:
    path = _write(tmp_path / "p" / ".codex-plugin" / "plugin.json", {"name": 5, "author": {"name": "a"}})
    (p,) = check(path).problems
    assert p.severity is Severity.WARNING and "plugin is not loaded" in p.message


def test_codex_openai_yaml_over_long_values_are_dropped(tmp_path: Path) -> None:
    skill = tmp_path / "s"
    _write(skill / "SKILL.md", "---\nname: s\ndescription: d\n---\n")
    text = (
        f"interface:\n  display_name: {'n' * 65}\ndependencies:\n  tools:\n    - type: mcp\n      value: x\n"
    )
    path = _write(skill / "agents" / "openai.yaml", text)
    (p,) = check(path).problems
    assert (p.code, p.severity, p.data["path"]) == (
        "codex-ignored",
        Severity.WARNING,
        ["interface", "display_name"],
    )


def test_settings_hooks_are_checked_but_never_fail(tmp_path: Path) -> None:
    """No Claude Code tool validates settings.json; a hook entry it cannot read is skipped, so at most a warning,
    and the other settings are left alone."""
    settings = {
        "model": "x",
        "permissions": {"allow": []},
        "hooks": {"PreToolUse": [{"hooks": [{"type": "command"}]}]},
    }
    path = _write(tmp_path / ".claude" / "settings.json", settings)
    assert [(p.code, p.severity) for p in check(path).problems] == [("hook-invalid", Severity.WARNING)]


def test_a_github_hooks_folder_is_left_to_copilot(tmp_path: Path) -> None:
    """`.github/hooks/*.json` is where GitHub Copilot and VS Code read their hooks (flat `{type, command}` entries,
    PascalCase events in VS Code's form); Claude Code never reads it, so its rules do not judge the file."""
    flat = {"version": 1, "hooks": {"PreToolUse": [{"command": "bin/run-hook.sh guard", "timeout": 15}]}}
    path = _write(tmp_path / "repo" / ".github" / "hooks" / "hooks.json", flat)
    assert detect(str(path), path.read_text()).format is None
    plugin_hooks = _write(tmp_path / "repo" / "hooks" / "hooks.json", flat)
    assert detect(str(plugin_hooks), plugin_hooks.read_text()).format is not None


def test_a_uaaps_packages_hooks_are_left_to_uaaps(tmp_path: Path) -> None:
    """UAAPS normalises event names (`pre-tool-use`), so its package's hooks.json is not judged by Claude Code's
    list unless the folder is also a Claude Code plugin."""
    _write(tmp_path / "pkg" / "package.agent.json", {"name": "pkg", "version": "1.0.0"})
    path = _write(
        tmp_path / "pkg" / "hooks" / "hooks.json", {"hooks": {"PreToolUse": [], "post-tool-use": []}}
    )
    assert detect(str(path), path.read_text()).format is None
