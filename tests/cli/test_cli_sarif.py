"""``evalens.cli.sarif.to_sarif`` called directly: the CLI tests (test_ci_outputs.py) see only what one real
validation happens to produce, so the paths it rarely takes are pinned here — a result reached twice kept once,
identical problems told apart by their occurrence, an end column before the start clamped, related locations,
a code the catalog lacks, the severities' levels, and a file that cannot be read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalens.cli.sarif import LEVELS, to_sarif
from evalens.core.rules import rule_for
from tests.ci_helpers import validate_sarif


def _record(path: Path, code: str = "unknown-key", line: int = 1, **extra: Any) -> dict[str, Any]:
    return {
        "path": str(path),
        "line": line,
        "column": 1,
        "endLine": line,
        "endColumn": 5,
        "severity": "error",
        "code": code,
        "message": f"problem {code}",
        **extra,
    }


def _run(log: dict[str, Any]) -> dict[str, Any]:
    (run,) = log["runs"]
    return run


def test_a_result_reached_twice_is_listed_once_and_the_rules_follow_first_use(tmp_path: Path) -> None:
    f = tmp_path / "a.yaml"
    f.write_text("name: a\npromt: hi\n")
    records = [_record(f, "unknown-key", 2), _record(f, "syntax", 1), _record(f, "unknown-key", 2)]
    log = to_sarif(records, [str(f), str(f)], root=tmp_path)
    validate_sarif(log)
    run = _run(log)
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["unknown-key", "syntax"]
    assert [(r["ruleId"], r["ruleIndex"]) for r in run["results"]] == [("unknown-key", 0), ("syntax", 1)]
    assert run["artifacts"] == [{"location": {"uri": "a.yaml", "uriBaseId": "%SRCROOT%"}}]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.resolve().as_uri() + "/"


def test_identical_problems_on_identical_lines_get_distinct_occurrences(tmp_path: Path) -> None:
    f = tmp_path / "a.yaml"
    f.write_text("x: 1\nx: 1\nother: 2\n")
    # the same rule and message on two lines with the same text: one fingerprint, two occurrences
    log = to_sarif([_record(f, line=1), _record(f, line=2), _record(f, line=3)], [str(f)], root=tmp_path)
    prints = [r["partialFingerprints"]["evalensProblem/v1"] for r in _run(log)["results"]]
    first, second, third = (p.split(":") for p in prints)
    assert first[0] == second[0] and (first[1], second[1]) == ("1", "2")
    assert third[0] != first[0] and third[1] == "1"


def test_fingerprint_follows_the_line_text_not_its_number(tmp_path: Path) -> None:
    f = tmp_path / "a.yaml"
    f.write_text("promt: hi\n")
    before = _run(to_sarif([_record(f, line=1)], [str(f)], root=tmp_path))["results"][0]
    f.write_text("# moved\n\npromt: hi\n")
    after = _run(to_sarif([_record(f, line=3)], [str(f)], root=tmp_path))["results"][0]
    assert before["partialFingerprints"] == after["partialFingerprints"]
    f.write_text("promt: bye\n")
    changed = _run(to_sarif([_record(f, line=1)], [str(f)], root=tmp_path))["results"][0]
    assert changed["partialFingerprints"] != before["partialFingerprints"]


def test_an_unreadable_or_short_file_still_gets_a_fingerprint(tmp_path: Path) -> None:
    gone = tmp_path / "gone.yaml"
    short = tmp_path / "short.yaml"
    short.write_text("one line\n")
    log = to_sarif([_record(gone, line=1), _record(short, line=9)], [], root=tmp_path)
    validate_sarif(log)
    prints = [r["partialFingerprints"]["evalensProblem/v1"] for r in _run(log)["results"]]
    assert all(len(p.split(":")[0]) == 32 for p in prints)
    assert _run(log)["artifacts"] == []


def test_end_column_is_clamped_on_one_line_but_not_across_lines(tmp_path: Path) -> None:
    f = tmp_path / "a.yaml"
    f.write_text("abcdefgh\nxy\n")
    one_line = _record(f, line=1, column=6, endColumn=2)
    two_lines = _record(f, code="syntax", line=1, column=6, endLine=2, endColumn=0)
    log = to_sarif([one_line, two_lines], [str(f)], root=tmp_path)
    validate_sarif(log)
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in _run(log)["results"]]
    assert regions[0] == {"startLine": 1, "startColumn": 6, "endLine": 1, "endColumn": 6}
    assert regions[1] == {"startLine": 1, "startColumn": 6, "endLine": 2, "endColumn": 1}


def test_related_locations_are_numbered_in_the_same_file(tmp_path: Path) -> None:
    f = tmp_path / "a.yaml"
    f.write_text("id: a\nid: a\n")
    rec = _record(
        f,
        code="duplicate-key",
        line=2,
        related=[{"line": 1, "column": 1, "message": "first here"}, {"line": 1, "column": 3, "message": "x"}],
    )
    log = to_sarif([rec, _record(f, line=1)], [str(f)], root=tmp_path)
    validate_sarif(log)
    with_related, plain = _run(log)["results"]
    assert "relatedLocations" not in plain
    related = with_related["relatedLocations"]
    assert [r["id"] for r in related] == [1, 2]
    assert related[0]["message"] == {"text": "first here"}
    assert related[1]["physicalLocation"] == {
        "artifactLocation": {"uri": "a.yaml", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 1, "startColumn": 3},
    }


def test_descriptors_come_from_the_catalog_and_unknown_codes_get_a_bare_one(tmp_path: Path) -> None:
    f = tmp_path / "a.yaml"
    f.write_text("x\n")
    log = to_sarif(
        [_record(f, "unknown-key"), _record(f, "schema-notAKeyword"), _record(f, "no-such-rule-xyz")],
        [str(f)],
        root=tmp_path,
    )
    validate_sarif(log)
    known, schema, unknown = _run(log)["tool"]["driver"]["rules"]
    rule = rule_for("unknown-key")
    assert rule is not None
    assert known["name"] == "UnknownKey"
    assert known["shortDescription"] == {"text": rule.title}
    assert known["helpUri"] == rule.url and known["properties"] == {"tags": [rule.area]}
    assert known["help"]["text"].startswith(rule.checks.strip()) and "\n\nFix: " in known["help"]["text"]
    assert known["help"]["markdown"].endswith(f"[Rule documentation]({rule.url})")
    # a schema keyword the catalog has no entry for is documented by the schema family
    family = rule_for("schema")
    assert family is not None
    assert schema["id"] == "schema-notAKeyword" and schema["shortDescription"] == {"text": family.title}
    assert schema["name"] == "SchemaNotakeyword"
    assert unknown == {"id": "no-such-rule-xyz", "shortDescription": {"text": "no-such-rule-xyz"}}


def test_severities_map_to_sarif_levels(tmp_path: Path) -> None:
    f = tmp_path / "a.yaml"
    f.write_text("x\n")
    severities = ["error", "warning", "info", "information", "hint", "bogus"]
    records = [_record(f, line=1, severity=s, message=s) for s in severities]
    log = to_sarif(records, [str(f)], root=tmp_path)
    validate_sarif(log)
    assert [r["level"] for r in _run(log)["results"]] == ["error", "warning", "note", "note", "note", "note"]
    assert set(LEVELS.values()) <= {"error", "warning", "note"}


def test_a_file_outside_the_root_has_an_absolute_uri_and_no_base(tmp_path: Path) -> None:
    root, outside = tmp_path / "repo", tmp_path / "elsewhere"
    root.mkdir()
    outside.mkdir()
    inside = root / "sub" / "b.yaml"
    inside.parent.mkdir()
    inside.write_text("x\n")
    far = outside / "a.yaml"
    far.write_text("x\n")
    log = to_sarif([_record(far), _record(inside)], [str(far), str(inside)], root=root)
    validate_sarif(log)
    run = _run(log)
    assert run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": far.resolve().as_uri()
    }
    assert [a["location"] for a in run["artifacts"]] == [
        {"uri": far.resolve().as_uri()},
        {"uri": "sub/b.yaml", "uriBaseId": "%SRCROOT%"},
    ]


def test_no_problems_is_still_a_valid_log_with_its_artifacts(tmp_path: Path) -> None:
    f = tmp_path / "ok.yaml"
    f.write_text("fine: true\n")
    link = tmp_path / "link.yaml"
    link.symlink_to(f)
    log = to_sarif([], [str(f), str(link)], root=tmp_path)
    validate_sarif(log)
    run = _run(log)
    assert run["results"] == [] and run["tool"]["driver"]["rules"] == []
    assert run["artifacts"] == [{"location": {"uri": "ok.yaml", "uriBaseId": "%SRCROOT%"}}]
    assert run["columnKind"] == "unicodeCodePoints"
