"""``SKILL.md`` frontmatter (formats.md §6): the six agentskills keys, Claude Code's extension keys and the
UAAPS object form of ``compatibility``. The schema feeds hover and completion; diagnostics depend on the
``skillProfile`` setting and live in ``evalens/core/formats/skill_md.py``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from evalens.core.models.base import EvalModel, StrictEvalModel, doc
from evalens.core.platform import CLAUDE_ONLY_KEYS

AGENTSKILLS_KEYS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
CLAUDE_CODE_KEYS = CLAUDE_ONLY_KEYS  # keys only Claude Code reads, declared with the platform inference
PROFILES = ("agentskills", "claude-code", "uaaps")
_PROFILES_MD = (
    "Profiles: `agentskills` (strict, default) · `claude-code` · `uaaps` (setting `evalens.skillProfile`)."
)


CLAUDE_BOOL_WORDS = ("true", "false", "yes", "no", "on", "off", "1", "0")
"""Spellings Claude Code's frontmatter reader takes for a boolean, in any letter case (v2.1.218+; docs/skills,
2026-08-22; observed with 2.1.332: `disable-model-invocation: on` takes the skill out of the listing)."""
ClaudeBool = (
    bool
    | Literal["yes", "no", "on", "off", "Yes", "No", "On", "Off", "YES", "NO", "ON", "OFF"]
    | Literal[0, 1]
)
_BOOL_MD = "Also `yes`/`no`, `on`/`off`, `1`/`0` (any letter case)."


class UaapsCompatibility(StrictEvalModel):
    """UAAPS form of `compatibility`: what the skill needs around it."""

    requires: list[str] = doc("Runtimes or tools the skill needs.", default=[], example=["python>=3.10"])
    optional: list[str] = doc("Things it can use when present.", default=[], example=["git"])
    packages: list[str] = doc("Packages it depends on.", default=[], example=["pypdf"])


class SkillFrontmatter(EvalModel):
    """YAML frontmatter of a `SKILL.md`."""

    name: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")] = doc(
        "Skill name: 1–64 lowercase letters, digits and hyphens; no leading, trailing or double hyphen; **must "
        "equal the skill's directory name**.",
        required=True,
        example="pdf-tools",
        extra_md="UAAPS allows `^[a-z0-9][a-z0-9-]{0,63}$` (a trailing or double hyphen passes there).\n\n"
        + _PROFILES_MD,
    )
    description: Annotated[str, Field(min_length=1, max_length=1024)] = doc(
        "What the skill does **and when to use it** (agents decide from this text alone). 1–1024 characters; no "
        "`<` or `>` (Anthropic's packager and upload reject angle brackets).",
        required=True,
        example="Extract text and tables from PDF files. Use when the user asks to read or convert a PDF.",
    )
    license: str | None = doc(
        "A short licence name (SPDX id) or the name of a bundled licence file.",
        default=None,
        example="Apache-2.0",
    )
    compatibility: Annotated[str, Field(min_length=1, max_length=500)] | UaapsCompatibility | None = doc(
        "Environment requirements. agentskills: a **string** of 1–500 characters (most skills need none). "
        "UAAPS: an object `{requires, optional, packages}`.",
        type_="string (agentskills) | object (UAAPS)",
        default=None,
        example="Requires Python 3.10+ and network access",
    )
    metadata: dict[str, str] | None = doc(
        "Extra properties, a map of string to string.",
        default=None,
        example={"author": "me", "version": "1.0"},
    )
    allowed_tools: str | list[str] | None = doc(
        "Tools the skill may use without asking, space-separated (experimental), e.g. "
        "`Bash(git:*) Bash(jq:*) Read`. Claude Code also accepts a list.",
        default=None,
        example="Bash(git:*) Read",
        alias="allowed-tools",
    )
    argument_hint: str | None = doc(
        "Claude Code: hint shown for the slash command's arguments. Not an "
        "agentskills key (rejected by skills-ref and uploads).",
        default=None,
        example="[file]",
        alias="argument-hint",
    )
    disable_model_invocation: ClaudeBool | None = doc(
        "Claude Code: `true` hides the skill from the model (only the user can invoke it). " + _BOOL_MD,
        default=None,
        example=True,
        alias="disable-model-invocation",
    )
    user_invocable: ClaudeBool | None = doc(
        "Claude Code: whether the skill appears as a slash command (`false` hides it from `/`). " + _BOOL_MD,
        default=None,
        example=True,
        alias="user-invocable",
    )
    when_to_use: str | None = doc(
        "Claude Code: when the skill applies, appended to `description` in the skill listing; the two together "
        "are cut at 1,536 characters there.",
        default=None,
        example="When the user asks to deploy or release the service.",
    )
    arguments: str | list[str] | None = doc(
        "Claude Code: named positional arguments for `$name` substitution in the body, a space-separated string "
        "or a list.",
        default=None,
        example=["environment", "version"],
    )
    disallowed_tools: str | list[str] | None = doc(
        "Claude Code: tools **removed** while the skill is active (the opposite of `allowed-tools`), a "
        "space- or comma-separated string or a list.",
        default=None,
        example="Bash(rm:*) WebFetch",
        alias="disallowed-tools",
    )
    effort: Literal["low", "medium", "high", "xhigh", "max"] | int | None = doc(
        "Claude Code: reasoning effort while the skill runs (default: the session's).",
        default=None,
        example="high",
    )
    background: ClaudeBool | None = doc(
        "Claude Code (v2.1.218+): with `context: fork`, `false` waits for the subagent's result. " + _BOOL_MD,
        default=None,
        example=False,
    )
    paths: str | list[str] | None = doc(
        "Claude Code: globs; the skill is loaded automatically only when working with matching files "
        "(a comma-separated string or a list).",
        default=None,
        example=["src/**/*.ts"],
    )
    shell: Literal["bash", "powershell"] | None = doc(
        "Claude Code: the shell for `` !`cmd` `` and ```` ```! ```` blocks in the body.",
        default=None,
        example="bash",
    )
    model: str | None = doc("Claude Code: model to use while the skill runs.", default=None, example="sonnet")
    context: Literal["fork", "inline"] | None = doc(
        "Claude Code: `fork` runs the skill in a forked sub-agent context; `inline` (the default) in the "
        "conversation.",
        default=None,
        example="fork",
    )
    agent: str | None = doc(
        "Claude Code: sub-agent type for `context: fork`.",
        default=None,
        example="general-purpose",
    )
    hooks: dict[str, Any] | None = doc(
        "Claude Code: hooks active while the skill runs.",
        default=None,
        example={"PreToolUse": []},
    )
