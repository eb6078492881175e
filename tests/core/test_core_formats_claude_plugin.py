"""``evalens.core.formats.claude_plugin``'s own helpers, called directly: the reserved-name test read from
``claude plugin validate``'s verdicts (each example its docstring gives, both ways), the inline MCP and LSP
server checks, how unknown keys are quieted, a path field's type error reworded, and where a ``hooks.json`` is
Claude Code's (a plugin) and where it is not (a UAAPS package, ``.github/hooks/``). The per-format rule tests
(test_formats_plugin_metadata.py) reach these only through whole manifests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalens.core.formats.base import Match
from evalens.core.formats.claude_plugin import (
    ClaudeHooks,
    lsp_server_problem,
    mcp_server_problem,
    path_wording,
    quiet_unknown_keys,
    reads_as_anthropic,
    reserved_plugin_name,
)
from evalens.core.problems import Problem, Severity, Span

REFUSED = [
    "claude",
    "Claude",
    "claude-foo",
    "claude.foo",
    "claude_foo",
    "anthropic-x",
    "anthropics-x",
    "anthropic",
    "cc-plugin-x",
    "ccplugin-x",
    "claude-mods",
    "claude-code",
    "officialclaude",
    "anthropic-official",
    "claudecode",
    "ClaudeCode",
    "cl-aude",
    "claud-emods",
]
ALLOWED = [
    "foo-claude",
    "claudette",
    "claudex-foo",
    "anthropicx",
    "ccpluginx",
    "mods-claude",
    "official-tools",
]


@pytest.mark.parametrize("name", REFUSED)
def test_reserved_plugin_names_are_refused(name: str) -> None:
    assert reserved_plugin_name(name)


@pytest.mark.parametrize("name", ALLOWED)
def test_names_that_only_resemble_reserved_ones_pass(name: str) -> None:
    assert not reserved_plugin_name(name)


def test_a_later_word_of_claude_or_anthropic_reads_as_anthropic() -> None:
    for name in (
        "codex-in-claude",
        "foo_claude",
        "my-anthropic",
        "x.Anthropics",
        "foo-claude",
        "mods-claude",
    ):
        assert reads_as_anthropic(name), name
    for name in ("fooclaude", "foo-claudes", "x-claudecode", "claude-foo", "claude", "tools"):
        assert not reads_as_anthropic(name), name


@pytest.mark.parametrize(
    ("server", "why"),
    [
        ({"command": "node", "args": ["s.js"], "env": {"A": "1"}}, None),
        ({"type": "stdio", "command": "node"}, None),
        ({"type": "http", "url": "https://x", "headers": {"A": "b"}}, None),
        ({"type": "streamable-http", "url": "https://x", "extra": 1}, None),
        ("node s.js", "is not an object"),
        ({}, "has no `command` (a stdio server; give `type` and `url` for a remote one)"),
        ({"command": "node", "args": "s.js"}, "has `args` that are not a list of strings"),
        ({"command": "node", "args": ["s.js", 3]}, "has `args` that are not a list of strings"),
        ({"command": "node", "env": {"A": 1}}, "has `env` values that are not strings"),
        ({"command": "node", "env": ["A=1"]}, "has `env` values that are not strings"),
        (
            {"type": "grpc", "url": "x"},
            "has `type` `grpc`; the types are stdio, sse, http, ws, streamable-http",
        ),
        ({"type": "sse"}, "is a `sse` server without a `url`"),
        (
            {"type": "ws", "url": "wss://x", "headers": {"A": None}},
            "has `headers` values that are not strings",
        ),
    ],
)
def test_mcp_server_problem(server: object, why: str | None) -> None:
    assert mcp_server_problem(server) == why


def test_lsp_server_problem() -> None:
    assert lsp_server_problem({"command": "pyright", "extensionToLanguage": {".py": "python"}}) is None
    assert lsp_server_problem(["pyright"]) == "is not an object"
    assert lsp_server_problem({"extensionToLanguage": {}}) == "has no `command`"
    assert (
        lsp_server_problem({"command": "pyright"}) == 'has no `extensionToLanguage` map (`{".py": "python"}`)'
    )
    assert lsp_server_problem({"command": "p", "extensionToLanguage": [".py"]}) is not None


def _problem(code: str, message: str, **data: object) -> Problem:
    return Problem(Span(0, 0, 0, 1), Severity.WARNING, code, message, data=dict(data))


def test_unknown_keys_are_dropped_unless_near_a_known_one_or_kept() -> None:
    problems = [
        _problem("unknown-key", "Unknown key `contributors`.", path=["contributors"]),
        _problem(
            "unknown-key", "`descripton`: did you mean `description`?", path=["descripton"], suggestion="x"
        ),
        _problem("unknown-key", "Unknown key `tags`.", path=["tags"]),
        _problem("missing-key", "Missing `name`.", path=[]),
    ]
    out = quiet_unknown_keys(problems, keep=lambda path: path == ("tags",))
    assert [p.message for p in out] == [
        "`descripton`: did you mean `description`? Claude Code ignores the key as written.",
        "Unknown key `tags`.",
        "Missing `name`.",
    ]
    assert [p.code for p in quiet_unknown_keys(list(problems))] == ["unknown-key", "missing-key"]


def test_a_path_fields_type_error_names_both_shapes() -> None:
    problems = [
        _problem("schema-type", "must be a string, not a list", path=["commands", 0]),
        _problem("schema-type", "must be a string, not a number", path=["commands"]),
        _problem("schema-type", "hooks stay as they are", path=["hooks"]),
        _problem("schema-type", "name stays", path=["name"]),
        _problem("unknown-key", "not a schema problem", path=["agents"]),
        _problem("schema-type", "too deep to reword", path=["skills", 0, "x"]),
    ]
    out = path_wording(problems, ())
    wording = "`{}` must be a `./` path or a list of path strings; Claude Code refuses the manifest."
    assert [p.message for p in out] == [
        wording.format("commands"),
        wording.format("commands"),
        "hooks stay as they are",
        "name stays",
        "not a schema problem",
        "too deep to reword",
    ]
    entry = path_wording([_problem("schema-type", "m", path=["plugins", 2, "agents"])], ("plugins", 2))
    assert entry[0].message == wording.format("plugins[2].agents")


HOOKS = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}]}}


def _hooks_file(root: Path, data: object = HOOKS) -> str:
    path = root / "hooks" / "hooks.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(data))
    return str(path)


def test_hooks_json_is_claude_codes_in_a_plugin_whatever_it_holds(tmp_path: Path) -> None:
    (tmp_path / "plugin" / ".claude-plugin").mkdir(parents=True)
    path = _hooks_file(tmp_path / "plugin", {"whatever": 1})
    assert ClaudeHooks().detect(path, {"whatever": 1}) is Match.YES
    assert ClaudeHooks().claims_unparsed(path, None)  # type: ignore[arg-type]


def test_hooks_json_elsewhere_is_claimed_by_its_event_names(tmp_path: Path) -> None:
    loose = _hooks_file(tmp_path / "loose")
    assert ClaudeHooks().detect(loose, HOOKS) is Match.YES
    assert not ClaudeHooks().claims_unparsed(loose, None)  # type: ignore[arg-type]
    other = {"hooks": {"pre-commit": [{"run": "x"}]}}
    assert ClaudeHooks().detect(_hooks_file(tmp_path / "other"), other) is Match.NO
    assert ClaudeHooks().detect(_hooks_file(tmp_path / "list"), [1]) is Match.NO


def test_hooks_json_of_a_uaaps_package_or_github_is_not_claude_codes(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "package.agent.json").write_text("{}")
    assert ClaudeHooks().detect(_hooks_file(tmp_path / "pkg"), HOOKS) is Match.NO
    assert ClaudeHooks().detect(_hooks_file(tmp_path / "repo" / ".github"), HOOKS) is Match.NO
