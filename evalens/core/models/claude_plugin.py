"""Claude Code's plugin metadata: `.claude-plugin/plugin.json`, `.claude-plugin/marketplace.json` and
`hooks/hooks.json` (shared/reference/platforms.md §1.3–1.6, checked against `claude plugin validate` of Claude Code
2.1.332).

The models type what the CLI's loader types, so a wrong type is a schema error exactly where the CLI rejects the
file. What the loader only warns about and ignores is left loose here (`metadata`, `experimental`, `network` accept
any value) and judged by the format's rules (`formats/claude_plugin.py`), which also hold every check that depends on
the file system (a component path that does not exist) or on a hook's event (a broken `PreToolUse` entry fails the
plugin, the same entry under `Stop` is only skipped). Objects the CLI reads without complaint about extra keys
(`author`, a hook, a matcher, the hooks file's top level) declare open extras, so no unknown-key warning appears
where the CLI says nothing.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from evalens.core.models.base import EvalModel, doc

HOOK_EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "PreModelSwitch",
    "PostModelSwitch",
    "PermissionRequest",
    "PermissionDenied",
    "Setup",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "Elicitation",
    "ElicitationResult",
    "ConfigChange",
    "WorktreeCreate",
    "WorktreeRemove",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "DirectoryAdded",
    "MessageDisplay",
    "PreSkillShellCommand",
)
"""The hook events Claude Code 2.1.332 registers (platforms.md §1.6); any other is skipped with a warning."""

GUARD_EVENTS = ("PreToolUse", "PermissionRequest")
"""Events whose broken entry fails the whole plugin: such a hook may be what guards the permissions beside it."""

HOOK_TYPES = ("command", "prompt", "mcp_tool", "http", "agent")
HOOK_REQUIRED: dict[str, tuple[str, ...]] = {
    "command": ("command",),
    "prompt": ("prompt",),
    "agent": ("prompt",),
    "http": ("url",),
    "mcp_tool": ("server", "tool"),
}

_COMMON_HOOK_OPTIONS = ("if", "statusMessage", "once", "timeout")
HOOK_OPTIONS: dict[str, tuple[str, ...]] = {
    "command": ("command", "args", "shell", "async", "asyncRewake", *_COMMON_HOOK_OPTIONS),
    "prompt": ("prompt", "model", *_COMMON_HOOK_OPTIONS),
    "agent": ("prompt", "model", *_COMMON_HOOK_OPTIONS),
    "http": ("url", "headers", "allowedEnvVars", *_COMMON_HOOK_OPTIONS),
    "mcp_tool": ("server", "tool", "input", *_COMMON_HOOK_OPTIONS),
}
"""The options each hook type reads and type-checks (2.1.332's "Invalid <type> hook (option: …)"); another type's
option is ignored unchecked, so `HookCommand` lists them all for completion and hover but only these are judged."""

PATH_FIELDS = ("skills", "commands", "agents", "hooks", "outputStyles", "workflows", "themes", "monitors")
"""Manifest fields that name files or folders of the plugin (each `./`-relative, each must exist)."""

JSON_FIELDS = ("hooks", "mcpServers", "lspServers", "monitors")
"""Path fields whose file must be `.json` (2.1.332: `Invalid string: must end with ".json"`)."""

MARKETPLACE_ONLY = ("category", "tags", "strict", "source", "relevance", "id")
"""Keys of a marketplace entry that mean nothing in plugin.json (the CLI: 'belongs in the marketplace entry')."""

SOURCE_KINDS: dict[str, tuple[str, ...]] = {
    "github": ("repo",),
    "url": ("url",),
    "git-subdir": ("url", "path"),
    "npm": ("package",),
    "archive": ("url",),
    "command": ("command",),
}
"""A marketplace entry's object `source` kinds and the keys each needs (2.1.332; any other kind is refused)."""

_PATHS = str | list[str]
_RELATIVE = "Relative to the plugin root, starting `./`; the path must exist."


class Author(EvalModel):
    """Who made the plugin. Other keys are accepted silently."""

    __pydantic_extra__: dict[str, object]

    name: str = doc("The author's or team's name.", required=True, example="Ada Lovelace")
    email: str | None = doc("A contact address.", default=None, example="ada@example.com")
    url: str | None = doc("A web page.", default=None, example="https://example.com")


class HookCommand(EvalModel):
    """One hook. Which keys it needs depends on `type`; Claude Code reads other keys without complaint."""

    __pydantic_extra__: dict[str, object]

    type: Literal["command", "prompt", "mcp_tool", "http", "agent"] = doc(
        "`command` runs a shell command, `prompt` and `agent` ask a model, `http` posts to a URL, `mcp_tool` calls "
        "an MCP tool. A hook without a known type is skipped.",
        required=True,
        example="command",
    )
    command: str | None = doc(
        "`command`: the command line (quote `${CLAUDE_PLUGIN_ROOT}`: the path may hold spaces).",
        default=None,
        example='"${CLAUDE_PLUGIN_ROOT}/scripts/check.sh"',
    )
    args: list[str] | None = doc(
        "`command`: arguments for the exec form (no shell).", default=None, example=["--fast"]
    )
    shell: Literal["bash", "powershell"] | None = doc(
        "`command`: the shell the command runs in.", default=None, example="bash"
    )
    timeout: Annotated[float, Field(gt=0)] | None = doc(
        "Seconds before the hook is stopped.", default=None, unit="seconds", example=30
    )
    statusMessage: str | None = doc("Shown while the hook runs.", default=None, example="Checking the diff…")
    if_: str | None = doc(
        "A condition in permission-rule syntax the call must match for the hook to run.",
        default=None,
        alias="if",
        example="Bash(git commit*)",
    )
    once: bool | None = doc("Run only once per session.", default=None, example=True)
    # `async` is a Python keyword, hence the alias
    async_: bool | None = doc(
        "`command`: run in the background without blocking.", default=None, alias="async", example=True
    )
    asyncRewake: bool | None = doc(
        "`command`: a background hook that may wake the model when it finishes.", default=None, example=False
    )
    prompt: str | None = doc(
        "`prompt` / `agent`: what the model is asked.", default=None, example="Did the reply answer the user?"
    )
    model: str | None = doc("`prompt` / `agent`: the model to ask.", default=None, example="haiku")
    url: str | None = doc(
        "`http`: where the event is posted.", default=None, example="https://example.com/hook"
    )
    headers: dict[str, str] | None = doc(
        "`http`: request headers.", default=None, example={"Authorization": "Bearer $TOKEN"}
    )
    allowedEnvVars: list[str] | None = doc(
        "`http`: variables that may be expanded in the headers.", default=None, example=["TOKEN"]
    )
    server: str | None = doc("`mcp_tool`: the MCP server.", default=None, example="linter")
    tool: str | None = doc("`mcp_tool`: the tool to call.", default=None, example="lint")
    input: dict[str, Any] | None = doc(
        "`mcp_tool`: the tool's arguments.", default=None, example={"fix": True}
    )


class HookMatcher(EvalModel):
    """One matcher of an event: which tools (or sources) it applies to, and its hooks."""

    __pydantic_extra__: dict[str, object]

    matcher: str | None = doc(
        "A tool name, `A|B`, or a regex (`mcp__.*`); absent or `*`: every call. Only some events match.",
        default=None,
        example="Write|Edit",
    )
    hooks: list[HookCommand] = doc("The hooks run when the matcher fits.", required=True)


def _event_field(name: str) -> Any:
    guard = " A broken entry here fails the whole plugin." if name in GUARD_EVENTS else ""
    return doc(f"Hooks run on `{name}`.{guard}", default=None)


class HookEvents(EvalModel):
    """Event name → matchers. An unknown event is skipped at runtime with a warning."""

    PreToolUse: list[HookMatcher] | None = _event_field("PreToolUse")
    PostToolUse: list[HookMatcher] | None = _event_field("PostToolUse")
    PostToolUseFailure: list[HookMatcher] | None = _event_field("PostToolUseFailure")
    PostToolBatch: list[HookMatcher] | None = _event_field("PostToolBatch")
    Notification: list[HookMatcher] | None = _event_field("Notification")
    UserPromptSubmit: list[HookMatcher] | None = _event_field("UserPromptSubmit")
    UserPromptExpansion: list[HookMatcher] | None = _event_field("UserPromptExpansion")
    SessionStart: list[HookMatcher] | None = _event_field("SessionStart")
    SessionEnd: list[HookMatcher] | None = _event_field("SessionEnd")
    Stop: list[HookMatcher] | None = _event_field("Stop")
    StopFailure: list[HookMatcher] | None = _event_field("StopFailure")
    SubagentStart: list[HookMatcher] | None = _event_field("SubagentStart")
    SubagentStop: list[HookMatcher] | None = _event_field("SubagentStop")
    PreCompact: list[HookMatcher] | None = _event_field("PreCompact")
    PostCompact: list[HookMatcher] | None = _event_field("PostCompact")
    PreModelSwitch: list[HookMatcher] | None = _event_field("PreModelSwitch")
    PostModelSwitch: list[HookMatcher] | None = _event_field("PostModelSwitch")
    PermissionRequest: list[HookMatcher] | None = _event_field("PermissionRequest")
    PermissionDenied: list[HookMatcher] | None = _event_field("PermissionDenied")
    Setup: list[HookMatcher] | None = _event_field("Setup")
    TeammateIdle: list[HookMatcher] | None = _event_field("TeammateIdle")
    TaskCreated: list[HookMatcher] | None = _event_field("TaskCreated")
    TaskCompleted: list[HookMatcher] | None = _event_field("TaskCompleted")
    Elicitation: list[HookMatcher] | None = _event_field("Elicitation")
    ElicitationResult: list[HookMatcher] | None = _event_field("ElicitationResult")
    ConfigChange: list[HookMatcher] | None = _event_field("ConfigChange")
    WorktreeCreate: list[HookMatcher] | None = _event_field("WorktreeCreate")
    WorktreeRemove: list[HookMatcher] | None = _event_field("WorktreeRemove")
    InstructionsLoaded: list[HookMatcher] | None = _event_field("InstructionsLoaded")
    CwdChanged: list[HookMatcher] | None = _event_field("CwdChanged")
    FileChanged: list[HookMatcher] | None = _event_field("FileChanged")
    DirectoryAdded: list[HookMatcher] | None = _event_field("DirectoryAdded")
    MessageDisplay: list[HookMatcher] | None = _event_field("MessageDisplay")
    PreSkillShellCommand: list[HookMatcher] | None = _event_field("PreSkillShellCommand")


class HooksFile(EvalModel):
    """A plugin's `hooks/hooks.json`. Keys beside `hooks` (`description`, …) are read without complaint."""

    __pydantic_extra__: dict[str, object]

    description: str | None = doc("For people reading the file.", default=None, example="Formatting hooks")
    hooks: HookEvents = doc(
        "Event name → a list of matchers, each with its `hooks`.",
        required=True,
        example={"PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "fmt"}]}]},
    )


class UserConfigOption(EvalModel):
    """One value the user is asked for when the plugin is enabled."""

    type: Literal["string", "number", "boolean", "directory", "file"] = doc(
        "The kind of value.", required=True, example="string"
    )
    title: str = doc("The label shown.", required=True, example="API endpoint")
    description: str = doc("What the value is for.", required=True, example="Where the MCP server connects.")
    sensitive: bool | None = doc("Kept in the keychain, never shown.", default=None, example=True)
    required: bool | None = doc("The plugin cannot be enabled without it.", default=None, example=False)
    default: Any = doc("The value when the user gives none.", default=None, example="https://api.example.com")
    multiple: bool | None = doc("A list of values.", default=None, example=False)
    min: float | None = doc("`number`: the smallest value.", default=None, example=1)
    max: float | None = doc("`number`: the largest value.", default=None, example=10)


_ID = r"[A-Za-z0-9][A-Za-z0-9._-]*"
DependencyName = Annotated[str, Field(pattern=rf"^{_ID}(@{_ID})?$")]
"""`plugin` or `plugin@marketplace`, each part of letters, digits, `.`, `_`, `-` (2.1.332 refuses others)."""


class Dependency(EvalModel):
    """A plugin this one needs, by name and optional version range."""

    name: Annotated[str, Field(pattern=rf"^{_ID}$")] = doc(
        "The plugin's name: letters, digits, `.`, `_`, `-`.", required=True, example="helper-plugin"
    )
    version: str | None = doc("A semver range.", default=None, example="^1.2.0")


class Channel(EvalModel):
    """A message channel the plugin provides through one of its MCP servers."""

    server: str = doc("The MCP server that carries the channel.", required=True, example="chat")
    userConfig: dict[str, UserConfigOption] | None = doc("Values asked for this channel.", default=None)


class Experimental(EvalModel):
    """Components Claude Code loads only as experimental; an unknown key here is ignored."""

    themes: _PATHS | None = doc("Theme files. " + _RELATIVE, default=None, example="./themes/")
    monitors: str | None = doc(
        "A monitors `.json` file. " + _RELATIVE, default=None, example="./monitors.json"
    )
    evals: _PATHS | None = doc(
        "The `claude plugin eval` case folder (default `evals/`); of a list, the first entry is used.",
        default=None,
        example="./evals/",
    )


class CommandSpec(EvalModel):
    """One command of a `commands` map: a file or inline markdown, with what the command list shows."""

    __pydantic_extra__: dict[str, object]

    source: str | None = doc(
        "The command's markdown file. " + _RELATIVE, default=None, example="./docs/about.md"
    )
    content: str | None = doc("The command's markdown, inline.", default=None)
    description: str | None = doc("Shown in the command list.", default=None)


class _Components(EvalModel):
    """The component fields plugin.json and a marketplace entry share."""

    skills: _PATHS | None = doc(
        "Skill folders (each holding `<name>/SKILL.md`) added to `skills/`; `./` is the plugin root. "
        + _RELATIVE,
        default=None,
        example="./skills/",
    )
    commands: _PATHS | dict[str, CommandSpec] | None = doc(
        "Command files or folders (replaces the default `commands/`), or command name → its `source` file or "
        "inline `content`. " + _RELATIVE,
        default=None,
        example="./commands/",
    )
    agents: _PATHS | None = doc(
        "Agent files (each ending `.md`); replaces the default `agents/`. " + _RELATIVE,
        default=None,
        example=["./agents/reviewer.md"],
    )
    hooks: _PATHS | HookEvents | None = doc(
        "A hooks file (`./hooks/hooks.json`), a list of them, or the event map itself.",
        default=None,
        example="./hooks/hooks.json",
    )
    mcpServers: str | dict[str, dict[str, Any]] | None = doc(
        "An MCP config file (`./.mcp.json`) or server name → its `command` (stdio) or `url` (http, sse).",
        default=None,
        example="./.mcp.json",
    )
    lspServers: str | dict[str, dict[str, Any]] | None = doc(
        "An LSP config file or server name → its config.", default=None, example="./.lsp.json"
    )
    outputStyles: _PATHS | None = doc(
        "Output style files or folders; replaces the default. " + _RELATIVE, default=None, example="./styles/"
    )
    workflows: _PATHS | None = doc(
        "Workflow files or folders; replaces the default. " + _RELATIVE, default=None, example="./workflows/"
    )
    userConfig: dict[str, UserConfigOption] | None = doc(
        "Values the user is asked for when enabling the plugin, by key.", default=None
    )
    channels: list[Channel] | None = doc("Message channels the plugin's MCP servers provide.", default=None)
    dependencies: list[DependencyName | Dependency] | None = doc(
        "Plugins this one needs: `name` or `name@marketplace`, or `{name, version}`.",
        default=None,
        example=["helper-plugin"],
    )


class _Identity(_Components):
    """Who and what: the descriptive fields plugin.json and a marketplace entry share."""

    version: str | None = doc(
        "Semver; pins updates (plugin.json's wins over the marketplace entry's).",
        default=None,
        example="1.0.0",
    )
    description: str | None = doc("What the plugin does, in one sentence.", default=None)
    displayName: str | None = doc("The name shown in the plugin list.", default=None, example="PDF Tools")
    author: Author | None = doc("Who made it.", default=None, example={"name": "Ada"})
    homepage: str | None = doc("A URL.", default=None, example="https://example.com/pdf-tools")
    repository: str | None = doc("The source repository's URL.", default=None)
    license: str | None = doc("An SPDX id.", default=None, example="MIT")
    keywords: list[str] | None = doc("Search terms.", default=None, example=["pdf"])
    defaultEnabled: bool | None = doc(
        "Whether the plugin is enabled once installed (v2.1.154+).", default=None, example=False
    )
    experimental: Any = doc(
        "Experimental components: `themes`, `monitors`, `evals`.", default=None, example={"evals": "./evals/"}
    )
    network: Any = doc(
        'Hosts the plugin reaches, `{"hosts": [...]}`; shown by `claude plugin validate` only.',
        default=None,
        example={"hosts": ["api.example.com"]},
    )
    themes: _PATHS | None = doc(
        "Experimental: declare it under `experimental.themes` instead.", default=None, example="./themes/"
    )
    monitors: str | None = doc(
        "Experimental: declare it under `experimental.monitors` instead.",
        default=None,
        example="./monitors.json",
    )
    binaries: Any = doc("sha256-pinned files for the plugin's `bin/`.", default=None)


class PluginManifest(_Identity):
    """`.claude-plugin/plugin.json`. Optional: without it the folder's components are found by convention and
    the name is the folder's. Unknown keys are ignored at load time (said only for a near-miss of a known key)."""

    name: str = doc(
        "The plugin's id: kebab-case, no spaces. Components are namespaced by it (`name:skill`).",
        required=True,
        example="pdf-tools",
    )
    icon: Any = doc(
        "A square PNG or JPEG of the plugin (512–2048 px) for the plugin directory; Claude Code does not load it.",
        default=None,
        example="./assets/icon.png",
    )
    metadata: Any = doc("Free-form object, not read by Claude Code.", default=None, example={})
    screenshots: Any = doc(
        "Screenshots for the plugin directory's listing; Claude Code 2.1.332 accepts the key and does not load it.",
        default=None,
    )


class Owner(EvalModel):
    """Who maintains the marketplace. Other keys are accepted silently."""

    __pydantic_extra__: dict[str, object]

    name: str = doc("The maintainer's or team's name.", required=True, example="Tools Team")
    email: str | None = doc("A contact address.", default=None, example="tools@example.com")
    url: str | None = doc("A web page.", default=None)


class SourceObject(EvalModel):
    """Where a plugin is fetched from, when it is not a folder of the marketplace's repository."""

    __pydantic_extra__: dict[str, object]

    source: Literal["github", "url", "git-subdir", "npm", "archive", "command"] = doc(
        "`github` (`repo`), `url` (a git `url`), `git-subdir` (`url` and `path`), `npm` (`package`), "
        "`archive` (a zip `url`), `command` (`command`).",
        required=True,
        example="github",
    )
    repo: str | None = doc("`github`: `owner/name`.", default=None, example="acme/pdf-tools")
    url: str | None = doc("`url`, `git-subdir`, `archive`: where to fetch.", default=None)
    path: str | None = doc("`git-subdir`: the plugin's folder in the repository.", default=None)
    package: str | None = doc("`npm`: the package name.", default=None)
    command: str | None = doc("`command`: a command that prints the plugin's location.", default=None)
    ref: str | None = doc("A branch or tag.", default=None, example="main")
    sha: Annotated[str, Field(pattern=r"^[0-9a-f]{40}$")] | None = doc(
        "A full 40-character lowercase commit SHA.", default=None
    )


class MarketplaceEntry(_Identity):
    """One plugin of a marketplace: where it is, plus any manifest field (plugin.json's own values win)."""

    name: str = doc(
        "The plugin's id in `plugin@marketplace`: letters, digits, `.`, `_`, `-`.",
        required=True,
        example="pdf-tools",
    )
    source: str | SourceObject = doc(
        "A folder of this repository (`./plugins/pdf-tools`, or a bare name under `metadata.pluginRoot`), or "
        "an object naming a remote source.",
        required=True,
        example="./plugins/pdf-tools",
    )
    category: str | None = doc("A listing category.", default=None, example="productivity")
    tags: list[str] | None = doc("Listing tags.", default=None, example=["pdf"])
    strict: bool | None = doc(
        "`false`: the entry alone defines the plugin (no plugin.json needed). Default: true.",
        default=None,
        example=False,
    )
    relevance: Any = doc("Ranking hints for the listing.", default=None)
    metadata: Any = doc("Free-form object.", default=None)
    headers: Any = doc(
        "Accepted in a marketplace entry by Claude Code 2.1.332's schema; not documented.", default=None
    )


class MarketplaceMetadata(EvalModel):
    """Marketplace-wide settings."""

    pluginRoot: str | None = doc(
        "The folder bare `source` names resolve in (v2.1.239+).", default=None, example="./plugins"
    )
    description: str | None = doc("What the marketplace offers.", default=None)
    version: str | None = doc("The marketplace's version.", default=None)


class Marketplace(EvalModel):
    """`.claude-plugin/marketplace.json`: a catalog of plugins users add with `/plugin marketplace add`."""

    name: str = doc(
        "The marketplace's id (`plugin@name`): no spaces; kebab-case by convention.",
        required=True,
        example="acme-tools",
    )
    owner: Owner = doc("Who maintains it.", required=True, example={"name": "Tools Team"})
    plugins: list[MarketplaceEntry] = doc("The plugins it lists.", required=True)
    description: str | None = doc("What the marketplace offers.", default=None)
    version: str | None = doc("The marketplace's version.", default=None, example="1.0.0")
    metadata: MarketplaceMetadata | None = doc("Marketplace-wide settings.", default=None)
    allowCrossMarketplaceDependenciesOn: list[str] | None = doc(
        "Other marketplaces whose plugins this one's plugins may depend on.", default=None
    )
    renames: dict[str, str] | None = doc("Old plugin name → new name (v2.1.193+).", default=None)


class Settings(EvalModel):
    """`.claude/settings.json` (and `settings.local.json`): evalens reads only its `hooks`; every other setting
    is accepted as it is."""

    __pydantic_extra__: dict[str, object]

    hooks: HookEvents | None = doc(
        "Event name → matchers → hooks, the same shape as a plugin's hooks.json `hooks`.", default=None
    )
    disableAllHooks: bool | None = doc("Turns every hook off.", default=None, example=False)
