"""`claude plugin validate` as the oracle for plugin.json, marketplace.json and hooks.json (issue #39, item 3).

evalens reports an error on a file exactly where the real CLI fails it, and no error where the CLI passes it (or
only warns). Each variant is one generated plugin (or marketplace) in its own folder, validated by the CLI with
``--json``; the CLI's verdict is read from that output, never from its binary. The CLI pinned by
``.ci/install-agents.sh`` lives in ``.tools/node``; ``EVALENS_CLAUDE_NEWEST`` may name a second one.

The same comparison runs over the plugin files of the reviewed corpora, with one named exception: outside a git
checkout evalens does not call a missing component path an error (`formats/_shared.py::whole_checkout`: a
copied or trimmed plugin folder cannot tell a missing file from one not copied), where the CLI does.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from evalens.core.aggregate import related_of
from evalens.core.documents import parse
from evalens.core.index import IndexCache
from evalens.core.models import claude_plugin as cp
from evalens.core.problems import Severity
from evalens.core.validate import validate_text
from tests.conftest import CORPUS, REPO

# The CLI tier: it drives the installed CLI (its own validator, as the oracle), which the fast tier never
# needs; without the CLI it skips (docs/CONTRIBUTING.md, the tiers).
pytestmark = pytest.mark.agents

PINNED = REPO / ".tools" / "node" / "node_modules" / ".bin" / "claude"
CLIS = [p for p in (PINNED, Path(os.environ.get("EVALENS_CLAUDE_NEWEST", "/nonexistent"))) if p.is_file()]
needs_cli = pytest.mark.skipif(
    not CLIS, reason="claude CLI not installed (.ci/install-agents.sh installs it)"
)

MANIFEST = {"name": "p", "version": "1.0.0", "description": "d", "author": {"name": "a"}}
SKILL = "---\nname: a\ndescription: d\n---\nBody.\n"
CMD = {"type": "command", "command": "echo hi"}


def _hooks(events: Any) -> dict[str, Any]:
    return {"hooks": events}


@dataclass
class Variant:
    """One generated case: its files (relative path → text or JSON value) and the file evalens checks."""

    kind: str  # plugin.json | marketplace.json | hooks.json
    files: dict[str, Any] = field(default_factory=dict)

    @property
    def target(self) -> str:
        return {
            "plugin.json": ".claude-plugin/plugin.json",
            "marketplace.json": ".claude-plugin/marketplace.json",
            "hooks.json": "hooks/hooks.json",
        }[self.kind]


def _plugin(**changes: Any) -> Variant:
    files = changes.pop("files", {})
    drop = changes.pop("drop", ())
    manifest = {**MANIFEST, **changes}
    for key in drop:
        manifest.pop(key)
    return Variant("plugin.json", {".claude-plugin/plugin.json": manifest, **files})


def _market(plugins: Any = None, **changes: Any) -> Variant:
    drop = changes.pop("drop", ())
    body = {"name": "mk", "owner": {"name": "o"}, "description": "d", **changes}
    body["plugins"] = [{"name": "p", "source": "./p"}] if plugins is None else plugins
    for key in drop:
        body.pop(key)
    return Variant(
        "marketplace.json",
        {".claude-plugin/marketplace.json": body, "p/.claude-plugin/plugin.json": MANIFEST},
    )


def _hooks_file(content: Any) -> Variant:
    return Variant("hooks.json", {".claude-plugin/plugin.json": MANIFEST, "hooks/hooks.json": content})


VARIANTS: dict[str, Variant] = {
    # plugin.json, accepted (some with warnings)
    "p-plain": _plugin(),
    "p-upper-name": _plugin(name="MyPlugin"),
    "p-slash-name": _plugin(name="a/b"),
    "p-dash-name": _plugin(name="-p"),
    "p-tab-name": _plugin(name="a\tb"),
    "p-control-name": _plugin(name="a\u202eb"),
    "p-unknown-key": _plugin(frobnicate=1, descripton="x"),
    "p-marketplace-keys": _plugin(category="x", tags=["a"], strict=True),
    "p-metadata-string": _plugin(metadata="x"),
    "p-experimental-string": _plugin(experimental="x"),
    "p-network-list": _plugin(network=["example.com"]),
    "p-author-extra": _plugin(author={"name": "a", "x": 1}),
    "p-no-metadata": _plugin(drop=("version", "description", "author")),
    "p-skills-dir": _plugin(skills="./skills/", files={"skills/a/SKILL.md": SKILL}),
    "p-skills-root": _plugin(skills="./"),
    "p-agents-file": _plugin(agents=["./agents/x.md"], files={"agents/x.md": SKILL}),
    "p-hooks-path": _plugin(hooks="./hooks/hooks.json", files={"hooks/hooks.json": _hooks({})}),
    "p-hooks-inline": _plugin(hooks={"Stop": [{"hooks": [CMD]}]}),
    "p-hooks-inline-skipped": _plugin(hooks={"Stopp": [{"hooks": [{"type": "shell"}]}]}),
    "p-mcp-inline": _plugin(mcpServers={"x": {"command": "a"}}),
    "p-mcp-http": _plugin(mcpServers={"x": {"type": "http", "url": "https://example.com/mcp"}}),
    "p-mcp-ws": _plugin(mcpServers={"x": {"type": "ws", "url": "wss://example.com"}}),
    "p-mcp-streamable": _plugin(mcpServers={"x": {"type": "streamable-http", "url": "https://example.com"}}),
    "p-mcp-stdio-full": _plugin(
        mcpServers={"x": {"type": "stdio", "command": "a", "args": ["b"], "env": {"A": "1"}}}
    ),
    "p-mcp-extra-keys": _plugin(mcpServers={"x": {"type": "http", "url": "https://x", "frob": 1}}),
    "p-lsp-inline": _plugin(lspServers={"x": {"command": "a", "extensionToLanguage": {".py": "python"}}}),
    "p-icon-number": _plugin(icon=5),
    "p-commands-map": _plugin(
        commands={"about": {"source": "./docs/about.md"}, "hi": {"content": "Say hi."}},
        files={"docs/about.md": "x"},
    ),
    "p-dependency-marketplace": _plugin(dependencies=["a@other", "Abc", "1a"]),
    "p-user-config": _plugin(userConfig={"k": {"type": "string", "title": "K", "description": "d"}}),
    "p-dependencies": _plugin(dependencies=["a", {"name": "b", "version": "1"}]),
    "p-experimental-evals": _plugin(experimental={"evals": "./evals/"}),
    "p-monitors-json": _plugin(
        experimental={"monitors": "./mon.json", "themes": ["./t"]}, files={"mon.json": "[]", "t/x.json": "{}"}
    ),
    "p-experimental-unknown": _plugin(experimental={"zzz": 1}),
    # plugin.json, rejected
    "p-no-name": _plugin(drop=("name",)),
    "p-name-number": _plugin(name=5),
    "p-name-empty": _plugin(name=""),
    "p-name-space": _plugin(name="Bad Name"),
    "p-version-number": _plugin(version=1),
    "p-author-string": _plugin(author="me"),
    "p-author-no-name": _plugin(author={"email": "x@y"}),
    "p-repository-object": _plugin(repository={"type": "git", "url": "https://x"}),
    "p-homepage": _plugin(homepage="not a url"),
    "p-keywords-string": _plugin(keywords="x"),
    "p-default-enabled": _plugin(defaultEnabled="yes"),
    "p-skills-objects": _plugin(skills=[{"name": "a"}]),
    "p-skills-no-dot": _plugin(skills="skills", files={"skills/a/SKILL.md": SKILL}),
    "p-skills-missing": _plugin(skills="./nope/"),
    "p-skills-dotdot": _plugin(skills="./../x"),
    "p-skills-file": _plugin(skills=["./skills/a/SKILL.md"], files={"skills/a/SKILL.md": SKILL}),
    "p-agents-dir": _plugin(agents="./agents/", files={"agents/x.md": SKILL}),
    "p-commands-missing": _plugin(commands="./cmds/"),
    "p-hooks-number": _plugin(hooks=5),
    "p-hooks-inline-guard": _plugin(hooks={"PreToolUse": [{"hooks": [{"type": "command"}]}]}),
    "p-mcp-missing-file": _plugin(mcpServers="./.mcp.json"),
    "p-mcp-no-command": _plugin(mcpServers={"x": {"foo": "a"}}),
    "p-mcp-url-no-type": _plugin(mcpServers={"x": {"url": "https://example.com"}}),
    "p-mcp-stdio-url": _plugin(mcpServers={"x": {"type": "stdio", "url": "https://example.com"}}),
    "p-mcp-unknown-type": _plugin(mcpServers={"x": {"type": "ws2", "url": "https://example.com"}}),
    "p-mcp-args-string": _plugin(mcpServers={"x": {"command": "a", "args": "b"}}),
    "p-mcp-env-number": _plugin(mcpServers={"x": {"command": "a", "env": {"A": 1}}}),
    "p-mcp-headers-number": _plugin(
        mcpServers={"x": {"type": "http", "url": "https://x", "headers": {"a": 1}}}
    ),
    "p-mcp-server-string": _plugin(mcpServers={"x": "a"}),
    "p-lsp-no-extensions": _plugin(lspServers={"x": {"command": "a"}}),
    "p-lsp-extensions-string": _plugin(lspServers={"x": {"command": "a", "extensionToLanguage": "py"}}),
    "p-lsp-missing-file": _plugin(lspServers="./.lsp.json"),
    "p-commands-map-missing": _plugin(commands={"about": {"source": "./nope.md"}}),
    "p-commands-map-empty": _plugin(commands={"about": {"description": "d"}}),
    "p-commands-map-string": _plugin(commands={"about": "x"}),
    "p-dependency-path": _plugin(dependencies=["./x"]),
    "p-dependency-scoped": _plugin(dependencies=["@x"]),
    "p-dependency-object-at": _plugin(dependencies=[{"name": "a@b"}]),
    "p-hooks-not-json": _plugin(hooks="./h.txt", files={"h.txt": "{}"}),
    "p-mcp-file-not-json": _plugin(mcpServers="./m.txt", files={"m.txt": "{}"}),
    "p-monitors-dir": _plugin(experimental={"monitors": "./mon"}, files={"mon/x.json": "{}"}),
    "p-monitors-list": _plugin(experimental={"monitors": ["./mon.json"]}, files={"mon.json": "[]"}),
    "p-user-config-type": _plugin(userConfig={"k": {"type": "weird", "title": "K", "description": "d"}}),
    "p-dependencies-string": _plugin(dependencies="a"),
    "p-experimental-missing": _plugin(experimental={"themes": "./t/"}),
    # marketplace.json, accepted
    "m-plain": _market(),
    "m-upper-name": _market(name="MyMk"),
    "m-unknown-key": _market(frob=1),
    "m-no-description": _market(drop=("description",)),
    "m-entry-unknown-key": _market([{"name": "p", "source": "./p", "frob": 1}]),
    "m-entry-version": _market([{"name": "p", "source": "./p", "version": "9.9.9"}]),
    "m-source-missing-folder": _market([{"name": "p", "source": "./nope"}]),
    "m-source-github": _market([{"name": "p", "source": {"source": "github", "repo": "a/b"}}]),
    "m-source-url": _market([{"name": "p", "source": {"source": "url", "url": "https://x/y.git"}}]),
    "m-source-npm": _market([{"name": "p", "source": {"source": "npm", "package": "x"}}]),
    "m-plugin-root": _market([{"name": "p", "source": "p"}], metadata={"pluginRoot": "./"}),
    # marketplace.json, rejected
    "m-no-name": _market(drop=("name",)),
    "m-no-owner": _market(drop=("owner",)),
    "m-owner-no-name": _market(owner={"email": "a"}),
    "m-no-plugins": _market(drop=("plugins",)),
    "m-name-space": _market(name="Bad Name"),
    "m-version-number": _market(version=1),
    "m-entry-no-source": _market([{"name": "p"}]),
    "m-entry-name-space": _market([{"name": "Bad Entry", "source": "./p"}]),
    "m-source-bare": _market([{"name": "p", "source": "p"}]),
    "m-source-https-string": _market([{"name": "p", "source": "https://github.com/a/b"}]),
    "m-source-dotdot": _market([{"name": "p", "source": "../x"}]),
    "m-source-unknown-kind": _market([{"name": "p", "source": {"source": "svn", "url": "x"}}]),
    "m-source-github-no-repo": _market([{"name": "p", "source": {"source": "github"}}]),
    "m-entry-skills-objects": _market([{"name": "p", "source": "./p", "skills": [{"name": "a"}]}]),
    "m-entry-homepage": _market([{"name": "p", "source": "./p", "homepage": "example.com"}]),
    "m-entry-homepage-url": _market([{"name": "p", "source": "./p", "homepage": "https://example.com"}]),
    "m-entry-strict-string": _market([{"name": "p", "source": "./p", "strict": "no"}]),
    "m-entry-agents-dir": _market([{"name": "p", "source": "./p", "agents": "./a/"}]),
    "m-entry-hooks-unknown": _market([{"name": "p", "source": "./p", "hooks": {"Stopp": []}}]),
    "m-name-dash": _market(name="-mk"),
    "m-entry-name-dash": _market([{"name": "-p", "source": "./p"}]),
    "m-entry-name-dots": _market([{"name": "My.Plugin_x", "source": "./p"}]),
    "m-entry-name-slash": _market([{"name": "a/b", "source": "./p"}]),
    "m-entry-skills-no-dot": _market([{"name": "p", "source": "./p", "skills": "skills"}]),
    "m-entry-commands-absolute": _market([{"name": "p", "source": "./p", "commands": "/abs"}]),
    "m-entry-skills-dotdot": _market([{"name": "p", "source": "./p", "skills": "./../x"}]),
    "m-entry-mcp-no-command": _market([{"name": "p", "source": "./p", "mcpServers": {"x": {"foo": 1}}}]),
    "m-entry-hooks-stop-broken": _market(
        [{"name": "p", "source": "./p", "hooks": {"Stop": [{"hooks": [{"type": "shell"}]}]}}]
    ),
    "m-entry-hooks-ok": _market(
        [{"name": "p", "source": "./p", "hooks": {"Stop": [{"matcher": "x", "hooks": [{**CMD, "frob": 1}]}]}}]
    ),
    "m-entry-hooks-not-json": _market([{"name": "p", "source": "./p", "hooks": "./hooks/x"}]),
    "m-entry-mcp-no-dot": _market([{"name": "p", "source": "./p", "mcpServers": "mcp.json"}]),
    "m-entry-lsp-file": _market([{"name": "p", "source": "./p", "lspServers": "./lsp.json"}]),
    "m-duplicate": _market([{"name": "p", "source": "./p"}, {"name": "p", "source": "./p"}]),
    # hooks.json, accepted (some with warnings)
    "h-plain": _hooks_file(_hooks({"Stop": [{"hooks": [CMD]}]})),
    "h-description": _hooks_file({"description": "x", "frob": 1, "hooks": {"Stop": [{"hooks": [CMD]}]}}),
    "h-unknown-event": _hooks_file(_hooks({"Stopp": [{"hooks": [CMD]}]})),
    "h-event-object": _hooks_file(_hooks({"Stop": {"hooks": [CMD]}})),
    "h-matcher-number": _hooks_file(_hooks({"PostToolUse": [{"matcher": 3, "hooks": [CMD]}]})),
    "h-no-inner": _hooks_file(_hooks({"Stop": [{"matcher": "x"}]})),
    "h-unknown-type": _hooks_file(_hooks({"Stop": [{"hooks": [{"type": "shell", "command": "x"}]}]})),
    "h-no-type": _hooks_file(_hooks({"Stop": [{"hooks": [{"command": "x"}]}]})),
    "h-no-command": _hooks_file(_hooks({"Stop": [{"hooks": [{"type": "command"}]}]})),
    "h-timeout-string": _hooks_file(_hooks({"Stop": [{"hooks": [{**CMD, "timeout": "5"}]}]})),
    "h-timeout-negative": _hooks_file(_hooks({"Stop": [{"hooks": [{**CMD, "timeout": -1}]}]})),
    "h-async-number": _hooks_file(_hooks({"Stop": [{"hooks": [{**CMD, "async": 1}]}]})),
    "h-shell-zsh": _hooks_file(_hooks({"Stop": [{"hooks": [{**CMD, "shell": "zsh"}]}]})),
    "h-hook-unknown-key": _hooks_file(_hooks({"Stop": [{"hooks": [{**CMD, "frob": 1}]}]})),
    "h-prompt-no-prompt": _hooks_file(_hooks({"Stop": [{"hooks": [{"type": "prompt"}]}]})),
    "h-http": _hooks_file(_hooks({"Stop": [{"hooks": [{"type": "http", "url": "https://x"}]}]})),
    "h-mcp-no-tool": _hooks_file(_hooks({"Stop": [{"hooks": [{"type": "mcp_tool", "server": "s"}]}]})),
    "h-unquoted-root": _hooks_file(
        _hooks({"Stop": [{"hooks": [{**CMD, "command": "${CLAUDE_PLUGIN_ROOT}/x"}]}]})
    ),
    "h-if": _hooks_file(_hooks({"PreToolUse": [{"hooks": [{**CMD, "if": "Bash(git *)"}]}]})),
    "h-top-level-stop": _hooks_file({"Stop": [{"hooks": [CMD]}], "hooks": {}}),
    # hooks.json, rejected
    "h-not-json": _hooks_file("{nope"),
    "h-array": _hooks_file([1]),
    "h-no-hooks": _hooks_file({"Stop": [{"hooks": [CMD]}]}),
    "h-hooks-array": _hooks_file({"hooks": []}),
    "h-top-level-guard": _hooks_file({"PreToolUse": [{"hooks": [CMD]}], "hooks": {}}),
    "h-guard-matcher-number": _hooks_file(_hooks({"PermissionRequest": [{"matcher": 3, "hooks": [CMD]}]})),
    "h-guard-no-command": _hooks_file(_hooks({"PreToolUse": [{"hooks": [{"type": "command"}]}]})),
    "h-guard-unknown-type": _hooks_file(_hooks({"PreToolUse": [{"hooks": [{"type": "shell"}]}]})),
    "h-guard-object": _hooks_file(_hooks({"PreToolUse": {"hooks": [CMD]}})),
    "h-guard-if-number": _hooks_file(_hooks({"PreToolUse": [{"hooks": [{**CMD, "if": 7}]}]})),
    "h-guard-mcp-input-list": _hooks_file(
        _hooks({"PreToolUse": [{"hooks": [{"type": "mcp_tool", "server": "s", "tool": "t", "input": [1]}]}]})
    ),
    "h-guard-http-not-url": _hooks_file(_hooks({"PreToolUse": [{"hooks": [{"type": "http", "url": "x"}]}]})),
    "h-guard-other-types-option": _hooks_file(
        _hooks({"PreToolUse": [{"hooks": [{"type": "prompt", "prompt": "p", "asyncRewake": "x", "url": 3}]}]})
    ),
    "h-guard-inner-object": _hooks_file(_hooks({"PreToolUse": [{"hooks": CMD}]})),
}


def _write(root: Path, variant: Variant) -> Path:
    folder = root / "v"
    for rel, content in variant.files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    (folder / ".git").mkdir()  # a checkout: evalens judges component paths only there (whole_checkout)
    return folder


ORACLE_CACHE = os.environ.get(
    "EVALENS_ORACLE_CACHE", str(Path.home() / ".cache" / "evalens-tests" / "oracle")
)
"""Where the CLI's reports are kept, by what decides them (``off``: never kept). See :func:`validate_report`."""
_FOLDER = "<folder>"


def _cli_identity(cli: Path) -> str:
    real = Path(os.path.realpath(cli))
    stat = real.stat()
    return f"{real}:{stat.st_size}:{stat.st_mtime_ns}"


def _inputs_key(cli: Path, target: Path, folder: Path) -> str:
    """A digest of everything `claude plugin validate` reads: the CLI binary (its path, size and modification
    time: a reinstall changes it), the target's place in the folder, and every entry under the folder (names,
    kinds and bytes)."""
    digest = hashlib.sha256(_cli_identity(cli).encode())
    digest.update(str(target.relative_to(folder)).encode())
    for path in sorted(folder.rglob("*")):
        digest.update(b"\0" + str(path.relative_to(folder)).encode())
        if path.is_symlink():
            digest.update(b"L" + os.readlink(path).encode())
        elif path.is_file():
            digest.update(b"F" + path.read_bytes())
        else:
            digest.update(b"D")
    return digest.hexdigest()


def validate_report(cli: Path, target: Path, folder: Path, home: Path) -> dict[str, Any]:
    """`claude plugin validate --json target`, the CLI's own report. The CLI is deterministic in what it reads,
    so its report is kept under :data:`ORACLE_CACHE` by a digest of all of it (:func:`_inputs_key`) and read back
    for the same inputs: a run on the same machine asks the CLI only about what changed (a new variant, a corpus
    file, another CLI), and a different binary or byte asks it again. The folder's path is kept as a placeholder,
    so a report made for one temporary folder reads true for the next."""
    cache = None if ORACLE_CACHE == "off" else Path(ORACLE_CACHE) / f"{_inputs_key(cli, target, folder)}.json"
    if cache is not None and cache.is_file():
        return json.loads(cache.read_text(encoding="utf-8").replace(_FOLDER, json.dumps(str(folder))[1:-1]))
    proc = subprocess.run(
        [str(cli), "plugin", "validate", "--json", str(target)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(home), "NO_COLOR": "1"},
        check=False,
    )
    report = json.loads(proc.stdout)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        kept = proc.stdout.replace(json.dumps(str(folder))[1:-1], _FOLDER)
        partial = cache.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(kept, encoding="utf-8")
        partial.replace(cache)  # atomic: two workers asking the same question never read half an answer
    return report


def cli_errors(cli: Path, folder: Path, kind: str, home: Path) -> list[str]:
    """The CLI's errors about one file of ``kind``, read from `claude plugin validate --json`."""
    # the manifest file itself: given a folder that also holds a marketplace.json, the CLI checks the marketplace;
    # a plugin.json's report also holds the plugin's contents (hooks.json)
    target = folder / ".claude-plugin" / ("marketplace.json" if kind == "marketplace.json" else "plugin.json")
    report = validate_report(cli, target, folder, home)
    if kind == "hooks.json":
        return [
            f"{e['path']}: {e['message']}"
            for c in report.get("contents") or []
            if Path(c["file"]).name == "hooks.json"
            for e in c["errors"]
        ]
    return [f"{e['path']}: {e['message']}" for e in (report.get("manifest") or {}).get("errors", [])]


def evalens_errors(path: Path) -> list[str]:
    v = validate_text(str(path), path.read_text(encoding="utf-8"), IndexCache())
    return [f"{p.code}: {p.message}" for p in v.problems if p.severity == Severity.ERROR]


def _verdicts(cli: Path, tmp_path: Path) -> dict[str, tuple[list[str], list[str]]]:
    """Per variant: (the CLI's errors, evalens's errors)."""

    def one(name: str) -> tuple[str, tuple[list[str], list[str]]]:
        variant = VARIANTS[name]
        folder = _write(tmp_path / name, variant)
        return name, (
            cli_errors(cli, folder, variant.kind, tmp_path / "home"),
            evalens_errors(folder / variant.target),
        )

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, VARIANTS))


@needs_cli
@pytest.mark.parametrize("cli", CLIS, ids=[str(c) for c in CLIS])
def test_errors_agree_with_claude_plugin_validate(tmp_path: Path, cli: Path) -> None:
    """An error from evalens exactly where the CLI fails the file; where it passes (or only warns), none."""
    found = _verdicts(cli, tmp_path)
    disagree = [
        f"{name} ({VARIANTS[name].kind}): claude {theirs or 'no error'}; evalens {ours or 'no error'}"
        for name, (theirs, ours) in found.items()
        if bool(theirs) != bool(ours)
    ]
    assert not disagree, "\n".join(disagree)
    for kind in ("plugin.json", "marketplace.json", "hooks.json"):
        verdicts = {bool(theirs) for name, (theirs, _) in found.items() if VARIANTS[name].kind == kind}
        assert verdicts == {True, False}, f"the {kind} variants must hold both verdicts, got {verdicts}"


def _corpus_files() -> list[Path]:
    roots = [
        *sorted(p.parent for p in (REPO / "tests" / "corpus").glob("*/VERDICTS.tsv")),
        CORPUS / "realworld",
    ]
    out: list[Path] = []
    for root in roots:
        if root.is_dir():
            out += sorted(root.glob("**/.claude-plugin/plugin.json")) + sorted(
                root.glob("**/.claude-plugin/marketplace.json")
            )
            out += [
                p
                for p in sorted(root.glob("**/hooks/hooks.json"))
                if (p.parent.parent / ".claude-plugin").is_dir()
            ]
    return out


MISSING_PATH = ("Path not found", "Path is a file")
"""The CLI's words for a component path that does not resolve in the folder as it is."""


@needs_cli
def test_corpus_errors_agree_with_claude_plugin_validate(tmp_path: Path) -> None:
    """The reviewed corpora's plugin files: evalens errs where the CLI does, except on a component path the
    trimmed copy lacks (no git checkout), and nowhere else."""
    files = _corpus_files()
    if not files:
        pytest.skip("no corpus with plugin files")

    def one(path: Path) -> tuple[Path, list[str], list[str]]:
        kind = path.name
        folder = path.parent.parent
        theirs = cli_errors(CLIS[0], folder, kind, tmp_path / "home")
        return path, theirs, evalens_errors(path)

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(one, files))
    disagree = []
    for path, theirs, ours in results:
        real = [e for e in theirs if not any(w in e for w in MISSING_PATH) and "plugin.json →" not in e]
        if bool(real) != bool(ours):
            disagree.append(f"{path}: claude {theirs or 'no error'}; evalens {ours or 'no error'}")
    assert not disagree, "\n".join(disagree)
    assert any(theirs for _, theirs, _ in results), "the CLI failed no corpus file: its output was not read"


SWEEP_HOOKS = {
    "command": {"type": "command", "command": "x"},
    "prompt": {"type": "prompt", "prompt": "x"},
    "agent": {"type": "agent", "prompt": "x"},
    "http": {"type": "http", "url": "https://example.com"},
    "mcp_tool": {"type": "mcp_tool", "server": "s", "tool": "t"},
}
SWEEP_VALUES: tuple[Any, ...] = ("x", ["x"], {}, 3, -1, 0, True)


@needs_cli
@pytest.mark.parametrize("event", ["Stop", "PreToolUse"])
def test_hook_option_sweep_agrees_in_severity(tmp_path: Path, event: str) -> None:
    """Every hook option of every type (its own and the others') over seven value shapes, one matcher each, in
    one hooks.json: evalens says what the CLI says of each matcher, at the same severity (a warning under `Stop`,
    an error under `PreToolUse`, nothing where the CLI says nothing)."""
    options = sorted({f.alias or n for n, f in cp.HookCommand.model_fields.items()} - {"type"})
    entries = [
        {"hooks": [{**hook, option: value}]}
        for hook in SWEEP_HOOKS.values()
        for option in options
        for value in SWEEP_VALUES
    ]
    text = json.dumps({"hooks": {event: entries}}, indent=1)
    folder = _write(tmp_path, _hooks_file(text))
    report = validate_report(CLIS[0], folder / ".claude-plugin" / "plugin.json", folder, tmp_path / "home")
    theirs: dict[int, str] = {}
    for content in report.get("contents") or []:
        for level in ("errors", "warnings"):
            for e in content[level]:
                if m := re.match(rf"hooks\.{event}\.(\d+)", e["message"]):
                    theirs[int(m.group(1))] = level[:-1]
    path = folder / "hooks" / "hooks.json"
    v = validate_text(str(path), text, IndexCache())
    doc = parse(text, "json")
    starts = [doc.node_at_path(("hooks", event, i)).span for i in range(len(entries))]  # type: ignore[union-attr]
    ours: dict[int, str] = {}
    for p in v.problems:
        for line in (p.span.start_line, *(r["span"][0] for r in related_of(p))):
            hit = next((i for i, s in enumerate(starts) if s.start_line <= line <= s.end_line), None)
            if hit is not None:
                ours[hit] = p.severity.name.lower()
    assert theirs, "the CLI reported no hook entry: its output was not read"
    labels = [f"{t}.{o}={json.dumps(v)}" for t in SWEEP_HOOKS for o in options for v in SWEEP_VALUES]
    disagree = [
        f"{labels[i]}: claude {theirs.get(i)}, evalens {ours.get(i)}"
        for i in range(len(entries))
        if theirs.get(i) != ours.get(i)
    ]
    assert not disagree, "\n".join(disagree)


def test_a_kept_report_is_asked_again_for_any_other_byte_or_binary(tmp_path: Path) -> None:
    """The oracle's kept reports (:func:`validate_report`) stand only for the very inputs they were made of."""
    cli = tmp_path / "claude"
    cli.write_text("#!/bin/sh\n")
    folder = _write(tmp_path / "p", _plugin())
    target = folder / ".claude-plugin" / "plugin.json"
    first = _inputs_key(cli, target, folder)
    assert _inputs_key(cli, target, folder) == first
    (folder / "skills").mkdir()
    assert _inputs_key(cli, target, folder) != first  # a new entry, even an empty folder
    (folder / "skills").rmdir()
    target.write_text(target.read_text().replace('"p"', '"q"'))
    assert _inputs_key(cli, target, folder) != first
    target.write_text(target.read_text().replace('"q"', '"p"'))
    assert _inputs_key(cli, target, folder) == first
    os.utime(cli, ns=(1, 1))  # another binary at the same path (a reinstall)
    assert _inputs_key(cli, target, folder) != first
