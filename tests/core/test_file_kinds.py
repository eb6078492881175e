"""File kinds live in one place (evalens/core/kinds.py): the server publishes them at initialize, and the
editors' copies (Neovim's kinds.lua, the VS Code fallback) are generated from them and cannot drift."""

from __future__ import annotations

import re

import pytest

from evalens.core import kinds
from evalens.core.formats.base import glob_regex
from evalens.core.formats.registry import all_formats, candidates
from tests.conftest import REPO
from tests.server.raw_client import RawServer


def test_generated_copies_match_the_declaration():
    """Regenerate with `python -m evalens.core.kinds --write` when this fails."""
    assert kinds.LUA_PATH.read_text(encoding="utf-8") == kinds.lua_source()
    assert kinds.TS_PATH.read_text(encoding="utf-8") == kinds.ts_source()
    assert kinds.JSON_PATH.read_text(encoding="utf-8") == kinds.json_source()
    assert kinds.published() == kinds.computed()  # what the server sends, read from the JSON copy


def test_the_published_kinds_have_the_wire_models_shape():
    """The wire shape is declared once, as ``wire.FileKind`` (the TypeScript type is generated from it): every
    kind the server publishes is exactly that, and the initialize section is ``ExperimentalCapabilities``."""
    from evalens.server import wire
    from evalens.server.protocol import experimental_capabilities

    section = experimental_capabilities()["evalens"]
    assert wire.ExperimentalCapabilities.model_validate(section).wire() == section
    assert [wire.FileKind.model_validate(k).wire() for k in kinds.published()] == kinds.published()


def test_every_format_glob_is_a_kind():
    globs = {k.glob for k in kinds.file_kinds()}
    for fmt in all_formats():
        for glob in fmt.globs:
            for one in kinds.expand_braces(glob):
                assert one in globs, (fmt.id, one)
                assert fmt.id in next(k.formats for k in kinds.file_kinds() if k.glob == one)


@pytest.mark.parametrize(
    "path",
    [
        "/w/pkg/evals/eval-config.json",
        "/w/pkg/evals/cases/basic.yaml",
        "/w/pkg/evals/cases/deep/x.yml",
        "/w/tasks.yaml",
        "/w/a/eval.config.yaml",
        "/w/skills/x/evals.json",
        "/w/x/trigger-evals.json",
        "/w/x/evals/grading.json",
        "/w/ws/grading.json",
        "/w/skills/pdf/SKILL.md",
        "/w/pkg/task.md",
        "/w/rule-creator/bash-tools/evals.json",
        "/w/skill/evals/my-suite.yaml",
        "/w/evals/reports/r.json",
    ],
)
def test_eval_files_have_a_kind(path: str):
    assert kinds.kind_of(path) is not None


@pytest.mark.parametrize(
    "path",
    [
        "/w/README.md",
        "/w/pkg/cases/basic.yaml",
        "/w/package.json",
        "/w/skill.md.bak",
        "/w/tasks.yaml.orig",
        "/w/SKILL.md/x.txt",
    ],
)
def test_other_files_have_none(path: str):
    assert kinds.kind_of(path) is None


def test_a_path_a_format_claims_has_a_kind_of_that_format():
    for path in [
        "/w/evals.json",
        "/w/a/SKILL.md",
        "/w/t/task.md",
        "/w/evals/cases/a.yml",
        "/w/x_triggers.json",
    ]:
        ids = {f.id for f in candidates(path)}
        kind = kinds.kind_of(path)
        assert kind is not None and ids <= set(kind.formats), (path, ids, kind)


def test_brace_expansion():
    assert kinds.expand_braces("a/*.{yaml,yml}") == ["a/*.yaml", "a/*.yml"]
    assert kinds.expand_braces("x") == ["x"]


@pytest.mark.parametrize("glob", [k.glob for k in kinds.file_kinds()])
def test_vim_regex_has_the_same_meaning(glob: str):
    """Neovim matches with vim.regex; this checks the translation through the equivalent Python regex
    (tests/editors/test_neovim.py runs the real vim.regex)."""
    vim = kinds.vim_regex(glob)
    py = (
        vim.removeprefix(r"\m\C")
        .replace(r"\(", "(")
        .replace(r"\)", ")")
        .replace(r"\|", "|")
        .replace(r"\=", "?")
    )
    samples = [
        "/w/" + glob.replace("**/", "a/b/").replace("*", "x"),
        "/" + glob.replace("**/", "").replace("*", ""),
        "/w/other.json",
        "/w/evals/x.md",
        "/w/a.yaml",
    ]
    for s in samples:
        assert bool(re.search(py, s)) == bool(glob_regex(glob).search(s)), (glob, s)


def test_the_server_publishes_the_kinds_at_initialize():
    with RawServer(cwd=REPO) as server:
        reply = server.initialize()
    published = reply["result"]["capabilities"]["experimental"]["evalens"]["fileKinds"]
    assert published == kinds.published()
    assert {"glob": "**/SKILL.md", "languageId": "markdown", "formats": ["skill-md"]} in published
