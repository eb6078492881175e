"""The agentskills reference validator as the oracle for the strict profile (issue #39).

``skills-ref`` (its command is ``agentskills``; 0.1.1 is the newest the package registry serves) decides what the
agentskills profile calls an error: evalens reports an error on a skill exactly when ``agentskills validate``
fails it. The command is found on ``PATH`` or through ``EVALENS_SKILLS_REF``; without it the test is skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from evalens.core.index import IndexCache
from evalens.core.problems import Severity
from evalens.core.validate import validate_text

CLI = os.environ.get("EVALENS_SKILLS_REF") or shutil.which("agentskills")

VARIANTS: dict[str, str] = {
    "plain": "name: plain\ndescription: Reads PDFs.\n",
    "upper": "name: Upper\ndescription: d\n",
    "double--hyphen": "name: double--hyphen\ndescription: d\n",
    "other-folder": "name: not-the-folder\ndescription: d\n",
    "no-name": "description: d\n",
    "empty-description": "name: empty-description\ndescription: ''\n",
    "long-description": f"name: long-description\ndescription: {'x' * 1025}\n",
    "long-compatibility": f"name: long-compatibility\ndescription: d\ncompatibility: {'c' * 501}\n",
    "claude-keys": "name: claude-keys\ndescription: d\nwhen_to_use: x\nargument-hint: '[f]'\n",
    "number-compatibility": "name: number-compatibility\ndescription: d\ncompatibility: 42\n",
    "nested-metadata": "name: nested-metadata\ndescription: d\nmetadata:\n  a:\n    b: '1'\n",
    "angle-description": "name: angle-description\ndescription: Reads <b>PDFs</b>.\n",
    "block-list-tools": "name: block-list-tools\ndescription: d\nallowed-tools:\n  - Read\n",
    "flow-list-tools": "name: flow-list-tools\ndescription: d\nallowed-tools: [Read, Bash]\n",
    "flow-map-metadata": "name: flow-map-metadata\ndescription: d\nmetadata: {a: b}\n",
}


def _skills_ref_fails(folder: Path) -> bool:
    proc = subprocess.run(
        [str(CLI), "validate", str(folder)], capture_output=True, text=True, timeout=60, check=False
    )
    return proc.returncode != 0


@pytest.mark.skipif(
    CLI is None, reason="skills-ref not installed (`agentskills` command; EVALENS_SKILLS_REF)"
)
def test_strict_profile_errors_agree_with_skills_ref(tmp_path: Path) -> None:
    """Under the agentskills profile (what skills-ref and uploads accept), an evalens error exactly where
    `agentskills validate` fails the skill."""
    disagree = []
    for folder, frontmatter in VARIANTS.items():
        md = tmp_path / folder / "SKILL.md"
        md.parent.mkdir(parents=True)
        text = f"---\n{frontmatter}---\nBody.\n"
        md.write_text(text, encoding="utf-8")
        v = validate_text(str(md), text, IndexCache(), {"skillProfile": "agentskills"})
        ours = [p for p in v.problems if p.severity == Severity.ERROR]
        if bool(ours) != _skills_ref_fails(md.parent):
            disagree.append(
                f"{folder}: skills-ref {'fails' if not ours else 'accepts'}; evalens "
                f"{[(p.code, p.message[:80]) for p in ours] or 'no error'}"
            )
    assert not disagree, "\n".join(disagree)
