"""Codex's skill and plugin metadata: a skill's `agents/openai.yaml` and a plugin's `.codex-plugin/plugin.json`
(`models/codex_meta.py`; openai/codex `core-skills/src/loader.rs`, `core-plugins/src/manifest.rs` and
`manifest_document.rs`).

Codex has no validator for either file (codex-cli 0.171.0 has no `validate` command) and fails open: a value it
cannot use is dropped with a log line, a manifest it cannot parse leaves the plugin unloaded, an unknown key is
ignored. So evalens reports no error here: what Codex drops is a warning, and an unknown key is said only when it is
a near-miss of a known one (as for Claude Code's manifests).
"""

from __future__ import annotations

import re
from pathlib import Path as FsPath
from typing import Any

from evalens.core.documents import ParsedDocument, Path
from evalens.core.formats import registry
from evalens.core.formats._shared import problem
from evalens.core.formats.base import Format, Match, RuleContext, Target
from evalens.core.formats.claude_plugin import quiet_unknown_keys
from evalens.core.models import codex_meta as m
from evalens.core.models.catalog import SchemaSpec, register
from evalens.core.problems import Edit, Fix, Problem, Severity

register(
    SchemaSpec(
        "codex-skill-metadata.schema.json",
        m.SkillMetadata,
        "Codex agents/openai.yaml",
        "A Codex skill's `agents/openai.yaml`: how the skill is shown, what it needs and whether the model may "
        "invoke it by itself.",
    )
)
register(
    SchemaSpec(
        "codex-plugin-manifest.schema.json",
        m.PluginManifest,
        "Codex plugin.json",
        "A Codex plugin's `.codex-plugin/plugin.json`: its name, component paths and directory listing.",
    )
)

W = Severity.WARNING
_COLOR = re.compile(r"^#[0-9A-Fa-f]{6}$")
_SKILL_LIMITS: dict[Path, int] = {
    ("interface", "display_name"): 64,
    ("interface", "short_description"): 1024,
    ("interface", "default_prompt"): 1024,
}
_TOOL_LIMITS = {"type": 64, "value": 1024, "transport": 64}
_MAX_PROMPTS = 3
_MAX_PROMPT_CHARS = 128


def _as_warnings(problems: list[Problem], what: str) -> list[Problem]:
    """Schema findings in Codex's terms: never an error (Codex drops what it cannot read), and said of what it
    drops: a wrong type in `plugin.json` fails its parse, so the plugin is not loaded; in `openai.yaml` only the
    value is dropped."""
    for p in problems:
        if p.severity is Severity.ERROR:
            p.severity = W
            p.message = p.message.rstrip(".") + f". {what}"
    return quiet_unknown_keys(problems)


def _relative_path_problem(doc: ParsedDocument, path: Path, value: Any) -> Problem | None:
    """Codex's rule for a manifest path: `./`-relative, not `./` itself, no `..`; otherwise it is ignored."""
    if not isinstance(value, str) or not value:
        return None
    why = None
    if not value.startswith("./"):
        why = "must start with `./` (relative to the plugin root)"
    elif value.rstrip("/") == ".":
        why = "must not be `./` itself"
    elif ".." in FsPath(value).parts:
        why = "must not contain `..`"
    if why is None:
        return None
    fixes = []
    if not value.startswith(("./", "/", "..", "~")) and ":" not in value:
        fixes.append(Fix(f"Write `./{value}`", (Edit(doc.unquoted(doc.span_for(path)), f"./{value}"),)))
    return problem(
        doc,
        path,
        W,
        "codex-ignored",
        f"`{value}` {why}: Codex ignores this path (and logs a warning).",
        fixes=fixes,
    )


def _under_assets(icon: str) -> bool:
    """An icon Codex shows: a relative path inside the skill's `assets/` folder (`./assets/…` or `assets/…`)."""
    parts = FsPath(icon).parts  # `./` is dropped by the parse
    return not FsPath(icon).is_absolute() and ".." not in parts and len(parts) > 1 and parts[0] == "assets"


def _value_at(data: Any, path: list[Any]) -> Any:
    for part in path:
        if isinstance(data, dict) and part in data:
            data = data[part]
        elif isinstance(data, list) and isinstance(part, int) and part < len(data):
            data = data[part]
        else:
            return None
    return data


def _yaml_reading(doc: ParsedDocument, problems: list[Problem]) -> list[Problem]:
    """openai.yaml as Codex 0.171.0 reads it (`codex app-server` `skills/list`): a number or boolean where text is
    expected is read as text (`display_name: 5` shows "5"); a dependency without its `type` or `value` is dropped
    on its own; any other type mismatch (a list for a string, `products: codex`, `allow_implicit_invocation: 1`)
    fails the whole file's read, so everything in it is ignored."""
    out = []
    for p in problems:
        path = list((p.data or {}).get("path") or [])
        value = _value_at(doc.data, path)
        if p.code == "schema-type" and isinstance(value, int | float | bool) and "a string" in p.message:
            continue
        if p.code == "missing-key" and path[:2] == ["dependencies", "tools"] and len(path) == 3:
            p.severity = W
            p.message = p.message.rstrip(".") + ": Codex drops this dependency."
        out.append(p)
    return out


class CodexSkillMetadata(Format):
    id = "codex-skill-metadata"
    title = "Codex agents/openai.yaml"
    language = "yaml"
    globs = ("**/agents/openai.yaml", "**/agents/openai.yml")
    schema_file = "codex-skill-metadata.schema.json"

    def detect(self, path: str, data: Any) -> Match:
        """Codex reads `agents/openai.yaml` beside a SKILL.md; elsewhere the name is claimed only when the file
        has Codex's own top-level keys."""
        if (FsPath(path).parent.parent / "SKILL.md").is_file():
            return Match.YES
        if isinstance(data, dict) and {"interface", "policy", "dependencies"} & set(data):
            return Match.YES
        return Match.NO

    def claims_unparsed(self, path: str, doc: ParsedDocument) -> bool:
        return (FsPath(path).parent.parent / "SKILL.md").is_file()

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        return _as_warnings(
            _yaml_reading(doc, problems), "Codex cannot read the file, so it ignores all of it."
        )

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        data = doc.data
        if not isinstance(data, dict):
            return []
        out: list[Problem] = []
        raw = data.get("interface")
        interface: dict[str, Any] = raw if isinstance(raw, dict) else {}
        for path, limit in _SKILL_LIMITS.items():
            value = interface.get(str(path[1]))
            if isinstance(value, str) and len(value) > limit:
                out.append(
                    problem(
                        doc,
                        path,
                        W,
                        "codex-ignored",
                        f"`{path[1]}` is {len(value)} characters; Codex drops a value over {limit}.",
                    )
                )
        color = interface.get("brand_color")
        if isinstance(color, str) and not _COLOR.match(color):
            out.append(
                problem(
                    doc,
                    ("interface", "brand_color"),
                    W,
                    "codex-ignored",
                    f"`{color}` is not `#RRGGBB`; Codex drops it.",
                )
            )
        for key in ("icon_small", "icon_large"):
            icon = interface.get(key)
            if isinstance(icon, str) and not _under_assets(icon):
                out.append(
                    problem(
                        doc,
                        ("interface", key),
                        W,
                        "codex-ignored",
                        f"`{icon}` must be a path under the skill's `assets/` (no absolute path, no `..`); Codex "
                        "ignores it.",
                    )
                )
        out += _tool_problems(doc, data.get("dependencies"))
        return out

    def definition(self, doc: ParsedDocument, path: Path, value: Any, ctx: RuleContext) -> list[Target]:
        if path in (("interface", "icon_small"), ("interface", "icon_large")) and isinstance(value, str):
            target = FsPath(ctx.file_path).parent.parent / value
            if ".." not in FsPath(value).parts and target.is_file():
                return [Target(str(target))]
        return []

    def skeleton(self, snippets: bool) -> str | None:
        name = "${1:Display Name}" if snippets else "Display Name"
        return f"interface:\n  display_name: {name}\n  short_description: What the skill does.\npolicy:\n  allow_implicit_invocation: true\n"


def _tool_problems(doc: ParsedDocument, deps: Any) -> list[Problem]:
    tools = deps.get("tools") if isinstance(deps, dict) else None
    out: list[Problem] = []
    for i, tool in enumerate(tools if isinstance(tools, list) else []):
        if not isinstance(tool, dict):
            continue
        for key, limit in _TOOL_LIMITS.items():
            value = tool.get(key)
            if isinstance(value, str) and len(value) > limit:
                out.append(
                    problem(
                        doc,
                        ("dependencies", "tools", i, key),
                        W,
                        "codex-ignored",
                        f"`{key}` is {len(value)} characters; Codex drops a dependency whose `{key}` is over {limit}.",
                    )
                )
    return out


class CodexPluginManifest(Format):
    id = "codex-plugin"
    title = "Codex plugin.json"
    language = "json"
    globs = ("**/.codex-plugin/plugin.json",)
    schema_file = "codex-plugin-manifest.schema.json"

    def detect(self, path: str, data: Any) -> Match:
        """Codex's own path: whatever is there is read as the manifest."""
        return Match.YES

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        return _as_warnings(problems, "Codex cannot parse the manifest, so the plugin is not loaded.")

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        data = doc.data
        if not isinstance(data, dict):
            return []
        out: list[Problem] = []
        for key in ("skills", "mcpServers", "apps", "hooks"):
            value = data.get(key)
            entries: list[tuple[Path, Any]] = [((key,), value)] if isinstance(value, str) else []
            if isinstance(value, list):
                entries = [((key, i), v) for i, v in enumerate(value)]
            for path, entry in entries:
                if (p := _relative_path_problem(doc, path, entry)) is not None:
                    out.append(p)
        raw = data.get("interface")
        interface: dict[str, Any] = raw if isinstance(raw, dict) else {}
        for key in ("composerIcon", "logo"):
            if (p := _relative_path_problem(doc, ("interface", key), interface.get(key))) is not None:
                out.append(p)
        shots = interface.get("screenshots")
        for i, shot in enumerate(shots if isinstance(shots, list) else []):
            if (p := _relative_path_problem(doc, ("interface", "screenshots", i), shot)) is not None:
                out.append(p)
        out += _prompt_problems(doc, interface.get("defaultPrompt"))
        color = interface.get("brandColor")
        if isinstance(color, str) and not _COLOR.match(color):
            out.append(
                problem(
                    doc,
                    ("interface", "brandColor"),
                    W,
                    "codex-ignored",
                    f"`{color}` is not `#RRGGBB`; Codex drops it.",
                )
            )
        return out

    def skeleton(self, snippets: bool) -> str | None:
        name = "${1:my-plugin}" if snippets else "my-plugin"
        return (
            f'{{\n  "name": "{name}",\n  "version": "0.1.0",\n  "description": "What the plugin does.",\n'
            '  "skills": "./skills/"\n}\n'
        )


def _prompt_problems(doc: ParsedDocument, prompts: Any) -> list[Problem]:
    """`defaultPrompt` as Codex resolves it: at most three, each non-empty and at most 128 characters once its
    whitespace is collapsed; the rest are dropped one by one."""
    base: Path = ("interface", "defaultPrompt")
    items = [(base, prompts)] if isinstance(prompts, str) else []
    if isinstance(prompts, list):
        items = [((*base, i), p) for i, p in enumerate(prompts)]
    out: list[Problem] = []
    kept = 0
    for path, prompt in items:
        if not isinstance(prompt, str):
            continue  # the schema's finding
        if kept >= _MAX_PROMPTS:
            out.append(
                problem(
                    doc,
                    path,
                    W,
                    "codex-ignored",
                    f"Codex keeps at most {_MAX_PROMPTS} prompts; it drops this one.",
                )
            )
            continue
        text = " ".join(prompt.split())
        if not text:
            out.append(problem(doc, path, W, "codex-ignored", "An empty prompt: Codex drops it."))
        elif len(text) > _MAX_PROMPT_CHARS:
            out.append(
                problem(
                    doc,
                    path,
                    W,
                    "codex-ignored",
                    f"This prompt is {len(text)} characters; Codex drops a prompt over {_MAX_PROMPT_CHARS}.",
                )
            )
        else:
            kept += 1
    return out


registry.register(CodexSkillMetadata())
registry.register(CodexPluginManifest())
