"""SKILL.md frontmatter under the three profiles (formats.md §6.2 messages, §6.6 severities)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalens.core.formats.base import RuleContext
from evalens.core.index import IndexCache
from evalens.core.problems import Problem, Severity
from evalens.core.validate import Validation, validate_text

GOOD = "---\nname: pdf-tools\ndescription: Extract text from PDFs. Use when the user asks to read a PDF.\n---\n# PDF\n"


def check(tmp_path: Path, text: str, profile: str | None = None, directory: str = "pdf-tools") -> Validation:
    path = tmp_path / "skills" / directory / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return validate_text(str(path), text, IndexCache(), {"skillProfile": profile} if profile else None)


def severities(v: Validation, code: str) -> list[Severity]:
    return [p.severity for p in v.problems if p.code == code]


def only(v: Validation, code: str) -> Problem:
    found = [p for p in v.problems if p.code == code]
    assert len(found) == 1, [(p.code, p.message) for p in v.problems]
    return found[0]


@pytest.mark.parametrize("profile", [None, "agentskills", "claude-code", "uaaps"])
def test_good_skill_is_clean(tmp_path: Path, profile: str | None) -> None:
    v = check(tmp_path, GOOD, profile)
    assert v.format is not None and v.format.id == "skill-md"
    assert v.problems == []


def test_frontmatter_structure_messages(tmp_path: Path) -> None:
    assert [p.message for p in check(tmp_path, "# no frontmatter\n").problems] == [
        "SKILL.md must start with YAML frontmatter (---)"
    ]
    assert [p.message for p in check(tmp_path, "---\nname: x\n").problems] == [
        "SKILL.md frontmatter not properly closed with ---"
    ]
    assert [p.message for p in check(tmp_path, "---\n- a\n---\n").problems] == [
        "SKILL.md frontmatter must be a YAML mapping"
    ]
    messages = [p.message for p in check(tmp_path, "---\nlicense: MIT\n---\n").problems]
    assert "Missing required field in frontmatter: name" in messages
    assert "Missing required field in frontmatter: description" in messages


def test_unknown_keys_by_profile(tmp_path: Path) -> None:
    text = GOOD.replace("---\n# PDF", "argument-hint: '[file]'\nfoo: 1\n---\n# PDF")
    strict = check(tmp_path, text, "agentskills")
    assert severities(strict, "unexpected-field") == [Severity.ERROR, Severity.ERROR]
    assert strict.problems[0].message.startswith(
        "Unexpected fields in frontmatter: argument-hint, foo. Only ['allowed-tools', 'compatibility', "
        "'description', 'license', 'metadata', 'name'] are allowed."
    )
    assert (
        severities(check(tmp_path, text, "claude-code"), "unexpected-field") == []
    )  # Claude Code ignores it
    # no setting: `argument-hint` is evidence of a Claude Code skill, judged by Claude Code's rules
    auto = check(tmp_path, text)
    assert [(p.code, p.severity) for p in auto.problems] == [("unexpected-field", Severity.HINT)]
    assert "`foo`" in auto.problems[0].message
    assert severities(check(tmp_path, text, "uaaps"), "unexpected-field") == [Severity.HINT]
    typo = check(tmp_path, GOOD.replace("---\n# PDF", "licence: MIT\n---\n# PDF"))
    p = only(typo, "unexpected-field")
    assert "Did you mean `license`?" in p.message and p.fixes[0].edits[0].text == "license"
    assert p.fixes[1].title == "Remove `licence`"


def test_name_rules(tmp_path: Path) -> None:
    def messages(name: str, profile: str | None = None, directory: str | None = None) -> list[str]:
        text = GOOD.replace("name: pdf-tools", f"name: {name}")
        return [p.message for p in check(tmp_path, text, profile, directory or name).problems]

    assert messages("PDF-Tools", directory="PDF-Tools") == ["Skill name 'PDF-Tools' must be lowercase"]
    assert messages("pdf-", directory="pdf-") == ["Skill name cannot start or end with a hyphen"]
    assert messages("pdf--tools", directory="pdf--tools") == ["Skill name cannot contain consecutive hyphens"]
    assert messages("pdf_tools", directory="pdf_tools") == [
        "Skill name 'pdf_tools' contains invalid characters. Only letters, digits, and hyphens are allowed."
    ]
    # uppercase and a bad character: one error, one fix to the nearest valid name (not two near-duplicates)
    text = GOOD.replace("name: pdf-tools", "name: Bad_Name")
    (p,) = [p for p in check(tmp_path, text, None, "bad-name").problems if p.code == "invalid-name"]
    assert p.message == "Skill name 'Bad_Name' must be lowercase and contain only letters, digits and hyphens"
    assert [f.title for f in p.fixes] == ["Change to `bad-name`"] and p.fixes[0].edits[0].text == "bad-name"
    (p,) = check(tmp_path, GOOD.replace("name: pdf-tools", "name: pdf_tools"), None, "pdf_tools").problems
    assert p.fixes[0].edits[0].text == "pdf-tools"
    long = "a" * 65
    assert messages(long, directory=long) == [f"Skill name '{long}' exceeds 64 character limit (65 chars)"]
    assert messages("pdf", directory="pdf-tools") == [
        "Directory name 'pdf-tools' must match skill name 'pdf'"
    ]
    assert messages('""', directory="x") == ["Field 'name' must be a non-empty string"]
    assert "reserved word" in messages("claude-helper")[0]


def test_name_under_uaaps(tmp_path: Path) -> None:
    v = check(tmp_path, GOOD.replace("name: pdf-tools", "name: pdf--"), "uaaps", "pdf--")
    assert severities(v, "name-hyphens") == [Severity.WARNING]
    v = check(tmp_path, GOOD.replace("name: pdf-tools", "name: -pdf"), "uaaps", "-pdf")
    assert severities(v, "invalid-name") == [Severity.ERROR]
    v = check(tmp_path, GOOD.replace("name: pdf-tools", "name: pdf"), "uaaps", "pdf-tools")
    assert severities(v, "name-directory-mismatch") == [Severity.WARNING]


def test_description_rules(tmp_path: Path) -> None:
    angle = GOOD.replace("read a PDF.", "read a <file>.")
    assert severities(check(tmp_path, angle), "angle-brackets") == [Severity.WARNING]
    assert severities(check(tmp_path, angle, "uaaps"), "angle-brackets") == [Severity.HINT]
    long = GOOD.replace("Extract text", "x" * 1030)
    assert only(check(tmp_path, long), "description-too-long").message.startswith(
        "Description exceeds 1024 character limit ("
    )
    assert only(
        check(
            tmp_path,
            GOOD.replace("description: Extract", "description: ''\nx: Extract").replace(
                "x: Extract text from PDFs. Use when the user asks to read a PDF.\n", ""
            ),
            "claude-code",
        ),
        "invalid-description",
    ).message.startswith("The description is empty: Claude Code lists the skill with no text")


def test_compatibility_by_profile(tmp_path: Path) -> None:
    obj = GOOD.replace("---\n# PDF", "compatibility:\n  requires: [python3]\n---\n# PDF")
    assert severities(check(tmp_path, obj), "compatibility-type") == [Severity.ERROR]
    assert (
        only(check(tmp_path, obj), "compatibility-type").message == "Field 'compatibility' must be a string"
    )
    assert severities(check(tmp_path, obj, "claude-code"), "compatibility-type") == [Severity.WARNING]
    assert check(tmp_path, obj, "uaaps").problems == []
    string = GOOD.replace("---\n# PDF", "compatibility: Python 3.10+\n---\n# PDF")
    assert check(tmp_path, string).problems == []
    assert severities(check(tmp_path, string, "uaaps"), "compatibility-type") == [Severity.ERROR]
    long = GOOD.replace("---\n# PDF", f"compatibility: {'x' * 501}\n---\n# PDF")
    assert (
        only(check(tmp_path, long), "compatibility-too-long").message
        == "Compatibility exceeds 500 character limit (501 chars)"
    )
    bad_obj = GOOD.replace("---\n# PDF", "compatibility:\n  needs: [x]\n---\n# PDF")
    assert severities(check(tmp_path, bad_obj, "uaaps"), "unexpected-field") == [Severity.ERROR]


def test_typed_keys(tmp_path: Path) -> None:
    text = GOOD.replace("---\n# PDF", "metadata:\n  version: 1.0\nallowed-tools: [Read, Bash]\n---\n# PDF")
    strict = check(tmp_path, text, "agentskills")
    assert severities(strict, "metadata-value") == [Severity.WARNING]
    assert "skills-ref reads every value as a string" in only(strict, "metadata-value").message
    assert (
        "quote" not in only(strict, "metadata-value").message
    )  # quoting breaks readers that test `=== true`
    # skills-ref does not type-check allowed-tools: a list is Claude Code's form, never an error
    assert severities(strict, "schema-type") == []
    assert severities(strict, "not-portable") == [Severity.HINT]
    # the list is evidence of a Claude Code skill, and Claude Code does not care about metadata's value types
    v = check(tmp_path, text)
    assert severities(v, "metadata-value") == [] and severities(v, "schema-type") == []
    assert severities(check(tmp_path, text, "claude-code"), "schema-type") == []
    cc = GOOD.replace("---\n# PDF", "context: spawn\ndisable-model-invocation: maybe\n---\n# PDF")
    v = check(tmp_path, cc, "claude-code")
    assert [f.edits[0].text for f in only(v, "schema-enum").fixes] == ["fork", "inline"]
    assert only(v, "schema-type").message.startswith("Field 'disable-model-invocation' must be a boolean")


def test_long_skill_hint(tmp_path: Path) -> None:
    v = check(tmp_path, GOOD + "line\n" * 520)
    assert severities(v, "long-skill") == [Severity.HINT]


def schema_props(v: Validation) -> dict:
    assert v.format is not None
    return (v.format.schema() or {})["properties"]


def test_editor_knowledge(tmp_path: Path) -> None:
    v = check(tmp_path, GOOD)
    assert v.format is not None
    ctx = RuleContext(v.path, None, {"skillProfile": "claude-code"})
    assert [c.value for c in v.format.value_choices(("name",), ctx)] == ["pdf-tools"]
    assert [c.value for c in v.format.value_choices(("context",), ctx)] == ["fork", "inline"]
    assert [c.value for c in v.format.value_choices(("shell",), ctx)] == ["bash", "powershell"]
    assert "xhigh" in [c.value for c in v.format.value_choices(("effort",), ctx)]
    assert [c.value for c in v.format.value_choices(("background",), ctx)] == ["true", "false"]
    for key in ("when_to_use", "disallowed-tools", "effort", "background", "paths", "shell", "arguments"):
        assert key in schema_props(v), key
    assert "Profile **claude-code**" in (v.format.hover_value(("name",), "pdf-tools", ctx) or "")
    schema = v.format.schema() or {}
    assert "must equal the skill's directory name" in schema["properties"]["name"]["markdownDescription"]
    assert "argument-hint" in schema["properties"]
    (tmp_path / "skills" / "pdf-tools" / "LICENSE.txt").write_text("MIT")
    assert v.format.definition(v.doc, ("license",), "LICENSE.txt", ctx)  # type: ignore[arg-type]


def test_non_ascii_name_and_empty_compatibility(tmp_path: Path) -> None:
    v = check(tmp_path, GOOD.replace("name: pdf-tools", "name: pdf-tööls"), directory="pdf-tööls")
    assert severities(v, "non-ascii-name") == [Severity.WARNING]
    v = check(tmp_path, GOOD.replace("---\n# PDF", "compatibility: ''\n---\n# PDF"))
    assert only(v, "compatibility-empty").severity == Severity.ERROR


def _repo(tmp_path: Path, files: dict[str, str], frontmatter: str = "") -> Path:
    """A repository with one skill and the given files at its root."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith("/"):
            target.mkdir(exist_ok=True)
        else:
            target.write_text(content, encoding="utf-8")
    md = root / "skills" / "pdf-tools" / "SKILL.md"
    md.parent.mkdir(parents=True)
    md.write_text(GOOD.replace("---\n# PDF", frontmatter + "---\n# PDF"), encoding="utf-8")
    return md


def _problems(md: Path) -> list[tuple[str, Severity]]:
    text = md.read_text(encoding="utf-8")
    return [(p.code, p.severity) for p in validate_text(str(md), text, IndexCache()).problems]


@pytest.mark.parametrize(
    "evidence",
    [
        {"CLAUDE.md": "# notes"},
        {".claude/settings.json": "{}"},
        {"README.md": "Install: `cp -r skills/pdf-tools ~/.claude/skills/`"},
        {".claude-plugin/plugin.json": '{"name": "p"}'},
    ],
)
def test_claude_code_skill_by_repository_evidence(tmp_path: Path, evidence: dict[str, str]) -> None:
    """Repository evidence makes a skill outside `.claude/skills/` a Claude Code skill: its keys are fine, and a
    key Claude Code does not know is ignored by it without failing, so there is nothing to fix (issue #39); a
    near-miss of a known key is a warning (what it meant to set is not set)."""
    md = _repo(tmp_path, evidence, "argument-hint: '[file]'\nversion: 2\nauthor: me\n")
    assert _problems(md) == []
    typo = _repo(tmp_path / "typo", evidence, "argument-hnit: '[file]'\n")
    assert _problems(typo) == [("unexpected-field", Severity.WARNING)]


def test_claude_only_keys_alone_leave_unknown_keys_a_hint(tmp_path: Path) -> None:
    """When only the skill's own keys say Claude Code (no repository evidence), other agents may read it too: an
    unknown key stays a hint."""
    md = _repo(tmp_path, {}, "argument-hint: '[file]'\nversion: 2\n")
    assert _problems(md) == [("unexpected-field", Severity.HINT)]


def test_multi_agent_repository_gets_portability_hints(tmp_path: Path) -> None:
    """A repository that also ships to other agents is judged by the portable rules: Claude Code's own keys are
    a hint, a key nobody reads is still the error skills-ref gives."""
    md = _repo(
        tmp_path,
        {".claude-plugin/plugin.json": "{}", ".cursor-plugin/plugin.json": "{}"},
        "argument-hint: '[file]'\nversion: 2\nallowed-tools: [Read]\n",
    )
    assert sorted(_problems(md), key=str) == sorted(
        [
            ("unexpected-field", Severity.HINT),
            ("not-portable", Severity.HINT),
            ("unexpected-field", Severity.ERROR),
        ],
        key=str,
    )


def test_readme_naming_other_agents_is_multi_agent(tmp_path: Path) -> None:
    md = _repo(
        tmp_path,
        {"CLAUDE.md": "", "README.md": "Install with `npx skills add me/pdf` for Codex or Cursor."},
        "disable-model-invocation: true\n",
    )
    assert _problems(md) == [("unexpected-field", Severity.HINT)]


@pytest.mark.parametrize(
    ("readme", "multi_agent"),
    [
        ("Needs the helpers: `npx skills add vercel-labs/agent-skills`.", False),  # a dependency
        ("Install: `npx skills add me/repo`.", True),  # this repository
        ("Install: `npx skills add <owner>/<repo>`.", True),
        ("Install with `npx skills`.", True),
        ("Deps: `npx skills add a/b`. Also in `.agents/skills/`.", True),
    ],
)
def test_npx_skills_for_a_dependency_is_not_multi_agent(
    tmp_path: Path, readme: str, multi_agent: bool
) -> None:
    """`npx skills add <other repository>` in a Claude Code plugin's README installs a third-party dependency: it
    does not make the plugin portable (issue #39, noise class 3). Installing this repository that way does."""
    md = _repo(
        tmp_path,
        {".claude-plugin/plugin.json": '{"name": "p"}', "README.md": readme},
        "argument-hint: '[f]'\n",
    )
    assert _problems(md) == ([("unexpected-field", Severity.HINT)] if multi_agent else [])


def test_no_repository_root_borrows_no_evidence(tmp_path: Path) -> None:
    """A folder with no repository must not take evidence from whatever sits far above it."""
    (tmp_path / "CLAUDE.md").write_text("", encoding="utf-8")
    deep = tmp_path / "a" / "b" / "c" / "d" / "e" / "f" / "pdf-tools" / "SKILL.md"
    deep.parent.mkdir(parents=True)
    deep.write_text(GOOD.replace("---\n# PDF", "version: 2\n---\n# PDF"), encoding="utf-8")
    assert _problems(deep) == [("unexpected-field", Severity.ERROR)]


def _claude_skill(tmp_path: Path, frontmatter: str) -> Validation:
    """A project skill (`.claude/skills/<name>/SKILL.md`): Claude Code's profile by location."""
    md = tmp_path / ".claude" / "skills" / "deploy" / "SKILL.md"
    md.parent.mkdir(parents=True, exist_ok=True)
    text = f"---\n{frontmatter}---\nBody.\n"
    md.write_text(text, encoding="utf-8")
    return validate_text(str(md), text, IndexCache())


def test_claude_code_name_is_optional(tmp_path: Path) -> None:
    """Claude Code names a skill by its folder when `name` is missing; only a missing description is worth a
    warning (what `claude plugin validate` says)."""
    assert _claude_skill(tmp_path, "description: Deploys the service.\n").problems == []
    v = _claude_skill(tmp_path, "allowed-tools: Bash\n")
    assert [(p.code, p.severity) for p in v.problems] == [("missing-field", Severity.WARNING)]


def test_claude_code_documented_keys(tmp_path: Path) -> None:
    """The keys Claude Code documents are known, in every form its reader takes."""
    v = _claude_skill(
        tmp_path,
        "name: deploy\ndescription: d\nwhen_to_use: when releasing\narguments: [env, version]\n"
        "disallowed-tools: Bash(rm:*)\neffort: xhigh\nbackground: false\npaths: 'src/**, docs/**'\n"
        "shell: powershell\ncontext: inline\ndisable-model-invocation: on\nuser-invocable: 'No'\n",
    )
    assert v.problems == []
    assert _claude_skill(tmp_path, "description: d\neffort: 3\nbackground: 1\n").problems == []


def test_claude_code_values_it_ignores_are_warnings(tmp_path: Path) -> None:
    """A value Claude Code cannot read is ignored at load time: a warning (the setting does not happen). Only a
    `shell` it cannot run is refused (`shell must be 'bash' or 'powershell'`)."""
    v = _claude_skill(
        tmp_path, "description: d\ndisable-model-invocation: maybe\ncontext: spawn\neffort: huge\n"
    )
    assert sorted((p.code, p.severity) for p in v.problems) == [
        ("schema-enum", Severity.WARNING),
        ("schema-enum", Severity.WARNING),
        ("schema-type", Severity.WARNING),
    ]
    shell = only(_claude_skill(tmp_path, "description: d\nshell: zsh\n"), "schema-enum")
    assert shell.severity == Severity.ERROR and "`bash` or `powershell`" in shell.message


def test_claude_code_listing_cap(tmp_path: Path) -> None:
    """Claude Code lists description + when_to_use cut at 1,536 characters: over that the agent misses the rest
    (a warning); a description over agentskills' 1,024 but within the cap stays listed, yet the packager and
    uploads refuse it (a warning, where the strict profile has skills-ref's error)."""
    capped = only(
        _claude_skill(tmp_path, f"description: {'d' * 1000}\nwhen_to_use: {'w' * 600}\n"),
        "description-too-long",
    )
    assert capped.severity == Severity.WARNING and "1600 characters" in capped.message
    assert "`description` + `when_to_use`" in capped.message
    assert _claude_skill(tmp_path, f"description: {'d' * 900}\nwhen_to_use: {'w' * 600}\n").problems == []
    long = only(_claude_skill(tmp_path, f"description: {'d' * 1100}\n"), "description-too-long")
    assert long.severity == Severity.WARNING
    strict = check(tmp_path, GOOD.replace("Extract text", "x" * 1100), "agentskills")
    assert severities(strict, "description-too-long") == [Severity.ERROR]


def test_claude_code_name_format_is_advice(tmp_path: Path) -> None:
    """Claude Code loads `name: Deploy Service` (the command comes from the folder): its docs' name rule is a
    warning there; a name that is not a string is validate's error."""
    v = _claude_skill(tmp_path, "name: Deploy Service\ndescription: d\n")
    assert {p.severity for p in v.problems} == {Severity.WARNING}
    assert severities(
        check(tmp_path, GOOD.replace("pdf-tools", "PDF Tools"), "agentskills"), "invalid-name"
    ) == [Severity.ERROR]
    bad = only(_claude_skill(tmp_path, "name: 42\ndescription: d\n"), "invalid-name")
    assert bad.severity == Severity.ERROR and bad.message == "name must be a string, got number."


def test_strict_profile_refuses_flow_style_as_skills_ref_does(tmp_path: Path) -> None:
    """skills-ref reads frontmatter with strictyaml, which refuses flow style: an error under the strict profile,
    with the space-separated string as the fix for a flow list of tools; block style and a number for
    `compatibility` (read as a string there) pass it."""
    flow = GOOD.replace("---\n# PDF", "metadata: {team: docs}\n---\n# PDF")
    p = only(check(tmp_path, flow, "agentskills"), "syntax")
    assert p.severity == Severity.ERROR and "flow-style mapping" in p.message
    tools = only(
        check(tmp_path, GOOD.replace("---\n# PDF", "allowed-tools: [Read, Bash]\n---\n# PDF"), "agentskills"),
        "syntax",
    )
    assert [e.text for e in tools.fixes[0].edits] == ["Read Bash"]
    block = GOOD.replace("---\n# PDF", "metadata:\n  team: docs\n---\n# PDF")
    assert check(tmp_path, block, "agentskills").problems == []
    number = GOOD.replace("---\n# PDF", "compatibility: 42\n---\n# PDF")
    assert severities(check(tmp_path, number, "agentskills"), "compatibility-type") == [Severity.WARNING]
    # where Claude Code reads the skill too, its reader takes flow style: no error
    assert severities(check(tmp_path, flow, "claude-code"), "syntax") == []


@pytest.mark.parametrize(
    ("line", "loads"),
    [
        ("argument-hint: [base-branch] [focus...]", True),  # a flow list followed by text
        ("description: Reads PDFs. Triggers on: pdf", True),  # `: ` in a plain scalar
        ("description: 'open", False),  # nothing Claude Code re-quotes
        ("metadata:\n  hint: [a] [b]", False),  # an indented line stays as written
    ],
)
def test_a_yaml_error_claude_code_reads_through_is_a_warning_in_a_claude_plugin(
    tmp_path: Path, line: str, loads: bool
) -> None:
    """`claude plugin validate` (2.1.332) passes the first two skills (Claude Code quotes a failing top-level value
    and parses again) and fails the last two ("YAML frontmatter failed to parse"): an error exactly there, and a
    warning with the quoting fix where Claude Code loads the skill, since skills-ref still fails on it."""
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin" / "plugin.json").write_text('{"name": "p"}')
    text = f"---\nname: pdf-tools\ndescription: Reads PDFs.\n{line}\n---\n# PDF\n".replace(
        "description: Reads PDFs.\ndescription", "description"
    )
    p = only(check(tmp_path, text), "syntax")
    assert p.severity is (Severity.WARNING if loads else Severity.ERROR), p.message
    if loads:
        assert "Claude Code still loads the skill" in p.message
        [edit] = p.fixes[0].edits
        assert edit.text.endswith('"') and ': "' in edit.text


@pytest.mark.parametrize(
    ("text", "code"),
    [("# PDF\n\nBody.\n", "frontmatter-missing"), ("---\nname: pdf-tools\nBody.\n", "frontmatter-unclosed")],
)
def test_a_skill_without_frontmatter_is_a_warning_in_a_claude_plugin(
    tmp_path: Path, text: str, code: str
) -> None:
    """`claude plugin validate` (2.1.332) passes a plugin whose SKILL.md has no frontmatter (or never closes it) and
    warns "No frontmatter block found" (0x1337c0d3/claude-security's prompt-injection-defender); skills-ref still
    rejects the file, so it is an error where the skill is portable and a warning in a Claude Code plugin."""
    assert severities(check(tmp_path / "portable", text), code) == [Severity.ERROR]
    plugin = tmp_path / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "p"}')
    p = only(check(plugin, text), code)
    assert p.severity is Severity.WARNING and "Claude Code still loads the skill" in p.message


def test_a_yaml_error_is_an_error_where_the_skill_is_portable(tmp_path: Path) -> None:
    """No Claude Code evidence: skills-ref's reading decides, and it fails."""
    text = "---\nname: pdf-tools\ndescription: Reads PDFs. Triggers on: pdf\n---\n# PDF\n"
    assert severities(check(tmp_path, text), "syntax") == [Severity.ERROR]
