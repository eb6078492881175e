"""Platform currency (issue #39, item 5): the keys evalens knows against the keys the installed `claude` CLI knows.

What the CLI knows is read from `claude plugin validate --json` on generated files, never from its binary. A
plugin.json, a marketplace (top level, `metadata`, an entry) and a hooks file are written with every candidate
name at once, each set to a value no field takes (`7`): the CLI names each name it does not know ("Unknown field
'x'", "unknown hook event", "Unknown hook type"), so every other candidate is one it knows. The candidates are the
names any evalens model knows (for any file kind: a plugin key may move into a marketplace entry), the names the
reviewed corpora's own plugin files use (what authors write after reading newer docs), neighbours of known hook
events (`PreX` ↔ `PostX`, `…Start` ↔ `…End`), and every name the CLI's "did you mean" offers. SKILL.md
frontmatter is read the other way round, since the CLI never reports an unknown frontmatter key: each candidate
gets three wrong values, and a key the CLI says anything about is one it knows.

When a newer CLI knows a name evalens does not (or drops one evalens still knows), the test fails naming it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from evalens.core.models import claude_plugin as cp
from evalens.core.models import codex_meta, plugin_eval
from evalens.core.models import skill_md as sm
from tests.conftest import CORPUS, REPO
from tests.core.test_claude_plugin_oracle import CLIS

# The CLI tier: it drives the installed CLI (its own validator, as the oracle), which the fast tier never
# needs; without the CLI it skips (docs/CONTRIBUTING.md, the tiers).
pytestmark = pytest.mark.agents

needs_cli = pytest.mark.skipif(
    not CLIS, reason="claude CLI not installed (.ci/install-agents.sh installs it)"
)
PROBE = 7
_UNKNOWN_FIELD = re.compile(r"Unknown field '([^']+)'")
_DID_YOU_MEAN = re.compile(r"did you mean '([^']+)'")
_UNKNOWN_EVENT = re.compile(r"hooks\.([^:.]+): unknown hook event")
_UNKNOWN_TYPE = re.compile(r'Unknown hook type "([^"]+)"')
_IGNORED_HERE = ("belongs in the marketplace entry", "is no longer read")


def keys_of(model: type[BaseModel]) -> set[str]:
    """A model's keys as they are written in the file (aliases included)."""
    return {f.alias or name for name, f in model.model_fields.items()}


def _all_model_keys() -> set[str]:
    models: list[type[BaseModel]] = [
        cp.PluginManifest,
        cp.MarketplaceEntry,
        cp.Marketplace,
        cp.MarketplaceMetadata,
        cp.Owner,
        cp.Author,
        cp.Experimental,
        cp.HooksFile,
        codex_meta.PluginManifest,
        codex_meta.PluginInterface,
        codex_meta.SkillMetadata,
        sm.SkillFrontmatter,
        plugin_eval.PromptFrontmatter,
        plugin_eval.CaseYaml,
    ]
    return set().union(*(keys_of(m) for m in models))


def _corpus_keys() -> tuple[set[str], set[str]]:
    """(manifest keys, hook event names) the corpora's plugin files use."""
    keys: set[str] = set()
    events: set[str] = set()
    for root in (
        REPO / "tests" / "corpus" / "field",
        REPO / "tests" / "corpus" / "realworld",
        CORPUS / "realworld",
    ):
        for path in [*root.glob("**/.claude-plugin/*.json"), *root.glob("**/hooks/hooks.json")]:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if not isinstance(data, dict):
                continue
            if path.name == "hooks.json":
                events |= set(data.get("hooks") or {}) if isinstance(data.get("hooks"), dict) else set()
                continue
            keys |= set(data)
            for entry in data.get("plugins") or []:
                keys |= set(entry) if isinstance(entry, dict) else set()
    return keys, events


def _neighbours(events: set[str]) -> set[str]:
    pairs = (
        ("Pre", "Post"),
        ("Start", "End"),
        ("Start", "Stop"),
        ("Create", "Remove"),
        ("Created", "Completed"),
    )
    out = set()
    for event in events:
        for a, b in pairs:
            out |= {event.replace(a, b), event.replace(b, a)}
    return out - events


def _validate(cli: Path, target: Path, home: Path) -> dict[str, Any]:
    proc = subprocess.run(
        [str(cli), "plugin", "validate", "--json", str(target)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(home), "NO_COLOR": "1"},
        check=False,
    )
    return json.loads(proc.stdout)


def _messages(report: dict[str, Any], only: str = "") -> list[tuple[str, str]]:
    """(path, message) of every error and warning in a report, the manifest's and its contents' (``only``: of
    the contents whose file name is that)."""
    parts = [report.get("manifest") or {}, *(report.get("contents") or [])]
    if only:
        parts = [c for c in report.get("contents") or [] if Path(c["file"]).name == only]
    return [
        (str(e["path"]), e["message"])
        for part in parts
        for k in ("errors", "warnings")
        for e in part.get(k, [])
    ]


def _unknown(messages: list[tuple[str, str]], prefix: str) -> tuple[set[str], set[str]]:
    """Names reported as unknown directly under ``prefix`` (`` `` for the top level), and did-you-mean names.
    A name the CLI says it ignores here ("belongs in the marketplace entry", "is no longer read") is unknown here."""
    unknown, offered = set(), set()
    for path, message in messages:
        if (m := _UNKNOWN_FIELD.search(message)) and path == prefix + m.group(1):
            unknown.add(m.group(1))
        elif path.startswith(prefix) and any(w in message for w in _IGNORED_HERE):
            unknown.add(path[len(prefix) :])
        if (
            (m := _DID_YOU_MEAN.search(message))
            and path.startswith(prefix)
            and "." not in path[len(prefix) :]
        ):
            offered.add(m.group(1))
    return unknown, offered


def _known_by_cli(candidates: set[str], unknown: set[str], offered: set[str]) -> set[str]:
    return (candidates - unknown) | offered


def _report(what: str, cli_knows: set[str], ours: set[str]) -> list[str]:
    out = []
    if new := sorted(cli_knows - ours):
        out.append(f"{what}: the installed claude knows {new}, which evalens does not")
    if gone := sorted(ours - cli_knows):
        out.append(f"{what}: evalens knows {gone}, which the installed claude calls unknown")
    return out


def _write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@needs_cli
@pytest.mark.parametrize("cli", CLIS, ids=[str(c) for c in CLIS])
def test_manifest_keys_match_the_installed_cli(tmp_path: Path, cli: Path) -> None:
    """plugin.json, marketplace.json (top level, `metadata`, an entry): the names each knows, both ways."""
    corpus_keys, _ = _corpus_keys()
    candidates = {k for k in _all_model_keys() | corpus_keys if not k.startswith("$")}
    home = tmp_path / "home"
    problems: list[str] = []

    # plugin.json: every candidate but `name` set to a value no field takes
    manifest = {"name": "p", **{k: PROBE for k in sorted(candidates - {"name"})}}
    plugin = _write(tmp_path / "p" / ".claude-plugin" / "plugin.json", manifest)
    unknown, offered = _unknown(_messages(_validate(cli, plugin, home)), "")
    assert unknown, "the CLI reported no unknown field: its output was not read"
    ours = keys_of(cp.PluginManifest)
    problems += _report("plugin.json", _known_by_cli(candidates, unknown, offered), ours)

    # marketplace.json: the top level, `metadata`, and one entry
    entry = {"name": "p", "source": "./p", **{k: PROBE for k in sorted(candidates - {"name", "source"})}}
    top = {k: PROBE for k in sorted(candidates - {"name", "owner", "plugins", "metadata"})}
    metadata = {k: PROBE for k in sorted(candidates)}
    market = {"name": "m", "owner": {"name": "o"}, "plugins": [entry], "metadata": metadata, **top}
    report = _validate(cli, _write(tmp_path / "m" / ".claude-plugin" / "marketplace.json", market), home)
    messages = _messages(report)
    for what, prefix, model in (
        ("marketplace.json", "", cp.Marketplace),
        ("marketplace.json metadata", "metadata.", cp.MarketplaceMetadata),
        ("marketplace.json plugins[]", "plugins[0].", cp.MarketplaceEntry),
    ):
        unknown, offered = _unknown(messages, prefix)
        assert unknown, f"{what}: the CLI reported no unknown field"
        problems += _report(what, _known_by_cli(candidates, unknown, offered), keys_of(model))
    assert not problems, "\n".join(problems)


@needs_cli
@pytest.mark.parametrize("cli", CLIS, ids=[str(c) for c in CLIS])
def test_hook_events_and_types_match_the_installed_cli(tmp_path: Path, cli: Path) -> None:
    """hooks.json: every candidate event with one valid hook, every candidate type under `Stop`."""
    _, corpus_events = _corpus_keys()
    ours = set(cp.HOOK_EVENTS)
    candidates = ours | corpus_events | _neighbours(ours)
    cmd = {"type": "command", "command": "true"}
    types = set(cp.HOOK_TYPES) | {"shell", "script", "webhook", "mcp", "tool", "subagent", "llm", "function"}
    hooks = {e: [{"hooks": [cmd]}] for e in sorted(candidates)}
    hooks["Stop"] = [{"hooks": [{"type": t, "command": "true"} for t in sorted(types)]}]
    root = tmp_path / "p"
    _write(root / ".claude-plugin" / "plugin.json", {"name": "p", "version": "1.0.0", "description": "d"})
    _write(root / "hooks" / "hooks.json", {"hooks": hooks})
    messages = _messages(_validate(cli, root / ".claude-plugin" / "plugin.json", tmp_path / "home"))
    unknown_events = {m.group(1) for _, msg in messages if (m := _UNKNOWN_EVENT.search(msg))}
    unknown_types = {m.group(1) for _, msg in messages if (m := _UNKNOWN_TYPE.search(msg))}
    assert unknown_events and unknown_types, (
        "the CLI reported no unknown event or type: its output was not read"
    )
    problems = _report("hook events", candidates - unknown_events, ours)
    problems += _report("hook types", types - unknown_types, set(cp.HOOK_TYPES))
    assert not problems, "\n".join(problems)


_HOOK_OPTION = re.compile(r"Invalid [\w_]+ hook \((.*)\); entry ignored")


def _corpus_hook_keys() -> set[str]:
    keys: set[str] = set()
    for root in (
        REPO / "tests" / "corpus" / "field",
        REPO / "tests" / "corpus" / "realworld",
        CORPUS / "realworld",
    ):
        for path in root.glob("**/hooks/hooks.json"):
            try:
                events = json.loads(path.read_text(encoding="utf-8")).get("hooks") or {}
            except (OSError, ValueError, AttributeError):
                continue
            for matchers in events.values() if isinstance(events, dict) else ():
                for matcher in matchers if isinstance(matchers, list) else ():
                    for hook in (matcher.get("hooks") or []) if isinstance(matcher, dict) else ():
                        keys |= set(hook) if isinstance(hook, dict) else set()
    return keys


@needs_cli
@pytest.mark.parametrize("cli", CLIS, ids=[str(c) for c in CLIS])
def test_hook_options_the_cli_checks_are_known(tmp_path: Path, cli: Path) -> None:
    """A hook of each type with every candidate option set to `7`: each option the CLI names in its "Invalid
    <type> hook (option: …)" warning is one evalens knows. (The CLI never reports an unknown hook option, so this
    reads only one way.)"""
    candidates = _all_model_keys() | keys_of(cp.HookCommand) | _corpus_hook_keys() | _HOOK_NEIGHBOURS
    hooks = [{"type": t, **{k: PROBE for k in sorted(candidates - {"type"})}} for t in cp.HOOK_TYPES]
    root = tmp_path / "p"
    _write(root / ".claude-plugin" / "plugin.json", {"name": "p", "version": "1.0.0", "description": "d"})
    _write(root / "hooks" / "hooks.json", {"hooks": {"Stop": [{"hooks": [h]} for h in hooks]}})
    messages = _messages(
        _validate(cli, root / ".claude-plugin" / "plugin.json", tmp_path / "home"), "hooks.json"
    )
    named = {
        part.split(":")[0].strip()
        for _, msg in messages
        if (m := _HOOK_OPTION.search(msg))
        for part in m.group(1).split(";")
    }
    assert named, "the CLI named no hook option: its output was not read"
    unknown = sorted(named - keys_of(cp.HookCommand))
    assert not unknown, (
        f"hooks: the installed claude checks the options {unknown}, which evalens does not know"
    )


_HOOK_NEIGHBOURS = {"if", "when", "unless", "input", "arguments", "env", "cwd", "method", "body", "retries"}
"""Names a hook option could plausibly have that no model holds: conditions, a tool's input, a request's parts."""

_SKILL_VALUES = ("{probe: [1]}", "7", "zz-probe")


@needs_cli
@pytest.mark.parametrize("cli", CLIS, ids=[str(c) for c in CLIS])
def test_frontmatter_keys_the_cli_checks_are_known(tmp_path: Path, cli: Path) -> None:
    """SKILL.md: a key the CLI says anything about (given a wrong value) is one evalens knows."""
    ours = set(sm.AGENTSKILLS_KEYS) | set(sm.CLAUDE_CODE_KEYS) | keys_of(sm.SkillFrontmatter)
    candidates = _all_model_keys() | ours
    root = tmp_path / "p"
    _write(root / ".claude-plugin" / "plugin.json", {"name": "p", "version": "1.0.0", "description": "d"})
    for i, value in enumerate(_SKILL_VALUES):
        lines = "".join(f"{k}: {value}\n" for k in sorted(candidates) if k not in ("name", "description"))
        md = root / "skills" / f"s{i}" / "SKILL.md"
        md.parent.mkdir(parents=True)
        md.write_text(f"---\nname: s{i}\ndescription: d\n{lines}---\nBody.\n", encoding="utf-8")
    messages = _messages(
        _validate(cli, root / ".claude-plugin" / "plugin.json", tmp_path / "home"), "SKILL.md"
    )
    checked = {path.split(".")[0] for path, _ in messages} & candidates
    assert checked, "the CLI said nothing about any frontmatter key: its output was not read"
    assert not checked - ours, (
        f"SKILL.md: the installed claude checks {sorted(checked - ours)}, which evalens does not know"
    )
