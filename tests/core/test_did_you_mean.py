"""Every "did you mean" evalens offers comes from names of the same kind, and never turns a name into its opposite
(issue #39: `disallowed-tools` was offered the rename to `allowed-tools`, which widens what an agent may do).

Each suggestion source is listed in ``SOURCES`` with the candidates it really draws from; a module that starts
suggesting without an entry here fails ``test_every_suggestion_source_is_listed``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evalens.core import rules
from evalens.core.engines import engine_names
from evalens.core.formats import registry
from evalens.core.formats.skill_md import SAME_KIND_ELSEWHERE, _near_key
from evalens.core.index import IndexCache
from evalens.core.models import skill_md as m
from evalens.core.models.catalog import SCHEMAS
from evalens.core.models.claude_plugin import HOOK_EVENTS, HOOK_TYPES
from evalens.core.models.skilljack import RUNNER_TYPES
from evalens.core.near_names import opposite
from evalens.core.schema_check import suggest
from evalens.core.validate import validate_text
from tests.conftest import REPO

SKILL_KEYS = m.AGENTSKILLS_KEYS + m.CLAUDE_CODE_KEYS


def _schema_keys() -> list[str]:
    """Every property name of every schema evalens ships: what an unknown-key suggestion draws from."""
    assert registry.all_formats()  # loads every format, which registers its schemas
    out: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            props = node.get("properties")
            if isinstance(props, dict):
                out.update(props)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    for spec in SCHEMAS:
        walk(spec.model.model_json_schema(by_alias=True))
    return sorted(out)


# source -> (candidates, typo that must be corrected, its correction, names that must never be suggested for
# a candidate's opposite)
SOURCES: dict[str, tuple[list[str], str, str, list[str]]] = {
    "schema_check.unknown-key (keys of every schema)": (
        _schema_keys(),
        "expected_ouput",
        "expected_output",
        ["unexpected_output", "without_skill", "disallowed-tools"],
    ),
    "skill_md.unexpected-field (SKILL.md keys)": (
        list(SKILL_KEYS),
        "disalowed-tools",
        "disallowed-tools",
        ["denied-tools", "enable-model-invocation", "not-user-invocable"],
    ),
    "skill_md.schema-enum (context, shell, effort values)": (["fork", "inline"], "frok", "fork", ["no-fork"]),
    "skill_creator.skill_name (SKILL.md names)": (
        ["pdf-tools", "with-auth"],
        "pdf-tool",
        "pdf-tools",
        ["without-auth"],
    ),
    "skill_creator.file-missing (files under the skill root)": (
        ["evals/files/report.pdf", "evals/files/valid.json"],
        "evals/files/reprot.pdf",
        "evals/files/report.pdf",
        ["evals/files/invalid.json"],
    ),
    "skilljack.unknown-skill (skill folders and names)": (
        ["deploy", "enable-cache"],
        "deplyo",
        "deploy",
        ["disable-cache"],
    ),
    "skilljack_config.unknown-runner-type": (list(RUNNER_TYPES), RUNNER_TYPES[0][:-1], RUNNER_TYPES[0], []),
    "writing_skills.unknown-case / unknown-criterion": (
        ["includes-header", "handles-empty-input"],
        "includes-headr",
        "includes-header",
        ["excludes-header", "handles-empty-output"],
    ),
    "uaaps.unknown-engine": (list(engine_names()), engine_names()[0] + "x", engine_names()[0], []),
    "uaaps.fixture-missing / unknown-target (fixtures, skills)": (
        ["fixtures/allowed.json", "skills/min-size"],
        "fixtures/alowed.json",
        "fixtures/allowed.json",
        ["fixtures/disallowed.json", "skills/max-size"],
    ),
    "claude_plugin.hook-unknown-event (hook events)": (
        list(HOOK_EVENTS),
        "PreToolUze",
        "PreToolUse",
        ["PreToolUseFailure", "PostPermissionRequest"],
    ),
    "claude_plugin.hook-invalid (hook types)": (list(HOOK_TYPES), "comand", "command", []),
}
"""Modules whose suggestions each entry covers (``test_every_suggestion_source_is_listed``)."""
COVERED = {
    "evalens/core/schema_check.py",
    "evalens/core/formats/skill_md.py",
    "evalens/core/formats/skill_creator.py",
    "evalens/core/formats/skilljack.py",
    "evalens/core/formats/skilljack_config.py",
    "evalens/core/formats/writing_skills.py",
    "evalens/core/formats/uaaps.py",
    "evalens/core/formats/claude_plugin.py",
    "evalens/core/config.py",  # rule codes: test_rule_code_suggestions
    "evalens/core/rules.py",  # suggest_code itself
}
NOT_DID_YOU_MEAN = {
    "runner/trigger_suggest.py": "suggests description rewrites from trigger results, not a name",
    "evalens/cli/triggers.py": "the command that runs trigger_suggest",
}


def test_every_suggestion_source_is_listed() -> None:
    """A module that calls a suggestion function is a did-you-mean source and needs an entry above."""
    calls = re.compile(r"(?<![\w.])(?:suggest|suggest_code|_near_key)\(")
    found = set()
    for folder in ("evalens", "server", "runner"):
        for path in (REPO / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            if any(calls.search(line) and not line.lstrip().startswith("def ") for line in text.splitlines()):
                found.add(path.relative_to(REPO).as_posix())
    assert found - COVERED - set(NOT_DID_YOU_MEAN) == set(), "a new did-you-mean source: cover it in SOURCES"


@pytest.mark.parametrize("source", list(SOURCES))
def test_source_corrects_typos_and_never_offers_an_opposite(source: str) -> None:
    candidates, typo, fix, opposites = SOURCES[source]
    assert suggest(typo, candidates) == fix
    for word in opposites:
        near = suggest(word, candidates)
        assert near is None or not opposite(word, near), f"{word} -> {near}"
    for a in candidates:  # no candidate is offered for another candidate's opposite either
        for b in candidates:
            if a != b and opposite(a, b):
                assert suggest(a, [b]) is None, (a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("disallowed-tools", "allowed-tools"),
        ("disalowed-tools", "allowed-tools"),
        ("denied-tools", "allowed-tools"),
        ("without_skill", "with_skill"),
        ("unexpected_output", "expected_output"),
        ("disable-model-invocation", "enable-model-invocation"),
        ("max_score", "min_score"),
        ("no-fork", "fork"),
        ("excludeFiles", "includeFiles"),
    ],
)
def test_opposites(a: str, b: str) -> None:
    assert opposite(a, b) and opposite(b, a)
    assert suggest(a, [b]) is None


@pytest.mark.parametrize(
    ("typo", "meant"),
    [
        ("dissallowed-tools", "disallowed-tools"),
        ("alowed-tools", "allowed-tools"),
        ("descripton", "description"),
    ],
)
def test_near_spellings_still_suggested(typo: str, meant: str) -> None:
    assert not opposite(typo, meant)
    assert suggest(typo, list(SKILL_KEYS)) == meant


def test_same_kind_elsewhere_keeps_its_kind() -> None:
    """A key of another Claude Code file kind maps to the skill key that does the same (grants tools), never to
    its opposite."""
    for other, skill_key in SAME_KIND_ELSEWHERE.items():
        assert skill_key in SKILL_KEYS and not opposite(other, skill_key)
        assert _near_key(other, SKILL_KEYS) == skill_key


def test_rule_code_suggestions() -> None:
    """`evalens.toml` rule names: a typo is corrected, a code is never "corrected" into its opposite."""
    assert rules.suggest_code("unexpected-feild") == "unexpected-field"
    for code in rules.catalog():
        near = rules.suggest_code(code + "x")
        assert near is None or not opposite(code + "x", near)


@pytest.mark.parametrize("profile", [None, "agentskills", "claude-code", "uaaps"])
def test_disallowed_tools_is_never_renamed_to_allowed_tools(tmp_path: Path, profile: str | None) -> None:
    """The case from the issue, end to end: no profile offers the rename that widens what an agent may do."""
    md = tmp_path / "skills" / "deploy" / "SKILL.md"
    md.parent.mkdir(parents=True)
    text = "---\nname: deploy\ndescription: Deploys.\ndisallowed-tools: Bash(rm:*)\n---\nBody\n"
    md.write_text(text, encoding="utf-8")
    v = validate_text(str(md), text, IndexCache(), {"skillProfile": profile} if profile else None)
    for p in v.problems:
        assert "allowed-tools`?" not in p.message.replace("disallowed-tools`?", ""), p.message
        for fix in p.fixes:
            assert all(e.text != "allowed-tools" for e in fix.edits), fix.title


def test_misspelt_disallowed_tools_gets_its_own_name(tmp_path: Path) -> None:
    md = tmp_path / ".claude" / "skills" / "deploy" / "SKILL.md"
    md.parent.mkdir(parents=True)
    text = "---\ndescription: Deploys.\ndisalowed-tools: Bash(rm:*)\n---\nBody\n"
    md.write_text(text, encoding="utf-8")
    (p,) = validate_text(str(md), text, IndexCache()).problems
    assert p.code == "unexpected-field" and "Did you mean `disallowed-tools`?" in p.message
    assert p.fixes[0].edits[0].text == "disallowed-tools"
