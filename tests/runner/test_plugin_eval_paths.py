"""``evalens.runner.suites.plugin_eval_paths``: where a `claude plugin eval` case lives (its plugin, its eval
dir from the manifest or ``evals/``), the plugin's skills, and what of the plugin a run copies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalens.runner.suites.plugin_eval_paths import copied_entries, eval_dir_of, plugin_root_of, plugin_skills


def _plugin(root: Path, manifest: object | None = None, *, top_level: bool = False) -> Path:
    """A plugin folder with a manifest (``.claude-plugin/plugin.json``, or ``plugin.json`` with ``top_level``)."""
    root.mkdir(parents=True, exist_ok=True)
    if manifest is not None:
        where = root / "plugin.json" if top_level else root / ".claude-plugin" / "plugin.json"
        where.parent.mkdir(parents=True, exist_ok=True)
        where.write_text(manifest if isinstance(manifest, str) else json.dumps(manifest), encoding="utf-8")
    return root.resolve()


def _case(root: Path, rel: str) -> Path:
    folder = root / rel
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "prompt.md").write_text("Say hi\n", encoding="utf-8")
    return folder


# --- plugin_root_of ------------------------------------------------------------------------------------------


def test_plugin_root_is_the_nearest_manifest(tmp_path: Path) -> None:
    outer = _plugin(tmp_path / "outer", {"name": "outer"})
    inner = _plugin(outer / "vendor" / "inner", {"name": "inner"}, top_level=True)
    assert plugin_root_of(_case(inner, "evals/hello")) == inner
    assert plugin_root_of(_case(outer, "evals/hello")) == outer


def test_a_manifest_wins_over_a_nearer_skills_folder(tmp_path: Path) -> None:
    root = _plugin(tmp_path / "p", {"name": "p"})
    (root / "evals" / "skills").mkdir(parents=True)
    assert plugin_root_of(_case(root, "evals/skills/case")) == root


def test_a_skills_directory_plugin_without_manifest(tmp_path: Path) -> None:
    root = _plugin(tmp_path / "p")
    (root / "skills" / "greet").mkdir(parents=True)
    assert plugin_root_of(_case(root, "evals/hello")) == root


def test_no_plugin_at_all(tmp_path: Path) -> None:
    folder = _case(tmp_path, "lonely/evals/hello")
    above = folder.resolve().parents
    if any((p / "skills").is_dir() or (p / "plugin.json").is_file() for p in above):
        pytest.skip("a folder above the temporary directory looks like a plugin")
    assert plugin_root_of(folder) is None


# --- eval_dir_of ---------------------------------------------------------------------------------------------


def test_eval_dir_defaults_to_evals(tmp_path: Path) -> None:
    root = _plugin(tmp_path / "p", {"name": "p"})
    assert eval_dir_of(root, _case(root, "evals/hello")) == "evals"
    assert eval_dir_of(root, _case(root, "evals/group/deep")) == "evals"


def test_eval_dir_is_none_outside_it(tmp_path: Path) -> None:
    root = _plugin(tmp_path / "p", {"name": "p"})
    assert eval_dir_of(root, _case(root, "tests/hello")) is None
    assert eval_dir_of(root, _case(root, "evals-old/hello")) is None
    (root / "evals").mkdir(exist_ok=True)
    assert eval_dir_of(root, root / "evals") is None  # the eval dir itself is no case


@pytest.mark.parametrize("evals", ["qa/cases", "/qa/cases/", ["qa/cases", "other"]])
def test_eval_dir_from_the_manifest(tmp_path: Path, evals: object) -> None:
    root = _plugin(tmp_path / "p", {"name": "p", "experimental": {"evals": evals}})
    assert eval_dir_of(root, _case(root, "qa/cases/hello")) == "qa/cases"
    # `evals/` still counts when the case is not under the manifest's dir
    assert eval_dir_of(root, _case(root, "evals/hello")) == "evals"
    assert eval_dir_of(root, _case(root, "qa/hello")) is None


def test_eval_dir_from_a_top_level_manifest(tmp_path: Path) -> None:
    root = _plugin(tmp_path / "p", {"experimental": {"evals": "checks"}}, top_level=True)
    assert eval_dir_of(root, _case(root, "checks/one")) == "checks"


@pytest.mark.parametrize(
    "manifest",
    [
        "{not json",
        {"experimental": {"evals": "../outside"}},
        {"experimental": {"evals": ""}},
        {"experimental": {"evals": "/"}},
        {"experimental": {"evals": []}},
        {"experimental": {"evals": [7]}},
        {"experimental": {"evals": 3}},
        {"experimental": None},
        ["not", "a", "mapping"],
    ],
)
def test_a_manifest_eval_dir_that_cannot_be_used_falls_back(tmp_path: Path, manifest: object) -> None:
    root = _plugin(tmp_path / "p", manifest)
    assert eval_dir_of(root, _case(root, "evals/hello")) == "evals"
    assert eval_dir_of(root, _case(root, "outside/hello")) is None


def test_a_symlinked_manifest_is_not_read(tmp_path: Path) -> None:
    real = tmp_path / "elsewhere.json"
    real.write_text(json.dumps({"experimental": {"evals": "qa"}}), encoding="utf-8")
    root = _plugin(tmp_path / "p")
    (root / ".claude-plugin").mkdir()
    (root / ".claude-plugin" / "plugin.json").symlink_to(real)
    assert eval_dir_of(root, _case(root, "qa/hello")) is None
    assert eval_dir_of(root, _case(root, "evals/hello")) == "evals"


# --- plugin_skills -------------------------------------------------------------------------------------------


def test_plugin_skills_each_skill_folder_with_a_skill_md(tmp_path: Path) -> None:
    root = _plugin(tmp_path / "p", {"name": "p"})
    for name in ("beta", "alpha"):
        (root / "skills" / name).mkdir(parents=True)
        (root / "skills" / name / "SKILL.md").write_text(f"---\nname: {name}\n---\n", encoding="utf-8")
    (root / "skills" / "empty").mkdir()
    (root / "skills" / "README.md").write_text("not a skill", encoding="utf-8")
    (root / "skills" / "linked").symlink_to(root / "skills" / "alpha")
    skills = plugin_skills(root)
    assert list(skills) == ["alpha", "beta"]
    assert skills["alpha"] == root / "skills" / "alpha" / "SKILL.md"


def test_plugin_skills_of_a_single_skill_plugin(tmp_path: Path) -> None:
    root = _plugin(tmp_path / "my-skill")
    (root / "SKILL.md").write_text("---\nname: my-skill\n---\n", encoding="utf-8")
    assert plugin_skills(root) == {"my-skill": root / "SKILL.md"}
    (root / "skills" / "other").mkdir(parents=True)
    (root / "skills" / "other" / "SKILL.md").write_text("x", encoding="utf-8")
    assert plugin_skills(root) == {"other": root / "skills" / "other" / "SKILL.md"}


def test_plugin_skills_none(tmp_path: Path) -> None:
    assert plugin_skills(_plugin(tmp_path / "p", {"name": "p"})) == {}


# --- copied_entries ------------------------------------------------------------------------------------------


def test_copied_entries_leave_out_other_cases(tmp_path: Path) -> None:
    root = _plugin(tmp_path / "p", {"name": "p"})
    (root / "skills").mkdir()
    (root / ".git").mkdir()
    (root / "greet-workspace").mkdir()
    (root / "README.md").write_text("x", encoding="utf-8")
    (root / "evals" / "mocks").mkdir(parents=True)
    case = _case(root, "evals/hello")
    _case(root, "evals/other")
    assert copied_entries(root, "evals", case) == [
        ".claude-plugin",
        "README.md",
        "skills",
        "evals/mocks",
        "evals/hello",
    ]


def test_copied_entries_of_a_nested_eval_dir_without_mocks(tmp_path: Path) -> None:
    root = _plugin(tmp_path / "p", {"experimental": {"evals": "qa/cases"}})
    (root / "qa" / "notes.md").parent.mkdir(parents=True)
    (root / "qa" / "notes.md").write_text("x", encoding="utf-8")
    case = _case(root, "qa/cases/one")
    assert copied_entries(root, "qa/cases", case) == [".claude-plugin", "qa/cases/one"]


@pytest.mark.parametrize("experimental", ['"yes"', "[1]", "7", "true"])
def test_an_experimental_section_of_any_shape_is_read_without_a_crash(
    tmp_path: Path, experimental: str
) -> None:
    """A committed plugin.json is the repository's: `experimental` that is not a mapping names no eval dir (the
    default, evals/, stands) instead of raising in the run, the lens or the stale check."""
    root = tmp_path / "plugin"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(f'{{"name": "p", "experimental": {experimental}}}')
    (root / "evals" / "c1").mkdir(parents=True)
    assert eval_dir_of(root, root / "evals" / "c1") == "evals"
