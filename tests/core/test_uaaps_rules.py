"""Every UAAPS rule, on files inside a real package layout."""

from __future__ import annotations

from pathlib import Path

from evalens.core.formats.uaaps import is_vague, kebab, path_escape
from evalens.core.index import IndexCache
from evalens.core.problems import Severity
from evalens.core.validate import validate_text


def check(pkg: Path, rel: str, text: str):
    return validate_text(str(pkg / rel), text, IndexCache())


def codes(result) -> list[str]:
    return [p.code for p in result.problems]


BASE = 'name: {name}\ntarget: {target}\ninput:\n  prompt: hi\n{extra}judge:\n  criteria: The reply contains "hi".\n'


def case(name="a-case", target="skill:pdf-tools", extra=""):
    return BASE.format(name=name, target=target, extra=extra)


def test_valid_example_cases(example_pkg):
    for path in sorted((example_pkg / "evals" / "cases").glob("0[12]*.yaml")):
        assert check(example_pkg, f"evals/cases/{path.name}", path.read_text()).problems == []


def test_duplicate_name_across_cases(example_pkg):
    result = check(example_pkg, "evals/cases/09.yaml", case(name="extract-text"))
    (p,) = [p for p in result.problems if p.code == "duplicate-case-name"]
    assert "01-extract-text.yaml" in p.message and p.severity == Severity.ERROR


def test_fixture_must_exist(example_pkg):
    result = check(
        example_pkg,
        "evals/cases/09.yaml",
        case(extra="  files: [fixtures/sample.txt, fixtures/nope.txt]\n".replace("  files", "  files")),
    )
    assert codes(result).count("fixture-missing") <= 1


def test_paths_must_stay_inside(example_pkg):
    text = (
        "name: a\ninput:\n  prompt: hi\n  files: [/etc/passwd, ../../x, fixtures/sample.txt]\n"
        '  workspace-files: [../out]\njudge:\n  criteria: contains "x"\n'
    )
    result = check(example_pkg, "evals/cases/09.yaml", text)
    assert codes(result).count("path-escape") == 3
    cfg = '{"version": 1, "engine": "codex", "sandbox": {"writable-paths": ["/tmp", "out/"]}}'
    result = check(example_pkg, "evals/eval-config.json", cfg)
    assert codes(result) == ["path-escape"]


def test_targets_resolve(example_pkg):
    assert "unknown-target" not in codes(
        check(example_pkg, "evals/cases/9.yaml", case(target="hook:pre-tool-use"))
    )
    assert "unknown-target" in codes(
        check(example_pkg, "evals/cases/9.yaml", case(target="hook:post-tool-use"))
    )
    assert "unknown-target" not in codes(
        check(example_pkg, "evals/cases/9.yaml", case(target="agent:reviewer"))
    )
    assert "unknown-target" in codes(check(example_pkg, "evals/cases/9.yaml", case(target="agent:nobody")))
    result = check(example_pkg, "evals/cases/9.yaml", case(target="skill:pdf-tool"))
    (p,) = [p for p in result.problems if p.code == "unknown-target"]
    assert p.fixes[0].edits[0].text == "skill:pdf-tools"


def test_vague_and_no_checks():
    assert is_vague("The answer is appropriate and good.")
    assert not is_vague("The answer is good and lists the 4 quarters.")
    assert not is_vague("Names the file output/a.csv")


def test_vague_criteria_warning_and_hint(example_pkg):
    text = "name: a\ninput:\n  prompt: hi\njudge:\n  criteria: Responds appropriately.\n"
    result = check(example_pkg, "evals/cases/9.yaml", text)
    assert {"vague-criteria", "no-checks"} <= set(codes(result))
    sev = {p.code: p.severity for p in result.problems}
    assert sev["vague-criteria"] == Severity.WARNING and sev["no-checks"] == Severity.HINT


def test_reserved_and_unknown_engines(example_pkg):
    result = check(example_pkg, "evals/eval-config.json", '{"version": 1, "engine": "cursor"}')
    assert codes(result) == ["unsupported-engine"] and result.problems[0].severity == Severity.ERROR
    result = check(example_pkg, "evals/eval-config.json", '{"version": 1, "engine": "codx"}')
    assert codes(result) == ["unknown-engine"] and result.problems[0].severity == Severity.WARNING
    assert result.problems[0].fixes[0].edits[0].text == "codex"


def test_unknown_key_warning_with_fix(example_pkg):
    result = check(example_pkg, "evals/cases/9.yaml", case(extra="expected:\n  not-contain: [x]\n"))
    (p,) = [p for p in result.problems if p.code == "unknown-key"]
    assert p.message == "`not-contain` is not a field of `expected`; did you mean `not-contains`?"
    assert p.severity == Severity.WARNING


def test_type_and_missing_messages(example_pkg):
    result = check(
        example_pkg, "evals/eval-config.json", '{"version": 1, "engine": "codex", "timeout": "2m"}'
    )
    assert result.problems[0].message == "`timeout` must be a number, not a string."
    result = check(example_pkg, "evals/cases/9.yaml", "name: a\ninput: {}\njudge: {criteria: x}\n")
    (p,) = [p for p in result.problems if p.code == "missing-key"]
    assert p.message == "Missing required field `prompt` in `input`."
    assert (p.span.start_line, p.span.start_col) == (1, 0)


def test_lookalikes_get_one_hint(tmp_path):
    for text in ('{"run_modes": []}', '{"version": "1.0.0", "description": "x"}'):
        result = validate_text(str(tmp_path / "evals" / "eval-config.json"), text)
        assert codes(result) == ["lookalike"] and result.problems[0].severity == Severity.HINT


def test_modeline_forces_format(tmp_path):
    text = "# evalens: format=uaaps-case\nname: Bad Name\n"
    result = validate_text(str(tmp_path / "anything.yaml"), text)
    assert result.format.id == "uaaps-case" and "schema-pattern" in codes(result)
    text = "# yaml-language-server: $schema=../schemas/uaaps-eval-case.schema.json\nname: ok\n"
    assert validate_text(str(tmp_path / "x.yaml"), text).format.id == "uaaps-case"


def test_helpers():
    assert kebab("My Case_Name") == "my-case-name"
    assert path_escape("a/../../b") and not path_escape("a/../b") and path_escape("C:\\x")
