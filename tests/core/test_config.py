"""Rule tuning from files: parsing, where the nearest config is found, caching, and precedence."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evalens.core import config as cfg
from evalens.core.config import (
    KEEP,
    ConfigCache,
    RuleLevels,
    Tuning,
    load_config_file,
    parse_config,
    parse_levels,
)
from evalens.core.problems import Severity
from evalens.core.validate import validate_text

CASE = "name: my-case\ntarget: skill:x\ninput:\n  prompt: hi\n  bogus: 1\njudge:\n  criteria: The reply is good.\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return tmp_path


def codes(path: Path, text: str = CASE, tuning: Tuning | None = None) -> dict[str, Severity]:
    return {p.code: p.severity for p in validate_text(str(path), text, None, None, tuning).problems}


# ------------------------------------------------------------------------------------------- parsing


def test_levels_exact_globs_and_case_insensitive_words():
    errors: list[str] = []
    levels = parse_levels({"unknown-key": "OFF", "schema-*": "hint", "schema-type": "error"}, "x", errors)
    assert errors == []
    assert levels.get("unknown-key") is None
    assert levels.get("schema-enum") == Severity.HINT
    assert levels.get("schema-type") == Severity.ERROR  # exact wins over the glob
    assert levels.get("vague-criteria") is KEEP


def test_bad_levels_and_unknown_codes_are_reported_not_raised():
    errors: list[str] = []
    levels = parse_levels(
        {
            "unknown-key": "warn",
            "unknwn-key": "off",
            "vague-criteria": 3,
            "no-checks": ["off"],
            "placeholder": {"level": "off"},
        },
        "evalens.toml",
        errors,
    )
    assert not levels
    assert any("`unknown-key = 'warn'`" in e and "error, warning, info, hint, off" in e for e in errors)
    assert any("did you mean `unknown-key`" in e for e in errors)
    assert len(errors) == 5
    errors.clear()
    parse_levels(["unknown-key"], "evalens.rules setting", errors)
    assert errors and "must be a table" in errors[0]


def test_top_level_setting_inside_rules_gets_a_hint():
    """TOML puts `ignore = [...]` written after `[rules]` into the rules table."""
    conf = parse_config({"rules": {"ignore": ["short-prompt"], "unknown-key": "off"}}, "evalens.toml", None)
    assert conf.rules.get("unknown-key") is None
    assert conf.errors == (
        "evalens.toml [rules]: `ignore` is a top-level setting; in TOML it goes before the first [table].",
    )


def test_config_sections():
    conf = parse_config(
        {
            "rules": {"vague-criteria": "info"},
            "ignore": ["no-checks"],
            "per-format": {"uaaps-case": {"unknown-key": "error"}, "nope": {}},
            "per-file": {"legacy/**": {"unknown-key": "off"}},
            "colour": "blue",
        },
        "evalens.toml",
        Path("/p/evalens.toml"),
    )
    assert conf.rules.get("no-checks") is None and conf.rules.get("vague-criteria") == Severity.INFO
    assert conf.level("unknown-key", "uaaps-case", "/p/evals/cases/a.yaml") == Severity.ERROR
    assert conf.level("unknown-key", "uaaps-case", "/p/legacy/evals/a.yaml") is None  # per-file wins
    assert conf.level("unknown-key", "skill-md", "/p/SKILL.md") is KEEP
    assert (
        conf.level("unknown-key", None, "/elsewhere/legacy/a.yaml") is KEEP
    )  # globs are relative to the file
    assert any("unknown setting `colour`" in e for e in conf.errors)
    assert any("`nope` is not a format id" in e for e in conf.errors)


def test_per_file_pattern_without_slash_matches_the_name():
    conf = parse_config({"per-file": {"*.json": {"unknown-key": "off"}}}, "x", Path("/p/evalens.toml"))
    assert conf.level("unknown-key", None, "/p/a/b/evals.json") is None
    assert conf.level("unknown-key", None, "/p/a/b/case.yaml") is KEEP


def test_invalid_toml_and_pyproject_without_section(tmp_path: Path):
    bad = load_config_file(write(tmp_path / "evalens.toml", "[rules\nx = 1\n"))
    assert bad is not None and bad.errors and "invalid TOML" in bad.errors[0] and "line 1" in bad.errors[0]
    assert load_config_file(write(tmp_path / "pyproject.toml", "[tool.ruff]\nline-length = 100\n")) is None
    odd = load_config_file(write(tmp_path / "pyproject.toml", "[tool]\nevalens = 3\n"))
    assert odd is not None and "must be a table" in odd.errors[0]


# ------------------------------------------------------------------------------------------- discovery


def test_nearest_config_wins_and_pyproject_needs_the_section(repo: Path):
    write(repo / "evalens.toml", '[rules]\nunknown-key = "off"\n')
    write(repo / "pkg" / "pyproject.toml", '[project]\nname = "x"\n')  # no [tool.evalens]: keep looking
    case = repo / "pkg" / "evals" / "cases" / "a.yaml"
    assert "unknown-key" not in codes(case)
    write(repo / "pkg" / "pyproject.toml", '[tool.evalens.rules]\nunknown-key = "error"\n')
    assert codes(case)["unknown-key"] == Severity.ERROR
    write(
        repo / "pkg" / "evalens.toml", '[rules]\nunknown-key = "hint"\n'
    )  # evalens.toml beats pyproject.toml
    assert codes(case)["unknown-key"] == Severity.HINT
    write(repo / "pkg" / ".evalens.toml", '[rules]\nunknown-key = "info"\n')
    assert codes(case)["unknown-key"] == Severity.INFO


def test_search_stops_at_the_repository_root(tmp_path: Path):
    write(tmp_path / "evalens.toml", '[rules]\nunknown-key = "off"\n')
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    case = tmp_path / "repo" / "evals" / "cases" / "a.yaml"
    assert ConfigCache().for_file(case).path is None
    assert "unknown-key" in codes(case)


def test_search_stops_at_a_workspace_root(tmp_path: Path):
    write(tmp_path / "evalens.toml", '[rules]\nunknown-key = "off"\n')
    root = tmp_path / "ws"
    case = root / "evals" / "cases" / "a.yaml"
    case.parent.mkdir(parents=True)
    assert ConfigCache().for_file(case).path == tmp_path / "evalens.toml"
    assert ConfigCache([root]).for_file(case).path is None


def test_parsed_once_until_the_file_changes(repo: Path, monkeypatch: pytest.MonkeyPatch):
    conf = write(repo / "evalens.toml", '[rules]\nunknown-key = "off"\n')
    loads: list[Path] = []
    real = cfg.load_config_file
    monkeypatch.setattr(cfg, "load_config_file", lambda p: loads.append(p) or real(p))
    cache = ConfigCache()
    case = repo / "evals" / "cases" / "a.yaml"
    for _ in range(50):
        assert cache.for_file(case).rules.get("unknown-key") is None
    assert len(loads) == 1
    conf.write_text('[rules]\nunknown-key = "error"\n', encoding="utf-8")
    st = conf.stat()
    os.utime(conf, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000))  # coarse file system clocks
    assert cache.for_file(case).rules.get("unknown-key") == Severity.ERROR
    assert len(loads) == 2


def test_lookup_is_cheap(repo: Path):
    """A keystroke pays one stat (the server's cache remembers which file applies), not a walk or a parse."""
    import time

    write(repo / "evalens.toml", '[rules]\nunknown-key = "off"\n')
    deep = repo / "a" / "b" / "c" / "d" / "evals" / "cases" / "x.yaml"
    cache = ConfigCache(ttl=5.0)
    cache.for_file(deep)
    start = time.perf_counter()
    for _ in range(1000):
        cache.for_file(deep)
    assert time.perf_counter() - start < 0.5


def test_remembered_resolution_still_sees_edits_and_forget_sees_new_files(repo: Path):
    conf = write(repo / "evalens.toml", '[rules]\nunknown-key = "off"\n')
    case = repo / "pkg" / "evals" / "cases" / "a.yaml"
    cache = ConfigCache(ttl=60.0)
    assert cache.for_file(case).path == conf
    conf.write_text('[rules]\nunknown-key = "error"\n', encoding="utf-8")
    assert cache.for_file(case).rules.get("unknown-key") == Severity.ERROR  # same file: its mtime is checked
    closer = write(repo / "pkg" / "evalens.toml", "[rules]\n")
    assert cache.for_file(case).path == conf  # a new file is found after forget() (watched files) or the ttl
    cache.forget()
    assert cache.for_file(case).path == closer
    closer.unlink()
    assert cache.for_file(case).path == conf  # a vanished file is noticed at once


# ------------------------------------------------------------------------------------------- precedence


def test_editor_first_filesystem_first_editor_only(repo: Path):
    file = parse_config(
        {"rules": {"unknown-key": "hint", "vague-criteria": "off"}}, "f", repo / "evalens.toml"
    )
    editor = RuleLevels({"unknown-key": Severity.ERROR})
    case = str(repo / "evals" / "cases" / "a.yaml")
    assert Tuning(file, editor).level("unknown-key", None, case) == Severity.ERROR
    assert Tuning(file, editor, "filesystemFirst").level("unknown-key", None, case) == Severity.HINT
    assert Tuning(file, editor, "editorOnly").level("vague-criteria", None, case) is KEEP
    assert Tuning(file, editor).level("vague-criteria", None, case) is None


def test_select_reports_only_the_selected_codes(repo: Path):
    case = repo / "evals" / "cases" / "a.yaml"
    found = codes(case, tuning=Tuning(select=frozenset({"vague-*"})))
    assert set(found) == {"vague-criteria"}


def test_levels_apply_through_validate_and_syntax_errors_stay(repo: Path):
    write(repo / "evalens.toml", '[rules]\nunknown-key = "off"\nvague-criteria = "error"\nsyntax = "off"\n')
    case = repo / "evals" / "cases" / "a.yaml"
    found = codes(case)
    assert "unknown-key" not in found and found["vague-criteria"] == Severity.ERROR
    broken = codes(case, "name: [unclosed\n")
    assert broken == {"syntax": Severity.ERROR}  # a file that cannot be read cannot be tuned quiet


def test_per_format_override(repo: Path):
    write(repo / "evalens.toml", '[per-format.uaaps-case]\nunknown-key = "off"\n')
    assert "unknown-key" not in codes(repo / "evals" / "cases" / "a.yaml")
    cfg_text = '{"version": 1, "engine": "claude-code", "colour": 1}'
    config_codes = {
        p.code for p in validate_text(str(repo / "evals" / "eval-config.json"), cfg_text).problems
    }
    assert "unknown-key" in config_codes


def test_docs_list_every_format_id_and_setting():
    from evalens.core.config import SETTINGS, format_ids
    from tests.conftest import REPO

    doc = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert [f for f in format_ids() if f"`{f}`" not in doc] == []
    assert all(s in doc for s in SETTINGS)
