"""Codex as the oracle for a skill's `agents/openai.yaml` (issue #39, item 3).

Codex has no validator and never refuses the file, so evalens never errs on it; what it owes is a warning exactly
where Codex drops something. Codex's reading is observed, not assumed: every variant is one skill of one generated
repository, `codex app-server` answers `skills/list` for it (offline, a scratch `CODEX_HOME`), and a variant counts
as dropped when a value it sets is missing from the skill's `interface` or `dependencies` in that answer. Each
variant sets `interface.display_name` as a witness, so a file Codex ignored as a whole shows too (`policy` itself is
not in the answer). The binary is the one ``.ci/install-agents.sh`` puts in ``.tools/node``.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalens.core.index import IndexCache
from evalens.core.problems import Severity
from evalens.core.validate import validate_text
from tests.conftest import REPO

# The CLI tier: it drives the installed CLI (its own validator, as the oracle), which the fast tier never
# needs; without the CLI it skips (docs/CONTRIBUTING.md, the tiers).
pytestmark = pytest.mark.agents

CODEX = REPO / ".tools" / "node" / "node_modules" / ".bin" / "codex"
needs_codex = pytest.mark.skipif(
    not CODEX.is_file(), reason="codex CLI not installed (.ci/install-agents.sh)"
)

WITNESS = "  display_name: D\n"
VARIANTS: dict[str, str] = {
    # read as written
    "plain": "interface:\n"
    + WITNESS
    + "  short_description: S\n  brand_color: '#112233'\n  default_prompt: P\n",
    "icons": "interface:\n" + WITNESS + "  icon_small: ./assets/s.png\n  icon_large: assets/sub/l.png\n",
    "number-as-text": "interface:\n  display_name: 5\n  short_description: true\n",
    "unknown-keys": "interface:\n" + WITNESS + "  frob: 1\nfrob: 2\n",
    "dependency": "interface:\n"
    + WITNESS
    + "dependencies:\n  tools:\n    - {type: mcp, value: srv, transport: stdio}\n",
    "policy": "interface:\n" + WITNESS + "policy:\n  allow_implicit_invocation: false\n  products: [codex]\n",
    "limits-exact": f"interface:\n  display_name: {'n' * 64}\n  short_description: {'s' * 1024}\n",
    # a value dropped
    "long-name": f"interface:\n  display_name: {'n' * 65}\n  short_description: S\n",
    "long-short": "interface:\n" + WITNESS + f"  short_description: {'s' * 1025}\n",
    "long-prompt": "interface:\n" + WITNESS + f"  default_prompt: {'p' * 1025}\n",
    "colour-word": "interface:\n" + WITNESS + "  brand_color: blue\n",
    "colour-short": "interface:\n" + WITNESS + "  brand_color: '#abc'\n",
    "icon-outside-assets": "interface:\n" + WITNESS + "  icon_small: ./x.png\n",
    "icon-absolute": "interface:\n" + WITNESS + "  icon_large: /etc/x.png\n",
    "icon-parent": "interface:\n" + WITNESS + "  icon_small: ../x.png\n",
    "dependency-no-value": "interface:\n"
    + WITNESS
    + "dependencies:\n  tools:\n    - {type: mcp, value: a}\n    - {type: mcp}\n",
    "dependency-long-type": "interface:\n"
    + WITNESS
    + f"dependencies:\n  tools:\n    - {{type: {'t' * 65}, value: v}}\n",
    # the whole file ignored
    "name-list": "interface:\n  display_name: [a]\n  short_description: S\n",
    "policy-number": "interface:\n" + WITNESS + "policy:\n  allow_implicit_invocation: 1\n",
    "products-string": "interface:\n" + WITNESS + "policy:\n  products: codex\n",
    "tools-number": "interface:\n" + WITNESS + "dependencies:\n  tools: 5\n",
}

_CAMEL = {
    "display_name": "displayName",
    "short_description": "shortDescription",
    "icon_small": "iconSmall",
    "icon_large": "iconLarge",
    "brand_color": "brandColor",
    "default_prompt": "defaultPrompt",
}


def _write(root: Path) -> Path:
    project = root / "repo"
    (project / ".git").mkdir(parents=True)
    for name, text in VARIANTS.items():
        skill = project / ".agents" / "skills" / name
        (skill / "agents").mkdir(parents=True)
        (skill / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\nBody.\n", encoding="utf-8")
        (skill / "agents" / "openai.yaml").write_text(text, encoding="utf-8")
    return project


def skills_list(project: Path, home: Path) -> dict[str, dict[str, Any]]:
    """The `skills/list` answer of `codex app-server` for ``project``, by skill name."""
    (home / ".codex").mkdir(parents=True)
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"clientInfo": {"name": "t", "version": "1"}},
        },
        {"jsonrpc": "2.0", "method": "initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "skills/list", "params": {"cwds": [str(project)]}},
    ]
    env = {**os.environ, "HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    with subprocess.Popen(
        [str(CODEX), "app-server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=project,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
        proc.stdin.flush()
        try:
            for line in proc.stdout:
                message = json.loads(line)
                if message.get("id") == 2:
                    skills = message["result"]["data"][0]["skills"]
                    return {s["name"]: s for s in skills}
        finally:
            proc.kill()
    raise AssertionError("codex app-server gave no skills/list answer")


def dropped(text: str, skill: dict[str, Any]) -> bool:
    """Whether Codex's answer lacks a value the file sets (an interface value, or a listed dependency)."""
    data = yaml.safe_load(text)
    shown = skill.get("interface") or {}
    for key, value in (data.get("interface") or {}).items():
        if key in _CAMEL and value is not None and shown.get(_CAMEL[key]) is None:
            return True
    tools = (
        ((data.get("dependencies") or {}).get("tools"))
        if isinstance(data.get("dependencies"), dict)
        else None
    )
    if tools is not None:
        listed = ((skill.get("dependencies") or {}).get("tools")) or []
        return not isinstance(tools, list) or len(listed) != len(tools)
    return not shown  # the witness is gone: the whole file was ignored


@needs_codex
def test_warnings_agree_with_what_codex_drops(tmp_path: Path) -> None:
    """A warning from evalens exactly where Codex drops a value (or the file); an error never."""
    project = _write(tmp_path)
    answer = skills_list(project, tmp_path / "home")
    assert set(VARIANTS) <= set(answer), (
        f"codex did not list every variant: {sorted(set(VARIANTS) - set(answer))}"
    )
    disagree = []
    for name, text in VARIANTS.items():
        path = project / ".agents" / "skills" / name / "agents" / "openai.yaml"
        problems = validate_text(str(path), text, IndexCache()).problems
        assert all(p.severity is not Severity.ERROR for p in problems), (name, [p.message for p in problems])
        ours = [p.message for p in problems if p.severity is Severity.WARNING]
        if bool(ours) != dropped(text, answer[name]):
            disagree.append(
                f"{name}: codex {'dropped' if dropped(text, answer[name]) else 'kept all'}; evalens {ours}"
            )
    assert not disagree, "\n".join(disagree)
    outcomes = {dropped(text, answer[name]) for name, text in VARIANTS.items()}
    assert outcomes == {True, False}, "the variants must hold both outcomes"
