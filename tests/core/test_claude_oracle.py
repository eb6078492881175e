"""`claude plugin validate` as the oracle for SKILL.md under the Claude Code profile (issue #39).

evalens reports an error where the real CLI rejects a skill, and no error where it accepts it. The CLI pinned by
``.ci/install-agents.sh`` lives in ``.tools/node``; ``EVALENS_CLAUDE_NEWEST`` may name a second one (the newest
release, installed beside it) so the same variants are checked against both. Each variant is one skill in one
generated plugin; the CLI's text output ("Validating skill: …", "✘ Found N error", "❯ key: message") is read
per skill, never its binary.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from evalens.core.index import IndexCache
from evalens.core.problems import Severity
from evalens.core.validate import validate_text
from tests.conftest import REPO

# The CLI tier: it drives the installed CLI (its own validator, as the oracle), which the fast tier never
# needs; without the CLI it skips (docs/CONTRIBUTING.md, the tiers).
pytestmark = pytest.mark.agents

PINNED = REPO / ".tools" / "node" / "node_modules" / ".bin" / "claude"
CLIS = [p for p in (PINNED, Path(os.environ.get("EVALENS_CLAUDE_NEWEST", "/nonexistent"))) if p.is_file()]

LONG = "x" * 1400
VARIANTS: dict[str, str] = {
    # accepted by Claude Code: the documented keys, its boolean spellings, what it ignores
    "plain": "name: plain\ndescription: Reads PDFs.\n",
    "no-name": "description: Reads PDFs.\n",
    "keys": (
        "name: keys\ndescription: d\nwhen_to_use: when x\narguments: [a, b]\ndisallowed-tools: Bash\n"
        "effort: high\nbackground: false\npaths: 'src/**'\nshell: powershell\ncontext: inline\n"
    ),
    "bool-words": "name: bool-words\ndescription: d\ndisable-model-invocation: on\nuser-invocable: 'no'\nbackground: 1\n",
    "bool-odd": "name: bool-odd\ndescription: d\ndisable-model-invocation: maybe\n",
    "context-odd": "name: context-odd\ndescription: d\ncontext: spawn\n",
    "effort-odd": "name: effort-odd\ndescription: d\neffort: extreme\n",
    "paths-number": "name: paths-number\ndescription: d\npaths: 7\n",
    "when-list": "name: when-list\ndescription: d\nwhen_to_use: [a]\n",
    "disallowed-number": "name: disallowed-number\ndescription: d\ndisallowed-tools: 7\n",
    "upper-name": "name: Upper Name\ndescription: d\nversion: 1\nauthor: me\n",
    "other-name": "name: not-the-folder\ndescription: d\n",
    "empty-description": "name: empty-description\ndescription: ''\n",
    "no-description": "name: no-description\n",
    "metadata-string": "name: metadata-string\ndescription: d\nmetadata: nope\n",
    "license-list": "name: license-list\ndescription: d\nlicense: [a]\n",
    "compatibility-number": "name: compatibility-number\ndescription: d\ncompatibility: 7\n",
    "long-listing": f"name: long-listing\ndescription: {LONG}\nwhen_to_use: {'y' * 300}\n",
    "long-description": f"name: long-description\ndescription: {'z' * 1100}\n",
    "tools-list": "name: tools-list\ndescription: d\nallowed-tools: [Read, Bash]\n",
    # rejected by Claude Code
    "name-number": "name: 42\ndescription: d\n",
    "description-list": "name: description-list\ndescription: [a, b]\n",
    "allowed-number": "name: allowed-number\ndescription: d\nallowed-tools: 7\n",
    "shell-zsh": "name: shell-zsh\ndescription: d\nshell: zsh\n",
}


def _plugin(root: Path) -> Path:
    plugin = root / "p"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(
        '{"name": "p", "version": "1.0.0", "description": "d", "author": {"name": "a"}}', encoding="utf-8"
    )
    for folder, frontmatter in VARIANTS.items():
        md = plugin / "skills" / folder / "SKILL.md"
        md.parent.mkdir(parents=True)
        md.write_text(f"---\n{frontmatter}---\nBody.\n", encoding="utf-8")
    return plugin


_SKILL = re.compile(r"^Validating skill: (?P<path>.+/SKILL\.md)$")
_SECTION = re.compile(r"^\s*(?P<mark>[✘⚠]) Found \d+ (?P<kind>error|warning)")
_ITEM = re.compile(r"^\s*❯ (?P<text>.+)$")


def cli_verdicts(cli: Path, plugin: Path, home: Path) -> dict[str, dict[str, list[str]]]:
    """Per skill folder, the CLI's errors and warnings, read from its text output."""
    proc = subprocess.run(
        [str(cli), "plugin", "validate", str(plugin)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(home), "NO_COLOR": "1"},
        check=False,
    )
    out: dict[str, dict[str, list[str]]] = {f: {"error": [], "warning": []} for f in VARIANTS}
    skill: str | None = None
    kind: str | None = None
    for line in (proc.stdout + "\n" + proc.stderr).splitlines():
        if m := _SKILL.match(line.strip()):
            skill, kind = Path(m["path"]).parent.name, None
        elif line.startswith("Validating") or line.startswith("Plugin directory checks"):
            skill, kind = None, None
        elif m := _SECTION.match(line):
            kind = m["kind"]
        elif (m := _ITEM.match(line)) and skill in out and kind:
            out[skill][kind].append(m["text"])
    return out


@pytest.mark.skipif(not CLIS, reason="claude CLI not installed (.ci/install-agents.sh installs it)")
@pytest.mark.parametrize("cli", CLIS, ids=[str(c) for c in CLIS])
def test_errors_agree_with_claude_plugin_validate(tmp_path: Path, cli: Path) -> None:
    """An error from evalens exactly where the CLI reports one; where it only warns or says nothing, evalens
    says at most a warning."""
    plugin = _plugin(tmp_path)
    found = cli_verdicts(cli, plugin, tmp_path / "home")
    assert found["shell-zsh"]["error"], "the CLI's output was not read (format changed?)"
    disagree = []
    for folder in VARIANTS:
        md = plugin / "skills" / folder / "SKILL.md"
        v = validate_text(str(md), md.read_text(encoding="utf-8"), IndexCache())
        ours = [p for p in v.problems if p.severity == Severity.ERROR]
        if bool(ours) != bool(found[folder]["error"]):
            disagree.append(
                f"{folder}: claude {found[folder]['error'] or 'no error'}; evalens "
                f"{[(p.code, p.message) for p in ours] or 'no error'}"
            )
    assert not disagree, "\n".join(disagree)


@pytest.mark.skipif(not CLIS, reason="claude CLI not installed (.ci/install-agents.sh installs it)")
def test_variants_cover_both_verdicts(tmp_path: Path) -> None:
    """The oracle set keeps variants the CLI rejects and ones it accepts, so agreement means something."""
    found = cli_verdicts(CLIS[0], _plugin(tmp_path), tmp_path / "home")
    rejected = {f for f, v in found.items() if v["error"]}
    assert rejected and rejected != set(VARIANTS)
