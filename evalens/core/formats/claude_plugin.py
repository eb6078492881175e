"""Claude Code's plugin metadata: `.claude-plugin/plugin.json`, `.claude-plugin/marketplace.json` and a plugin's
`hooks/hooks.json` (and the same hook map inline in plugin.json), checked as `claude plugin validate` of Claude Code
2.1.332 checks them (`models/claude_plugin.py`; `tests/core/test_claude_plugin_oracle.py` runs the CLI on generated
variants and fails where evalens and the CLI disagree about errors).

Severities follow what the CLI does with each finding: an error where it fails validation (a wrong type, a
component path that is missing or not `./`-relative, a name with spaces, a broken `PreToolUse` hook), a warning
where it says the value is ignored at load time (an unknown key or hook event, a broken hook under any other event,
a `metadata` that is no object), and a hint for advice it gives without anything being lost (no version or author,
a name that is not kebab-case, an unquoted `${CLAUDE_PLUGIN_ROOT}`).
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path as FsPath
from typing import Any

from pydantic import ValidationError

from evalens.core.documents import ParsedDocument, Path
from evalens.core.formats import registry
from evalens.core.formats._shared import problem, whole_checkout
from evalens.core.formats.base import Format, Match, RuleContext, Target
from evalens.core.models import claude_plugin as m
from evalens.core.models.catalog import SchemaSpec, register
from evalens.core.problems import Edit, Fix, Problem, Severity
from evalens.core.schema_check import dotted, suggest, type_word

register(
    SchemaSpec(
        "claude-plugin-manifest.schema.json",
        m.PluginManifest,
        "Claude Code plugin.json",
        "A Claude Code plugin's `.claude-plugin/plugin.json`: its name, metadata and component paths.",
    )
)
register(
    SchemaSpec(
        "claude-plugin-marketplace.schema.json",
        m.Marketplace,
        "Claude Code marketplace.json",
        "A Claude Code plugin marketplace (`.claude-plugin/marketplace.json`): its owner and the plugins it lists.",
    )
)
register(
    SchemaSpec(
        "claude-settings-hooks.schema.json",
        m.Settings,
        "Claude Code settings.json (hooks)",
        "The `hooks` of a Claude Code `.claude/settings.json`; evalens leaves the other settings alone.",
    )
)
register(
    SchemaSpec(
        "claude-plugin-hooks.schema.json",
        m.HooksFile,
        "Claude Code hooks.json",
        "A Claude Code plugin's `hooks/hooks.json`: event name → matchers → hooks.",
    )
)

E, W, H = Severity.ERROR, Severity.WARNING, Severity.HINT
_ID_CHARS = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
"""A part of a plugin id (`plugin@marketplace`) Claude Code can install (2.1.332's message)."""
_KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$")
_UNQUOTED_ROOT = re.compile(r"(?<![\"'])\$\{CLAUDE_PLUGIN_ROOT\}")


def _plugin_root(path: str) -> FsPath:
    """The plugin folder of a file under `.claude-plugin/` or `hooks/`."""
    return FsPath(path).parent.parent


def _under(path: Path, problems_path: Any) -> bool:
    return isinstance(problems_path, list) and tuple(problems_path[: len(path)]) == path


# ------------------------------------------------------------------------------------------------ hooks


def _check_hook(doc: ParsedDocument, path: Path, hook: Any, why: str, sev: Severity) -> list[Problem]:
    """One hook object as the loader reads it: a known `type`, the keys that type needs, typed options."""
    where = dotted(path)
    if not isinstance(hook, dict):
        return [
            problem(
                doc, path, sev, "hook-invalid", f"`{where}` must be a hook object, not {type_word(hook)}{why}"
            )
        ]
    kind = hook.get("type")
    if kind is None:
        return [problem(doc, path, sev, "hook-invalid", f"`{where}` has no `type`{why}", on_key=bool(path))]
    if kind not in m.HOOK_TYPES:
        near = suggest(str(kind), list(m.HOOK_TYPES))
        known = f"did you mean `{near}`?" if near else f"the types are {', '.join(m.HOOK_TYPES)}."
        return [
            problem(doc, (*path, "type"), sev, "hook-invalid", f"Unknown hook type `{kind}`{why} ({known})")
        ]
    out: list[Problem] = []
    for key in m.HOOK_REQUIRED[kind]:
        if not isinstance(hook.get(key), str):
            out.append(
                problem(
                    doc,
                    (*path, key) if key in hook else path,
                    sev,
                    "hook-invalid",
                    f"A `{kind}` hook needs `{key}` as a string{why}",
                    on_key=key not in hook and bool(path),
                )
            )
    try:
        m.HookCommand.model_validate(hook, strict=True)
    except ValidationError as exc:
        for err in exc.errors():
            loc = tuple(err["loc"])
            if not loc or loc[0] in m.HOOK_REQUIRED[kind] or loc[0] not in m.HOOK_OPTIONS[kind]:
                continue  # the required keys are said above; another type's option is not read
            key = str(loc[0])
            out.append(
                problem(
                    doc,
                    (*path, key),
                    sev,
                    "hook-invalid",
                    f"`{dotted((*path, key))}`: {err['msg'].lower()} (not {type_word(hook.get(key))}){why}",
                )
            )
    url = hook.get("url")
    if kind == "http" and isinstance(url, str) and not _URL.match(url):
        out.append(problem(doc, (*path, "url"), sev, "hook-invalid", f"`{url}` is not a URL{why}"))
    command = hook.get("command")
    if kind == "command" and isinstance(command, str) and _UNQUOTED_ROOT.search(command):
        out.append(
            problem(
                doc,
                (*path, "command"),
                H,
                "hook-unquoted-root",
                "`${CLAUDE_PLUGIN_ROOT}` is not quoted: where the plugin's path holds a space, the shell splits the "
                'command. Write `"${CLAUDE_PLUGIN_ROOT}/…"`.',
            )
        )
    return out


def hook_problems(
    doc: ParsedDocument, base: Path, events: Any, *, strict_events: bool = False
) -> list[Problem]:
    """The hook map at ``base`` (event → matchers → hooks) as Claude Code 2.1.332 loads it. A broken entry under
    `PreToolUse` / `PermissionRequest` fails the plugin (an error); under any other event it is skipped (a
    warning), and so is an unknown event, unless ``strict_events``: a marketplace entry refuses every one of them."""
    if not isinstance(events, dict):
        return []
    out: list[Problem] = []
    for event, matchers in events.items():
        path = (*base, event)
        if event not in m.HOOK_EVENTS:
            near = suggest(str(event), list(m.HOOK_EVENTS))
            fixes = []
            if near and (span := doc.key_span_at_path(path)) is not None:
                fixes.append(Fix(f"Rename `{event}` to `{near}`", (Edit(doc.unquoted(span), near),)))
            said = f"; did you mean `{near}`?" if near else "."
            out.append(
                problem(
                    doc,
                    path,
                    E if strict_events else W,
                    "hook-unknown-event",
                    f"`{event}` is not a hook event: "
                    + (
                        "Claude Code refuses the marketplace entry"
                        if strict_events
                        else "Claude Code skips it"
                    )
                    + said,
                    on_key=True,
                    fixes=fixes,
                    data={"suggestion": near},
                )
            )
            continue
        guard = event in m.GUARD_EVENTS
        sev = E if guard or strict_events else W
        why = (
            "; Claude Code refuses the marketplace (an entry's hooks are read strictly)."
            if strict_events
            else ". Claude Code fails the plugin: a PreToolUse/PermissionRequest hook that cannot load may be what "
            "guards the permissions beside it."
            if guard
            else "; Claude Code skips the entry."
        )
        if not isinstance(matchers, list):
            out.append(problem(doc, path, sev, "hook-invalid", f"`{event}` must be a list of matchers{why}"))
            continue
        for i, entry in enumerate(matchers):
            here = (*path, i)
            if not isinstance(entry, dict):
                out.append(
                    problem(doc, here, sev, "hook-invalid", f"`{dotted(here)}` must be a matcher object{why}")
                )
                continue
            if "matcher" in entry and not isinstance(entry["matcher"], str):
                out.append(
                    problem(doc, (*here, "matcher"), sev, "hook-invalid", f"`matcher` must be a string{why}")
                )
            inner = entry.get("hooks")
            if not isinstance(inner, list):
                out.append(
                    problem(
                        doc,
                        (*here, "hooks") if "hooks" in entry else here,
                        sev,
                        "hook-invalid",
                        f"`{dotted(here)}` needs `hooks`, a list of hook objects{why}",
                    )
                )
                continue
            for j, hook in enumerate(inner):
                out += _check_hook(doc, (*here, "hooks", j), hook, why, sev)
    return out


def path_wording(problems: list[Problem], base: Path) -> list[Problem]:
    """A component path field's type error in the loader's terms: a string or a list of strings (the schema's
    best match names only one of the two, "must be a string, not a list", for a list of objects)."""
    for p in problems:
        path = tuple((p.data or {}).get("path") or ())
        if (
            p.code.startswith("schema-")
            and len(path) in (len(base) + 1, len(base) + 2)
            and _under(base, list(path))
        ):
            key = path[len(base)]
            if key in m.PATH_FIELDS and key != "hooks":
                p.message = (
                    f"`{dotted(path[: len(base) + 1])}` must be a `./` path or a list of path strings; Claude Code "
                    "refuses the manifest."
                )
    return problems


def quiet_unknown_keys(problems: list[Problem], keep: Any = None) -> list[Problem]:
    """Unknown keys are dropped unless they are a near-miss of a known one (a warning with its rename): Claude Code
    ignores an unknown manifest key and never fails on it, so, as for SKILL.md frontmatter under the Claude Code
    profile, a key such as `contributors` is nothing to fix; `descripton` is (severity-policy.md)."""
    out = []
    for p in problems:
        path = tuple((p.data or {}).get("path") or ())
        near = (p.data or {}).get("suggestion")
        if p.code == "unknown-key" and not near and not (keep and keep(path)):
            continue
        if p.code == "unknown-key" and near:
            p.message = p.message.rstrip("?") + "? Claude Code ignores the key as written."
        out.append(p)
    return out


def _drop_hook_schema(problems: list[Problem], base: Path) -> list[Problem]:
    """The schema's findings inside a hook map are re-judged by ``hook_problems`` (whose severity depends on the
    event), so they are dropped here; so are unknown keys of hooks and matchers, which Claude Code reads silently."""
    return [p for p in problems if not _under(base, (p.data or {}).get("path"))]


# ------------------------------------------------------------------------------------------------ paths


def _path_problems(doc: ParsedDocument, root: FsPath, key: Path, value: Any) -> list[Problem]:
    """A component path field (a string or a list) as the CLI checks it: `./`-relative, no `..`, present; agents
    are `.md` files; skills entries are folders."""
    entries = (
        [(key, value)] if isinstance(value, str) else [((*key, i), v) for i, v in enumerate(value or [])]
    )
    field = str(key[-1])
    out: list[Problem] = []
    for path, entry in entries:
        if not isinstance(entry, str):
            continue  # the schema's type error
        if not entry.startswith("./"):
            span = doc.span_for(path)
            fixes = (
                [Fix(f"Write `./{entry}`", (Edit(doc.unquoted(span), f"./{entry}"),))]
                if entry and not entry.startswith(("/", "..", "~")) and ":" not in entry
                else []
            )
            out.append(
                problem(
                    doc,
                    path,
                    E,
                    "plugin-path",
                    f"`{entry}` must start with `./` (relative to the plugin root); Claude Code refuses the manifest.",
                    fixes=fixes,
                )
            )
            continue
        if ".." in FsPath(entry).parts:
            out.append(
                problem(
                    doc,
                    path,
                    E,
                    "plugin-path",
                    f"`{entry}` leaves the plugin folder (`..`): Claude Code refuses it.",
                )
            )
            continue
        if field in m.JSON_FIELDS and not entry.endswith(".json"):
            out.append(
                problem(
                    doc,
                    path,
                    E,
                    "plugin-path",
                    f"`{entry}`: `{field}` names a `.json` file; Claude Code refuses it.",
                )
            )
            continue
        if field == "agents" and not entry.endswith(".md"):
            out.append(
                problem(
                    doc,
                    path,
                    E,
                    "plugin-path",
                    f"`{entry}`: `agents` entries are agent files ending `.md`, not folders; list each file.",
                )
            )
            continue
        target = root / entry
        if not target.exists() and whole_checkout(root):
            out.append(
                problem(
                    doc,
                    path,
                    E,
                    "plugin-path",
                    f"`{entry}` does not exist in the plugin; Claude Code reports it as a load failure.",
                )
            )
        elif field == "skills" and target.is_file():
            out.append(
                problem(
                    doc,
                    path,
                    E,
                    "plugin-path",
                    f"`{entry}` is a file; `skills` entries are folders that hold `<name>/SKILL.md` (or a SKILL.md).",
                )
            )
    return out


def _command_map_problems(doc: ParsedDocument, root: FsPath, commands: dict[str, Any]) -> list[Problem]:
    """A `commands` map: each command needs a `source` file (checked like any component path) or `content`."""
    out: list[Problem] = []
    for name, spec in commands.items():
        if not isinstance(spec, dict):
            continue  # the schema's type error
        if isinstance(spec.get("source"), str):
            out += _path_problems(doc, root, ("commands", name, "source"), spec["source"])
        elif not isinstance(spec.get("content"), str):
            out.append(
                problem(
                    doc,
                    ("commands", name),
                    E,
                    "plugin-path",
                    f"Command `{name}` has neither `source` (a file) nor `content` (inline markdown); Claude Code "
                    "refuses the manifest.",
                    on_key=True,
                )
            )
    return out


OFFICIAL_MARKETPLACES = frozenset(
    (
        "agent-skills",
        "anthropic-agent-skills",
        "anthropic-marketplace",
        "anthropic-plugins",
        "claude-code-marketplace",
        "claude-code-plugins",
        "claude-plugins-official",
        "financial-services-plugins",
        "knowledge-work-plugins",
        "life-sciences",
    )
)
"""Marketplace names whose entries `claude plugin validate` (2.1.332) lets carry a reserved plugin name (it passes
`claude-x` in each of these and refuses it in `anthropic-skills`, `claude-plugins`, `my-market`): Anthropic's own."""
_RESERVED_PREFIX = re.compile(r"^(?:claude|anthropics?)(?:[-_.]|$)|^cc[-_.]?plugin[-_.]|^claude-mods$")
_RESERVED_COMPACT = frozenset({"claude", "anthropic", "anthropics", "claudecode", "claudemods"})
"""The reserved names, compared with their `-`, `_` and `.` removed: the CLI refuses `claudecode`, `cl-aude`,
`claud-emods` and `ClaudeCode` as it refuses `claude-code`."""


def reserved_plugin_name(name: str) -> bool:
    """A plugin name `claude plugin validate` (2.1.332) refuses as passing for Anthropic's own, read from its
    verdicts on generated plugins: case aside, `claude-foo`, `claude.foo`, `claude_foo`, `anthropic-x`,
    `anthropics-x`, `cc-plugin-x`, `ccplugin-x`, `claude`, `claude-mods`, and `official` with `claude` or
    `anthropic` anywhere (`officialclaude`) are refused, and so is a reserved name with its separators moved or
    dropped (`claudecode`, `cl-aude`); `foo-claude`, `claudette`, `claudex-foo`, `anthropicx`, `ccpluginx` and
    `mods-claude` pass (the first and last with a warning, `reads_as_anthropic`). A marketplace's own name is not checked, and the entries of Anthropic's own
    marketplaces (`OFFICIAL_MARKETPLACES`) pass."""
    low = name.lower()
    return (
        bool(_RESERVED_PREFIX.match(low))
        or re.sub(r"[-_.]", "", low) in _RESERVED_COMPACT
        or ("official" in low and ("claude" in low or "anthropic" in low))
    )


def reads_as_anthropic(name: str) -> bool:
    """A name `claude plugin validate` (2.1.332) loads but warns "reads as one of Anthropic's own": `claude`,
    `anthropic` or `anthropics` as a later word (`codex-in-claude`, `foo_claude`, `my-anthropic`), case aside;
    `fooclaude`, `foo-claudes` and `x-claudecode` pass silently."""
    return any(w in ("claude", "anthropic", "anthropics") for w in re.split(r"[-_.]+", name.lower())[1:])


def _name_problems(
    doc: ParsedDocument, name: Any, what: str, *, advise_kebab: bool, reserved: bool = True
) -> list[Problem]:
    """A plugin or marketplace id: empty or with whitespace is refused; characters Claude Code cannot install
    warn; anything else that is not kebab-case is advice (the Claude.ai marketplace sync wants it)."""
    if not isinstance(name, str):
        return []
    path: Path = ("name",)
    if not name:
        return [problem(doc, path, E, "plugin-name", f"The {what} name is empty; Claude Code refuses it.")]
    if any(unicodedata.category(c) in ("Cc", "Cf") and not c.isspace() for c in name):
        return [
            problem(
                doc,
                path,
                E,
                "plugin-name",
                f"The {what} name holds control or formatting characters; Claude Code refuses it.",
            )
        ]
    if any(c.isspace() for c in name):
        kebab = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
        fixes = (
            [Fix(f"Rename to `{kebab}`", (Edit(doc.unquoted(doc.span_for(path)), kebab),))] if kebab else []
        )
        return [
            problem(
                doc,
                path,
                E,
                "plugin-name",
                f"The {what} name `{name}` holds whitespace; Claude Code refuses it. Use kebab-case (`{kebab}`).",
                fixes=fixes,
            )
        ]
    if not _ID_CHARS.match(name):
        return [
            problem(
                doc,
                path,
                W,
                "plugin-name",
                f"`{name}`: Claude Code cannot install a {what} by this name (only letters, digits, `.`, `_` and `-`, "
                "starting with a letter or digit).",
            )
        ]
    if what == "plugin" and reserved and reserved_plugin_name(name):
        return [
            problem(
                doc,
                path,
                E,
                "plugin-name",
                f"The plugin name `{name}` is reserved: Claude Code refuses a third party's plugin that passes as one "
                "of Anthropic's own (a name starting `claude-`, `anthropic-`, `anthropics-` or `cc-plugin-`; `claude`, "
                "`anthropic`, `anthropics`, `claude-code`, `claude-mods`; `official` beside `claude` or `anthropic`). "
                "Name it for what it does.",
            )
        ]
    said = []
    if advise_kebab and not _KEBAB.match(name):
        said.append(
            f"`{name}` is not kebab-case: Claude Code accepts it, the Claude.ai marketplace sync does not."
        )
    if what == "plugin" and reserved and reads_as_anthropic(name):
        said.append(
            f"The plugin name `{name}` reads as one of Anthropic's own (`claude` or `anthropic` as a word): Claude Code "
            "loads it and `claude plugin validate` warns. Name it for what it does."
        )
    return [problem(doc, path, H, "plugin-name", " ".join(said))] if said else []


# ------------------------------------------------------------------------------------------------ plugin.json


_URL_TRANSPORTS = ("sse", "http", "ws", "streamable-http")


def _str_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def mcp_server_problem(server: Any) -> str | None:
    """Why Claude Code 2.1.332 refuses an inline MCP server, or None: a stdio server (no `type`, or `stdio`)
    needs a `command` (string `args`, string `env` values); `sse`, `http`, `ws` and `streamable-http` need a `url`
    (string `headers`); any other `type` is refused. Other keys are accepted."""
    if not isinstance(server, dict):
        return "is not an object"
    kind = server.get("type")
    if kind in (None, "stdio"):
        if not isinstance(server.get("command"), str):
            return "has no `command` (a stdio server; give `type` and `url` for a remote one)"
        args = server.get("args")
        if args is not None and not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
            return "has `args` that are not a list of strings"
        if "env" in server and not _str_map(server["env"]):
            return "has `env` values that are not strings"
        return None
    if kind not in _URL_TRANSPORTS:
        return f"has `type` `{kind}`; the types are stdio, {', '.join(_URL_TRANSPORTS)}"
    if not isinstance(server.get("url"), str):
        return f"is a `{kind}` server without a `url`"
    if "headers" in server and not _str_map(server["headers"]):
        return "has `headers` values that are not strings"
    return None


def lsp_server_problem(server: Any) -> str | None:
    """Why Claude Code 2.1.332 refuses an inline LSP server, or None: it needs a `command` and an
    `extensionToLanguage` map (`{".py": "python"}`)."""
    if not isinstance(server, dict):
        return "is not an object"
    if not isinstance(server.get("command"), str):
        return "has no `command`"
    if not isinstance(server.get("extensionToLanguage"), dict):
        return 'has no `extensionToLanguage` map (`{".py": "python"}`)'
    return None


def _mcp_problems(
    doc: ParsedDocument,
    root: FsPath,
    value: Any,
    base: Path = (),
    *,
    check_paths: bool = True,
    key: str = "mcpServers",
) -> list[Problem]:
    """A server map (`mcpServers`, `lspServers`) or the path of its config file."""
    if isinstance(value, str):
        return _path_problems(doc, root, (*base, key), value) if check_paths else []
    judge = mcp_server_problem if key == "mcpServers" else lsp_server_problem
    what = "MCP" if key == "mcpServers" else "LSP"
    out: list[Problem] = []
    for name, server in value.items() if isinstance(value, dict) else ():
        if (why := judge(server)) is not None:
            out.append(
                problem(
                    doc,
                    (*base, key, name),
                    E,
                    "plugin-mcp-server",
                    f"{what} server `{name}` {why}; Claude Code refuses the manifest.",
                    on_key=True,
                )
            )
    return out


def _loose_object(doc: ParsedDocument, data: dict[str, Any], key: str, what: str) -> list[Problem]:
    value = data.get(key)
    if key in data and not isinstance(value, dict):
        return [
            problem(
                doc,
                (key,),
                W,
                "plugin-ignored",
                f"`{key}` must be {what}, not {type_word(value)}: Claude Code ignores it at load time.",
            )
        ]
    return []


class ClaudePluginManifest(Format):
    id = "claude-plugin"
    title = "Claude Code plugin.json"
    language = "json"
    globs = ("**/.claude-plugin/plugin.json",)
    schema_file = "claude-plugin-manifest.schema.json"

    def detect(self, path: str, data: Any) -> Match:
        """The path is Claude Code's own: whatever the file holds, the CLI reads it as the manifest."""
        return Match.YES

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        data = doc.data if isinstance(doc.data, dict) else {}
        if isinstance(data.get("hooks"), dict):
            problems = _drop_hook_schema(problems, ("hooks",))
        problems = path_wording(problems, ())
        for p in problems:
            path = (p.data or {}).get("path") or []
            if p.code == "unknown-key" and len(path) == 1 and path[0] in m.MARKETPLACE_ONLY:
                p.severity = H
                p.message = f"`{path[0]}` belongs in the plugin's marketplace entry, not plugin.json: Claude Code ignores it here."
            elif p.code == "missing-key" and p.severity is E:
                p.message += " Claude Code refuses the manifest."
        return quiet_unknown_keys(
            problems, keep=lambda path: len(path) == 1 and path[0] in m.MARKETPLACE_ONLY
        )

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        data = doc.data
        if not isinstance(data, dict):
            return []
        root = _plugin_root(ctx.file_path)
        out = _name_problems(doc, data.get("name"), "plugin", advise_kebab=True)
        homepage = data.get("homepage")
        if isinstance(homepage, str) and not _URL.match(homepage):
            out.append(
                problem(
                    doc, ("homepage",), E, "plugin-url", f"`{homepage}` is not a URL; Claude Code refuses it."
                )
            )
        out += _loose_object(doc, data, "metadata", "an object")
        out += _loose_object(doc, data, "network", 'an object such as `{"hosts": ["api.example.com"]}`')
        network = data.get("network")
        if isinstance(network, dict) and not isinstance(network.get("hosts"), list):
            out.append(
                problem(
                    doc,
                    ("network",),
                    W,
                    "plugin-ignored",
                    "`network` needs a `hosts` list: Claude Code ignores it.",
                )
            )
        out += _loose_object(doc, data, "experimental", "an object of component declarations")
        experimental = data.get("experimental")
        if isinstance(experimental, dict):
            for key, value in experimental.items():
                if key == "monitors" and value is not None and not isinstance(value, str):
                    out.append(
                        problem(
                            doc,
                            ("experimental", key),
                            E,
                            "plugin-path",
                            f"`experimental.monitors` must be one `./…json` file, not {type_word(value)}; Claude Code "
                            "refuses the manifest.",
                        )
                    )
                elif key in ("themes", "monitors"):
                    out += _path_problems(doc, root, ("experimental", key), value)
                elif key != "evals":
                    out.append(
                        problem(
                            doc,
                            ("experimental", key),
                            W,
                            "plugin-ignored",
                            f"`{key}` is not an experimental component: Claude Code ignores it.",
                            on_key=True,
                        )
                    )
        for key in m.PATH_FIELDS:
            value = data.get(key)
            if key == "hooks" and isinstance(value, dict):
                out += hook_problems(doc, ("hooks",), value)
            elif key == "commands" and isinstance(value, dict):
                out += _command_map_problems(doc, root, value)
            elif isinstance(value, str | list):
                out += _path_problems(doc, root, (key,), value)
            if key in ("themes", "monitors") and key in data:
                out.append(
                    problem(
                        doc,
                        (key,),
                        W,
                        "plugin-ignored",
                        f"`{key}` is an experimental component: declare it as `experimental.{key}`; Claude Code "
                        "does not load it from the top level.",
                        on_key=True,
                    )
                )
        out += _mcp_problems(doc, root, data.get("mcpServers"))
        out += _mcp_problems(doc, root, data.get("lspServers"), key="lspServers")
        return out

    def definition(self, doc: ParsedDocument, path: Path, value: Any, ctx: RuleContext) -> list[Target]:
        """A component path opens the file it names (a folder's SKILL.md when it holds one)."""
        if not isinstance(value, str) or not value.startswith("./") or ".." in FsPath(value).parts:
            return []
        if not path or (path[0] not in (*m.PATH_FIELDS, "mcpServers", "experimental")):
            return []
        target = _plugin_root(ctx.file_path) / value
        if target.is_dir() and (target / "SKILL.md").is_file():
            target = target / "SKILL.md"
        return [Target(str(target))] if target.is_file() else []

    def skeleton(self, snippets: bool) -> str | None:
        name = "${1:my-plugin}" if snippets else "my-plugin"
        return (
            f'{{\n  "name": "{name}",\n  "version": "0.1.0",\n  "description": "What the plugin does.",\n'
            '  "author": {"name": "Your Name"}\n}\n'
        )


# ------------------------------------------------------------------------------------------------ marketplace.json


def _entry_problems(
    doc: ParsedDocument, root: FsPath, i: int, entry: dict[str, Any], plugin_root: Any
) -> list[Problem]:
    base: Path = ("plugins", i)
    out: list[Problem] = []
    name = entry.get("name")
    if isinstance(name, str):
        official = isinstance(doc.data, dict) and doc.data.get("name") in OFFICIAL_MARKETPLACES
        for p in _name_problems(doc, name, "plugin", advise_kebab=False, reserved=not official):
            p.span = doc.span_for((*base, "name"))
            p.data = {"path": [*base, "name"]}
            if p.severity is W:
                p.severity = (
                    E  # a marketplace entry Claude Code cannot install is refused with the marketplace
                )
                p.message = p.message.replace("cannot install a plugin", "refuses a marketplace entry")
            out.append(p)
    source = entry.get("source")
    if isinstance(source, str) and not source.startswith("./"):
        bare = "/" not in source and ":" not in source and source not in ("", ".", "..")
        if not (bare and isinstance(plugin_root, str)):
            said = (
                f"The bare name `{source}` needs `metadata.pluginRoot`"
                if bare
                else f"`{source}` must start with `./` (a folder of this repository)"
            )
            out.append(
                problem(
                    doc,
                    (*base, "source"),
                    E,
                    "marketplace-source",
                    f'{said}, or use a source object such as `{{"source": "github", "repo": "owner/name"}}`; '
                    "Claude Code refuses the marketplace.",
                )
            )
    elif isinstance(source, str) and ".." in FsPath(source).parts:
        out.append(
            problem(
                doc,
                (*base, "source"),
                E,
                "marketplace-source",
                f"`{source}` leaves the marketplace's folder (`..`).",
            )
        )
    elif isinstance(source, dict) and source.get("source") in m.SOURCE_KINDS:
        kind = source["source"]
        for key in m.SOURCE_KINDS[kind]:
            if not isinstance(source.get(key), str):
                out.append(
                    problem(
                        doc,
                        (*base, "source"),
                        E,
                        "marketplace-source",
                        f"A `{kind}` source needs `{key}`; Claude Code refuses the marketplace.",
                    )
                )
    homepage = entry.get("homepage")
    if isinstance(homepage, str) and not _URL.match(homepage):
        out.append(
            problem(
                doc,
                (*base, "homepage"),
                E,
                "plugin-url",
                f"`{homepage}` is not a URL; Claude Code refuses it.",
            )
        )
    agents = entry.get("agents")
    for j, agent in enumerate(
        [agents] if isinstance(agents, str) else agents if isinstance(agents, list) else []
    ):
        if isinstance(agent, str) and not agent.endswith(".md"):
            where = (*base, "agents") if isinstance(agents, str) else (*base, "agents", j)
            out.append(
                problem(
                    doc, where, E, "plugin-path", f"`{agent}`: `agents` entries are agent files ending `.md`."
                )
            )
    hooks = entry.get("hooks")
    if isinstance(hooks, dict):
        out += [p for p in hook_problems(doc, (*base, "hooks"), hooks, strict_events=True) if p.severity is E]
    out += _entry_path_problems(doc, base, entry)
    out += _mcp_problems(doc, root, entry.get("mcpServers"), base, check_paths=False)
    out += _mcp_problems(doc, root, entry.get("lspServers"), base, check_paths=False, key="lspServers")
    out += _version_mismatch(doc, root, base, entry)
    return out


def _entry_path_problems(doc: ParsedDocument, base: Path, entry: dict[str, Any]) -> list[Problem]:
    """A marketplace entry's component paths: each must start with `./` (relative to the plugin's source); the CLI
    does not look for them on disk, since the plugin may come from elsewhere."""
    out: list[Problem] = []
    for key in (*m.PATH_FIELDS, "mcpServers", "lspServers"):
        value = entry.get(key)
        items = [((*base, key), value)] if isinstance(value, str) else []
        if isinstance(value, list):
            items = [((*base, key, j), v) for j, v in enumerate(value)]
        for path, item in items:
            if (
                isinstance(item, str)
                and item.startswith("./")
                and key in m.JSON_FIELDS
                and not item.endswith(".json")
            ):
                out.append(
                    problem(
                        doc,
                        path,
                        E,
                        "plugin-path",
                        f"`{item}`: `{key}` names a `.json` file; Claude Code refuses it.",
                    )
                )
            elif isinstance(item, str) and not item.startswith("./"):
                out.append(
                    problem(
                        doc,
                        path,
                        E,
                        "plugin-path",
                        f"`{item}` must start with `./` (relative to the plugin's root); Claude Code refuses the "
                        "marketplace.",
                    )
                )
    return out


def _version_mismatch(doc: ParsedDocument, root: FsPath, base: Path, entry: dict[str, Any]) -> list[Problem]:
    """An entry's `version` that its own plugin.json contradicts: at install time plugin.json wins, so the entry's
    value is ignored."""
    source, version = entry.get("source"), entry.get("version")
    if not (isinstance(source, str) and source.startswith("./") and isinstance(version, str)):
        return []
    manifest = root / source / ".claude-plugin" / "plugin.json"
    try:
        theirs = json.loads(manifest.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError, AttributeError):
        return []
    if isinstance(theirs, str) and theirs != version:
        return [
            problem(
                doc,
                (*base, "version"),
                H,
                "marketplace-version-mismatch",
                f"The entry says version `{version}`, its plugin.json `{theirs}`: Claude Code installs by plugin.json "
                "and ignores the entry's.",
            )
        ]
    return []


def _source_wording(problems: list[Problem], i: int, source: Any) -> None:
    """A source object whose kind Claude Code does not know, said as such (the schema's best match for the
    string-or-object union says "must be a string, not a mapping", which hides the real mistake)."""
    if not isinstance(source, dict) or source.get("source") in m.SOURCE_KINDS:
        return
    kind = source.get("source")
    said = (
        f"`{kind}` is not a source kind"
        if isinstance(kind, str)
        else "The source object names no `source` kind"
    )
    for p in problems:
        if p.code.startswith("schema-") and tuple((p.data or {}).get("path") or ())[:3] == (
            "plugins",
            i,
            "source",
        ):
            p.message = (
                f"{said} Claude Code knows ({', '.join(m.SOURCE_KINDS)}); it refuses the marketplace. A folder of "
                "this repository is written as a string, `./path`."
            )


class ClaudeMarketplace(Format):
    id = "claude-marketplace"
    title = "Claude Code marketplace.json"
    language = "json"
    globs = ("**/.claude-plugin/marketplace.json",)
    schema_file = "claude-plugin-marketplace.schema.json"

    def detect(self, path: str, data: Any) -> Match:
        """Claude Code's own path: `/plugin marketplace add` reads whatever is there."""
        return Match.YES

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        data = doc.data if isinstance(doc.data, dict) else {}
        raw = data.get("plugins")
        plugins: list[Any] = raw if isinstance(raw, list) else []
        for i, entry in enumerate(plugins):
            if isinstance(entry, dict) and isinstance(entry.get("hooks"), dict):
                problems = _drop_hook_schema(problems, ("plugins", i, "hooks"))
            problems = path_wording(problems, ("plugins", i))
            if isinstance(entry, dict):
                _source_wording(problems, i, entry.get("source"))
        for p in problems:
            if p.code == "missing-key" and p.severity is E:
                p.message += " Claude Code refuses the marketplace."
        return quiet_unknown_keys(problems)

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        data = doc.data
        if not isinstance(data, dict):
            return []
        root = _plugin_root(ctx.file_path)
        out: list[Problem] = []
        name = data.get("name")
        out += [p for p in _name_problems(doc, name, "marketplace", advise_kebab=False)]
        for p in out:
            if p.severity is W:
                p.severity = E  # no plugin of a marketplace by this name can be installed
        metadata = data.get("metadata")
        plugin_root = metadata.get("pluginRoot") if isinstance(metadata, dict) else None
        seen: dict[str, int] = {}
        plugins = data.get("plugins")
        for i, entry in enumerate(plugins if isinstance(plugins, list) else []):
            if not isinstance(entry, dict):
                continue
            out += _entry_problems(doc, root, i, entry, plugin_root)
            entry_name = entry.get("name")
            if isinstance(entry_name, str):
                if entry_name in seen:
                    out.append(
                        problem(
                            doc,
                            ("plugins", i, "name"),
                            E,
                            "marketplace-duplicate",
                            f"`{entry_name}` is listed twice (also plugins[{seen[entry_name]}]); Claude Code refuses "
                            "the marketplace.",
                        )
                    )
                seen.setdefault(entry_name, i)
        return out

    def definition(self, doc: ParsedDocument, path: Path, value: Any, ctx: RuleContext) -> list[Target]:
        """An entry's local `source` opens that plugin's plugin.json."""
        if len(path) == 3 and path[0] == "plugins" and path[2] == "source" and isinstance(value, str):
            if value.startswith("./") and ".." not in FsPath(value).parts:
                manifest = _plugin_root(ctx.file_path) / value / ".claude-plugin" / "plugin.json"
                return [Target(str(manifest))] if manifest.is_file() else []
        return []

    def skeleton(self, snippets: bool) -> str | None:
        name = "${1:my-marketplace}" if snippets else "my-marketplace"
        return (
            f'{{\n  "name": "{name}",\n  "owner": {{"name": "Your Name"}},\n  "description": "What it offers.",\n'
            '  "plugins": [\n    {"name": "my-plugin", "source": "./plugins/my-plugin"}\n  ]\n}\n'
        )


# ------------------------------------------------------------------------------------------------ hooks.json


def _in_plugin(path: str) -> bool:
    return (_plugin_root(path) / ".claude-plugin").is_dir()


class ClaudeHooks(Format):
    id = "claude-hooks"
    title = "Claude Code hooks.json"
    language = "json"
    globs = ("**/hooks/hooks.json",)
    schema_file = "claude-plugin-hooks.schema.json"

    def detect(self, path: str, data: Any) -> Match:
        """A plugin's hooks file: `hooks/hooks.json` in a folder with `.claude-plugin/`, or any such file whose
        `hooks` map names a Claude Code event (other tools use the name too), except in a UAAPS package and in
        `.github/hooks/`, the folder GitHub Copilot (CLI, cloud agent) and VS Code read their own hook files from
        (flat `{type, command}` entries under the same PascalCase event names); Claude Code never reads it."""
        if _in_plugin(path):
            return Match.YES
        if (_plugin_root(path) / "package.agent.json").is_file():
            return Match.NO  # a UAAPS package's hooks, whose event names UAAPS normalises (`pre-tool-use`)
        if _plugin_root(path).name == ".github":
            return Match.NO
        hooks = data.get("hooks") if isinstance(data, dict) else None
        if isinstance(hooks, dict) and set(hooks) & set(m.HOOK_EVENTS):
            return Match.YES
        return Match.NO

    def claims_unparsed(self, path: str, doc: ParsedDocument) -> bool:
        """In a plugin, a hooks file that does not parse breaks the plugin's whole load."""
        return _in_plugin(path)

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        data = doc.data if isinstance(doc.data, dict) else {}
        problems = (
            _drop_hook_schema(problems, ("hooks",)) if isinstance(data.get("hooks"), dict) else problems
        )
        out = []
        for p in problems:
            if p.code == "missing-key" and (p.data or {}).get("missing") == "hooks":
                if "modules" in data:
                    continue
                p.message = "A hooks file needs `hooks` (the event map) or `modules`; Claude Code refuses it."
            out.append(p)
        return out

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        data = doc.data
        if not isinstance(data, dict):
            return []
        out: list[Problem] = []
        for event in m.GUARD_EVENTS:
            if event in data:
                out.append(
                    problem(
                        doc,
                        (event,),
                        E,
                        "hook-guard-top-level",
                        f'`{event}` is outside the `"hooks"` object, so it never loads; Claude Code fails the plugin '
                        "(a guard hook that cannot load may be what protects the permissions beside it). Move it "
                        'into `"hooks"`.',
                        on_key=True,
                    )
                )
        out += hook_problems(doc, ("hooks",), data.get("hooks"))
        return out

    def skeleton(self, snippets: bool) -> str | None:
        command = (
            '${1:\\"${CLAUDE_PLUGIN_ROOT}/scripts/check.sh\\"}'
            if snippets
            else '\\"${CLAUDE_PLUGIN_ROOT}/scripts/check.sh\\"'
        )
        return (
            '{\n  "hooks": {\n    "PostToolUse": [\n      {\n        "matcher": "Write|Edit",\n'
            f'        "hooks": [{{"type": "command", "command": "{command}"}}]\n      }}\n    ]\n  }}\n}}\n'
        )


class ClaudeSettings(Format):
    id = "claude-settings"
    title = "Claude Code settings.json (hooks)"
    language = "json"
    globs = ("**/.claude/settings.json", "**/.claude/settings.local.json")
    schema_file = "claude-settings-hooks.schema.json"

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        data = doc.data if isinstance(doc.data, dict) else {}
        return _drop_hook_schema(problems, ("hooks",)) if isinstance(data.get("hooks"), dict) else problems

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        """The hook checks of hooks.json, at most warnings: no tool of Claude Code's validates settings files
        (`claude plugin validate` reads plugins only), and a settings entry Claude Code cannot read is skipped."""
        data = doc.data
        if not isinstance(data, dict):
            return []
        out = hook_problems(doc, ("hooks",), data.get("hooks"))
        for p in out:
            if p.severity is E:
                p.severity = W
                p.message = (
                    p.message.split(". Claude Code fails the plugin")[0] + "; Claude Code skips the entry."
                )
        return out


registry.register(ClaudePluginManifest())
registry.register(ClaudeMarketplace())
registry.register(ClaudeHooks())
registry.register(ClaudeSettings())
