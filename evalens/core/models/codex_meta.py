"""Codex's skill and plugin metadata: a skill's `agents/openai.yaml` and a plugin's `.codex-plugin/plugin.json`
(shared/reference/platforms.md §2.3–2.4; openai/codex `core-skills/src/loader.rs` and
`core-plugins/src/manifest_document.rs`).

Codex fails open on both: a file it cannot read is skipped with a log line, a value it cannot use is dropped, an
unknown key is ignored, and no Codex command refuses either file. So nothing here is an error: the format
(`formats/codex_meta.py`) reports what Codex would drop as a warning, and the models give completion, hover and the
schema.
"""

from __future__ import annotations

from typing import Any

from evalens.core.models.base import EvalModel, doc


class SkillInterface(EvalModel):
    """How the skill is shown in Codex's app surfaces."""

    display_name: str | None = doc(
        "The name shown (at most 64 characters).", default=None, example="PDF Tools"
    )
    short_description: str | None = doc(
        "One line shown under the name (at most 1024 characters).", default=None
    )
    icon_small: str | None = doc(
        "A small icon under the skill's `assets/` (relative; an absolute path or `..` is ignored).",
        default=None,
        example="./assets/icon-small.png",
    )
    icon_large: str | None = doc(
        "A large icon under the skill's `assets/` (relative; an absolute path or `..` is ignored).",
        default=None,
        example="./assets/icon.png",
    )
    brand_color: str | None = doc("`#RRGGBB`.", default=None, example="#1F6FEB")
    default_prompt: str | None = doc(
        "A prompt offered with the skill (at most 1024 characters).",
        default=None,
        example="Summarize this PDF.",
    )


class ToolDependency(EvalModel):
    """A tool the skill needs, such as an MCP server."""

    type: str = doc("The dependency's kind (at most 64 characters).", required=True, example="mcp")
    value: str = doc("What it names (at most 1024 characters).", required=True, example="pdf-server")
    description: str | None = doc("Why the skill needs it.", default=None)
    transport: str | None = doc("How it is reached (at most 64 characters).", default=None, example="stdio")
    command: str | None = doc("The command that starts it.", default=None)
    url: str | None = doc("Where it is reached.", default=None)


class SkillDependencies(EvalModel):
    """What the skill needs beside itself."""

    tools: list[ToolDependency] | None = doc("Tools the skill needs.", default=None)


class SkillPolicy(EvalModel):
    """Where and how the skill may be used."""

    allow_implicit_invocation: bool | None = doc(
        "`false`: the skill stays enabled but is left out of the model's listing (only `$name` invokes it).",
        default=None,
        example=False,
    )
    products: list[str] | None = doc("The products the skill is offered in.", default=None)


class SkillMetadata(EvalModel):
    """A Codex skill's `agents/openai.yaml`, beside its SKILL.md: display, dependencies, invocation policy.
    Optional. Codex drops an over-long or malformed value on its own, and ignores the whole file when it holds a
    type it cannot read (a list where text is expected; a number or boolean there is read as text)."""

    interface: SkillInterface | None = doc("How the skill is shown.", default=None)
    dependencies: SkillDependencies | None = doc("What the skill needs.", default=None)
    policy: SkillPolicy | None = doc("Where and how the skill may be used.", default=None)


class CodexAuthor(EvalModel):
    """Who made the plugin."""

    name: str | None = doc("The author's name.", default=None)
    email: str | None = doc("A contact address.", default=None)
    url: str | None = doc("A web page.", default=None)


class PluginInterface(EvalModel):
    """How the plugin is shown in Codex's plugin directory. camelCase keys; the URL fields also take
    `websiteURL`-style spellings."""

    displayName: str | None = doc("The name shown.", default=None, example="PDF Tools")
    shortDescription: str | None = doc("One line under the name.", default=None)
    longDescription: str | None = doc("The plugin's page text.", default=None)
    developerName: str | None = doc("Who made it.", default=None)
    category: str | None = doc("A directory category.", default=None, example="Productivity")
    capabilities: list[str] | None = doc("What it can do, as short phrases.", default=None)
    websiteURL: str | None = doc("The plugin's web page.", default=None)
    privacyPolicyURL: str | None = doc("Its privacy policy.", default=None)
    termsOfServiceURL: str | None = doc("Its terms of service.", default=None)
    defaultPrompt: str | list[str] | None = doc(
        "Suggested prompts: at most 3, each at most 128 characters after whitespace is collapsed.",
        default=None,
        example=["Summarize this PDF."],
    )
    brandColor: str | None = doc("`#RRGGBB`.", default=None, example="#1F6FEB")
    composerIcon: str | None = doc("An icon, `./`-relative to the plugin root.", default=None)
    logo: str | None = doc(
        "A logo, `./`-relative to the plugin root.", default=None, example="./assets/logo.png"
    )
    screenshots: list[str] | None = doc("Screenshots, each `./`-relative.", default=None)


class PluginManifest(EvalModel):
    """`.codex-plugin/plugin.json`. A file Codex cannot parse is skipped (the plugin is not loaded) with a log
    line; a path it cannot use is dropped."""

    name: str | None = doc(
        "The plugin's id, kebab-case; empty: the plugin folder's name.", default=None, example="pdf-tools"
    )
    version: str | None = doc("Semver.", default=None, example="1.0.0")
    description: str | None = doc("What the plugin does.", default=None)
    author: CodexAuthor | None = doc("Who made it.", default=None)
    homepage: str | None = doc("A URL.", default=None)
    repository: str | None = doc("The source repository.", default=None)
    license: str | None = doc("An SPDX id.", default=None, example="MIT")
    keywords: list[str] | None = doc("Search terms.", default=None)
    skills: str | list[str] | None = doc(
        "The skills folder, `./`-relative (not `./` itself, no `..`).", default=None, example="./skills/"
    )
    mcpServers: str | dict[str, Any] | None = doc(
        "An MCP config file (`./.mcp.json`) or the servers themselves.", default=None, example="./.mcp.json"
    )
    apps: str | None = doc(
        "An apps file (`./.app.json`), `./`-relative.", default=None, example="./.app.json"
    )
    hooks: str | list[str] | dict[str, Any] | list[dict[str, Any]] | None = doc(
        "A hooks file, a list of them, or hooks inline.", default=None, example="./hooks/hooks.json"
    )
    interface: PluginInterface | None = doc("How the plugin is shown.", default=None)
