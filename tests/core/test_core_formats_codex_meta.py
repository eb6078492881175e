"""``evalens.core.formats.codex_meta``: Codex's ``agents/openai.yaml`` and ``.codex-plugin/plugin.json`` as
Codex reads them — never an error, since Codex drops what it cannot read — checked through the module's formats
directly: when a file is claimed, the length and colour limits, icons under ``assets/``, ``./``-relative plugin
paths with their fix, and the three default prompts Codex keeps (dropped prompts do not count)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalens.core.documents import parse
from evalens.core.formats.base import Match, RuleContext
from evalens.core.formats.codex_meta import CodexPluginManifest, CodexSkillMetadata
from evalens.core.problems import Severity
from tests.format_helpers import apply, check

META = CodexSkillMetadata()
PLUGIN = CodexPluginManifest()


def _yaml_rules(text: str, path: str = "skill/agents/openai.yaml") -> list:
    return META.rules(parse(text, "yaml"), RuleContext(path, None))


def _plugin_rules(data: object) -> tuple[str, list]:
    text = json.dumps(data, indent=2)
    return text, PLUGIN.rules(parse(text, "json"), RuleContext("p/.codex-plugin/plugin.json", None))


def test_openai_yaml_is_claimed_beside_a_skill_or_by_codex_keys(tmp_path: Path) -> None:
    (tmp_path / "skill" / "agents").mkdir(parents=True)
    (tmp_path / "skill" / "SKILL.md").write_text("---\nname: skill\ndescription: d\n---\n")
    beside = str(tmp_path / "skill" / "agents" / "openai.yaml")
    loose = str(tmp_path / "agents" / "openai.yaml")
    assert META.detect(beside, {"anything": 1}) is Match.YES
    assert META.claims_unparsed(beside, None)  # type: ignore[arg-type]
    assert META.detect(loose, {"policy": {}}) is Match.YES
    assert META.detect(loose, {"model": "gpt"}) is Match.NO
    assert META.detect(loose, ["interface"]) is Match.NO
    assert not META.claims_unparsed(loose, None)  # type: ignore[arg-type]
    assert PLUGIN.detect("x/.codex-plugin/plugin.json", None) is Match.YES


def test_interface_limits_colour_and_icons() -> None:
    text = (
        "interface:\n"
        f"  display_name: {'n' * 65}\n"
        f"  short_description: {'d' * 1024}\n"
        "  brand_color: '#12345'\n"
        "  icon_small: ./assets/small.png\n"
        "  icon_large: ../large.png\n"
    )
    problems = _yaml_rules(text)
    assert [(p.data["path"], p.severity) for p in problems] == [
        (["interface", "display_name"], Severity.WARNING),
        (["interface", "brand_color"], Severity.WARNING),
        (["interface", "icon_large"], Severity.WARNING),
    ]
    assert problems[0].message == "`display_name` is 65 characters; Codex drops a value over 64."
    assert problems[1].message == "`#12345` is not `#RRGGBB`; Codex drops it."
    assert {p.code for p in problems} == {"codex-ignored"}


@pytest.mark.parametrize(
    ("icon", "shown"),
    [
        ("assets/i.png", True),
        ("./assets/x/i.png", True),
        ("/abs/assets/i.png", False),
        ("i.png", False),
        ("assets", False),
        ("assets/../i.png", False),
    ],
)
def test_icons_must_sit_under_assets(icon: str, shown: bool) -> None:
    problems = _yaml_rules(f"interface:\n  icon_small: {icon}\n  brand_color: '#A0b1C2'\n")
    assert (problems == []) is shown


def test_dependency_tool_limits() -> None:
    text = (
        "dependencies:\n  tools:\n"
        f"    - type: {'t' * 65}\n      value: ok\n"
        "    - just-a-string\n"
        f"    - type: mcp\n      value: v\n      transport: {'x' * 64}\n"
    )
    problems = _yaml_rules(text)
    assert [p.data["path"] for p in problems] == [["dependencies", "tools", 0, "type"]]


def test_openai_yaml_schema_findings_are_warnings_and_numbers_read_as_text(tmp_path: Path) -> None:
    skill = tmp_path / "skill"
    (skill / "agents").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: skill\ndescription: Does things.\n---\nBody.\n")
    target = skill / "agents" / "openai.yaml"
    number = check(target, "interface:\n  display_name: 5\n")
    assert [p for p in number.problems if p.code.startswith("schema")] == []
    wrong = check(target, "interface:\n  display_name: [a, b]\n")
    assert wrong.format is not None and wrong.format.id == "codex-skill-metadata"
    schema = [p for p in wrong.problems if p.code.startswith("schema")]
    assert schema and all(p.severity is Severity.WARNING for p in schema)
    assert all(p.message.endswith("Codex cannot read the file, so it ignores all of it.") for p in schema)


def test_plugin_paths_must_be_dot_slash_relative_with_a_fix() -> None:
    text, problems = _plugin_rules(
        {
            "name": "p",
            "skills": "skills/",
            "hooks": ["./hooks/a.json", "./", "./x/../../y", "/abs/h.json"],
            "interface": {
                "logo": "./logo.png",
                "composerIcon": "icon.svg",
                "screenshots": ["./s.png", "s2.png"],
            },
        }
    )
    found = {tuple(p.data["path"]): p for p in problems}
    assert set(found) == {
        ("skills",),
        ("hooks", 1),
        ("hooks", 2),
        ("hooks", 3),
        ("interface", "composerIcon"),
        ("interface", "screenshots", 1),
    }
    assert "must start with `./`" in found[("skills",)].message
    assert "must not be `./` itself" in found[("hooks", 1)].message
    assert "must not contain `..`" in found[("hooks", 2)].message
    assert found[("hooks", 3)].fixes == []  # an absolute path gets no `./` prefixed
    (fix,) = found[("skills",)].fixes
    assert json.loads(apply(text, fix.edits))["skills"] == "./skills/"


def test_default_prompts_codex_keeps_three_and_drops_the_rest() -> None:
    prompts = ["one", "   ", "x" * 129, "two", "three", "four", 5]
    _, problems = _plugin_rules({"name": "p", "interface": {"defaultPrompt": prompts, "brandColor": "red"}})
    by_path = [(p.data["path"], p.message) for p in problems]
    assert by_path == [
        (["interface", "defaultPrompt", 1], "An empty prompt: Codex drops it."),
        (["interface", "defaultPrompt", 2], "This prompt is 129 characters; Codex drops a prompt over 128."),
        (["interface", "defaultPrompt", 5], "Codex keeps at most 3 prompts; it drops this one."),
        (["interface", "brandColor"], "`red` is not `#RRGGBB`; Codex drops it."),
    ]
    _, single = _plugin_rules({"name": "p", "interface": {"defaultPrompt": "  a   prompt  "}})
    assert single == []


def test_plugin_schema_findings_say_the_plugin_is_not_loaded(tmp_path: Path) -> None:
    target = tmp_path / "p" / ".codex-plugin" / "plugin.json"
    target.parent.mkdir(parents=True)
    v = check(target, json.dumps({"name": 5}))
    assert v.format is not None and v.format.id == "codex-plugin"
    assert v.problems and all(p.severity is not Severity.ERROR for p in v.problems)
    assert any(p.message.endswith("so the plugin is not loaded.") for p in v.problems)


def test_skeletons_are_clean(tmp_path: Path) -> None:
    skill = tmp_path / "skill"
    (skill / "agents").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: skill\ndescription: Does things.\n---\nBody.\n")
    meta = META.skeleton(False)
    assert meta is not None and check(skill / "agents" / "openai.yaml", meta).problems == []
    assert "${1:Display Name}" in (META.skeleton(True) or "")
    target = tmp_path / "p" / ".codex-plugin" / "plugin.json"
    target.parent.mkdir(parents=True)
    (tmp_path / "p" / "skills").mkdir()
    manifest = PLUGIN.skeleton(False)
    assert manifest is not None and json.loads(manifest)["skills"] == "./skills/"
    assert [p for p in check(target, manifest).problems if p.severity <= Severity.WARNING] == []
