"""Headless Neovim 0.7.2 and 0.11 with the README's setup attach the evalens server to every file kind the
server publishes: SKILL.md, task.md, an evals.json outside `evals/`, a case under `evals/` (and not to a
README.md), and lua/evalens/kinds.lua's vim.regex matching agrees with evalens/core/kinds.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalens.core import kinds
from tests.editors.doc_images import nvim_capture
from tests.editors.nvim_session import Neovim

pytestmark = pytest.mark.editors

PATHS = [
    "/w/skills/pdf/SKILL.md",
    "/w/t/task.md",
    "/w/rule-creator/bash-tools/evals.json",
    "/w/README.md",
    "/w/pkg/evals/cases/a.yml",
    "/w/pkg/evals/suite.yaml",
    "/w/x/my_triggers.json",
    "/w/package.json",
    "/w/skill.md.bak",
    "/w/a/eval.config.yml",
    "/w/evals/grading/1.json",
    "C:\\w\\s\\SKILL.md",
]


@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_neovim_attaches_to_every_kind(version: str, tmp_path: Path):
    nvim = Neovim.or_skip(version)
    skill = tmp_path / "skills" / "pdf"
    (skill / "evals" / "cases").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: pdf\ndescription: Use when reading PDF files.\n---\n# PDF\n")
    (skill / "evals" / "cases" / "basic.yaml").write_text("name: basic\nprompt: hi\n")
    outside = tmp_path / "rule-creator" / "bash-tools"
    outside.mkdir(parents=True)
    (outside / "evals.json").write_text('{"skill_name": "bash-tools", "evals": []}\n')
    task = tmp_path / "tasks" / "one"
    task.mkdir(parents=True)
    (task / "task.md").write_text("---\nid: one\n---\nDo it.\n")
    (tmp_path / "README.md").write_text("# not an eval file\n")
    pkg = (
        tmp_path / "pdf-tools"
    )  # a UAAPS package: its skill's SKILL.md shares the package's server (#27 #10)
    (pkg / "evals" / "cases").mkdir(parents=True)
    (pkg / "skills" / "pdf-tools").mkdir(parents=True)
    (pkg / "evals" / "cases" / "a.yaml").write_text(
        "name: a\ntarget: skill:pdf-tools\ninput:\n  prompt: hi\n"
    )
    (pkg / "skills" / "pdf-tools" / "SKILL.md").write_text(
        "---\nname: pdf-tools\ndescription: Use when reading PDF files.\n---\n# PDF\n"
    )
    files = [
        skill / "SKILL.md",
        outside / "evals.json",
        task / "task.md",
        skill / "evals" / "cases" / "basic.yaml",
        pkg / "evals" / "cases" / "a.yaml",
        pkg / "skills" / "pdf-tools" / "SKILL.md",
    ]
    env = {
        "EVALENS_NVIM_FILES": "\n".join(map(str, files)),
        "EVALENS_NVIM_NOT": str(tmp_path / "README.md"),
        "EVALENS_NVIM_PATHS": "\n".join(PATHS),
    }
    run = nvim.run_driver("attach.lua", tmp_path, cwd=tmp_path, timeout=120, env=env)
    result = run.result
    assert result, (run.proc.stdout[-2000:], run.proc.stderr[-2000:])
    assert result["version"] == version
    got = result["files"]
    for f in files:
        assert got[str(f)]["attached"], (f, got)
    assert got[str(skill / "SKILL.md")]["filetype"] == "markdown"
    assert got[str(skill / "SKILL.md")]["root"] == str(skill)
    assert got[str(skill / "evals" / "cases" / "basic.yaml")]["root"] == str(skill)
    assert got[str(outside / "evals.json")]["root"] == str(outside)  # no marker: the file's folder
    assert got[str(pkg / "skills" / "pdf-tools" / "SKILL.md")]["root"] == str(pkg)
    assert (
        got[str(pkg / "skills" / "pdf-tools" / "SKILL.md")]["client"]
        == got[str(pkg / "evals" / "cases" / "a.yaml")]["client"]
    )
    assert not got[str(tmp_path / "README.md")]["attached"]
    shown = [pkg / "evals" / "cases" / "a.yaml", pkg / "skills" / "pdf-tools" / "SKILL.md"]
    nvim_capture(
        version,
        "fix-10-one-server-per-package",
        [
            f"Neovim {version}: the evalens client of each buffer and the root it serves",
            *(
                f"{str(f.relative_to(tmp_path)):40} client {got[str(f)]['client']}  root "
                + str(Path(got[str(f)]["root"]).relative_to(tmp_path))
                for f in shown
            ),
        ],
    )
    for path in PATHS:
        kind = kinds.kind_of(path)
        assert result["kinds"][path] == (kind.glob if kind else None), path
