"""``evalens.core.tuning.tune``, the one pass between the format rules and every output: inline suppressions
(YAML comments, JSON's ``$evalens`` member), then the user's levels from the config file and the editor or
command line, in the preferred order, with ``--select``; codes that mean the file cannot be read are never
tuned away. Problems are built by hand here so that only the pass is under test."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalens.core.config import NO_FILE, FileConfig, Tuning, load_config_file, parse_levels
from evalens.core.documents import parse
from evalens.core.problems import Problem, Severity, Span
from evalens.core.tuning import default_tuning, tune


def _p(code: str, line: int = 0, severity: Severity = Severity.WARNING, **data: object) -> Problem:
    return Problem(Span(line, 0, line, 3), severity, code, f"{code} on line {line}", data=dict(data) or None)


def _levels(table: dict[str, str]):
    errors: list[str] = []
    levels = parse_levels(table, "test", errors)
    assert errors == []
    return levels


def _file(tmp_path: Path, text: str) -> FileConfig:
    (tmp_path / "evalens.toml").write_text(text)
    loaded = load_config_file(tmp_path / "evalens.toml")
    assert loaded is not None and loaded.errors == ()
    return loaded


def test_nothing_to_apply_keeps_the_problems() -> None:
    problems = [_p("unknown-key"), _p("missing-key", 1, Severity.ERROR)]
    out = tune(problems, None, "uaaps-case", "a.yaml", Tuning())
    assert out == problems
    assert out is not problems  # a new list, as promised: extending it leaves the caller's alone


def test_a_yaml_comment_silences_its_line_or_the_next() -> None:
    text = "name: a  # evalens: ignore[unknown-key]\n# evalens: ignore[missing-key]\ninput: x\nother: y\n"
    doc = parse(text, "yaml")
    problems = [_p("unknown-key", 0), _p("missing-key", 0), _p("missing-key", 2), _p("missing-key", 3)]
    out = tune(problems, doc, None, "a.yaml", Tuning())
    assert [(p.code, p.span.start_line) for p in out] == [("missing-key", 0), ("missing-key", 3)]


def test_an_unused_or_impossible_suppression_is_hinted() -> None:
    text = "a: 1  # evalens: ignore[duplicate-key, syntax, no-such-rule]\nb: 2  # evalens: ignore\n"
    doc = parse(text, "yaml")
    out = tune([], doc, None, "a.yaml", Tuning())
    messages = [p.message for p in out]
    assert all(p.severity is Severity.HINT for p in out)
    assert "No `duplicate-key` problem here; the suppression is unused." in messages
    assert "`syntax` cannot be silenced (the file cannot be read as it is)." in messages
    assert "`no-such-rule` is not an evalens rule, so there is nothing to silence." in messages
    assert "This `evalens: ignore` silences nothing here." in messages


def test_a_file_wide_suppression_and_an_unreadable_file() -> None:
    doc = parse("# evalens: ignore-file[unknown-key]\na: 1\nb: 2\n", "yaml")
    problems = [_p("unknown-key", 1), _p("unknown-key", 2), _p("syntax", 2, Severity.ERROR)]
    out = tune(problems, doc, None, "a.yaml", Tuning())
    assert [p.code for p in out] == ["syntax"]  # not tunable: never silenced


def test_json_suppression_member_and_its_own_problems() -> None:
    doc = parse('{"$evalens": {"ignore": ["unknown-key"]}, "x": 1}', "json")
    problems = [_p("unknown-key", 0), _p("unknown-key", 0, path=["$evalens"]), _p("missing-key", 0)]
    out = tune(problems, doc, None, "a.json", Tuning())
    assert [p.code for p in out] == ["missing-key"]


def test_levels_from_the_command_line_change_or_drop_problems_without_touching_the_input() -> None:
    problems = [_p("unknown-key"), _p("missing-key", 1, Severity.ERROR), _p("syntax", 2, Severity.ERROR)]
    tuning = Tuning(overrides=_levels({"unknown-key": "error", "missing-key": "off", "syntax": "off"}))
    out = tune(problems, None, "uaaps-case", "a.yaml", tuning)
    assert [(p.code, p.severity) for p in out] == [
        ("unknown-key", Severity.ERROR),
        ("syntax", Severity.ERROR),
    ]
    assert problems[0].severity is Severity.WARNING  # a changed copy, not the caller's problem
    same = tune([problems[0]], None, None, "a.yaml", Tuning(overrides=_levels({"unknown-key": "warning"})))
    assert same[0] is problems[0]


def test_select_keeps_only_the_chosen_codes() -> None:
    problems = [_p("unknown-key"), _p("schema-type", 1), _p("missing-key", 2), _p("syntax", 3)]
    out = tune(problems, None, None, "a.yaml", Tuning(select=frozenset({"schema-*", "unknown-key"})))
    assert [p.code for p in out] == ["unknown-key", "schema-type", "syntax"]  # syntax always stays


def test_file_levels_per_format_and_the_preference(tmp_path: Path) -> None:
    config = _file(
        tmp_path,
        '[rules]\nunknown-key = "off"\nmissing-key = "hint"\n\n[per-format.skilljack-tasks]\nunknown-key = "error"\n',
    )
    problems = [_p("unknown-key"), _p("missing-key", 1, Severity.ERROR)]
    path = str(tmp_path / "evals" / "a.yaml")
    by_file = tune(problems, None, "uaaps-case", path, Tuning(config))
    assert [(p.code, p.severity) for p in by_file] == [("missing-key", Severity.HINT)]
    per_format = tune(problems, None, "skilljack-tasks", path, Tuning(config))
    assert [(p.code, p.severity) for p in per_format] == [
        ("unknown-key", Severity.ERROR),
        ("missing-key", Severity.HINT),
    ]
    editor = _levels({"missing-key": "warning"})
    first = tune(problems, None, "uaaps-case", path, Tuning(config, editor, "editorFirst"))
    assert [(p.code, p.severity) for p in first] == [("missing-key", Severity.WARNING)]
    files_first = tune(problems, None, "uaaps-case", path, Tuning(config, editor, "filesystemFirst"))
    assert [(p.code, p.severity) for p in files_first] == [("missing-key", Severity.HINT)]
    editor_only = tune(problems, None, "uaaps-case", path, Tuning(config, editor, "editorOnly"))
    assert [(p.code, p.severity) for p in editor_only] == [
        ("unknown-key", Severity.WARNING),
        ("missing-key", Severity.WARNING),
    ]


def test_default_tuning_reads_the_nearest_config(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "evalens.toml").write_text('[rules]\nunknown-key = "off"\n')
    (tmp_path / "sub").mkdir()
    tuning = default_tuning(tmp_path / "sub" / "a.yaml")
    assert tuning.file.path == tmp_path / "evalens.toml"
    assert tune([_p("unknown-key")], None, None, str(tmp_path / "sub" / "a.yaml"), tuning) == []
    bare = tmp_path / "elsewhere"
    (bare / ".git").mkdir(parents=True)
    assert default_tuning(bare / "a.yaml").file == NO_FILE


@pytest.mark.parametrize("language", ["yaml", "json"])
def test_tune_does_not_change_its_input_list(language: str) -> None:
    text = (
        "a: 1  # evalens: ignore[unknown-key]\n" if language == "yaml" else '{"$evalens": {"ignore": true}}'
    )
    problems = [_p("unknown-key"), _p("missing-key", 1)]
    before = list(problems)
    tune(problems, parse(text, language), None, "f", Tuning(overrides=_levels({"missing-key": "error"})))
    assert problems == before
