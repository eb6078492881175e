"""skill-creator / agentskills.io evals.json, grading.json and trigger eval sets: every rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalens.core.formats.base import RuleContext
from evalens.core.formats.registry import detect
from evalens.core.problems import Severity
from tests.format_helpers import apply, check, codes, only


def write(root: Path, rel: str, data: Any) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2), encoding="utf-8")
    return path


def case(**over: Any) -> dict[str, Any]:
    data = {
        "id": 1,
        "prompt": "Extract every table from evals/files/report.pdf into one CSV per table",
        "expected_output": "One CSV per table with headers",
        "files": ["evals/files/report.pdf"],
        "assertions": ["Writes tables/table1.csv with the header row `Quarter,Revenue`"],
    }
    data.update(over)
    return {k: v for k, v in data.items() if v is not None}


def skill(tmp_path: Path, cases: list[dict[str, Any]], **top: Any) -> Path:
    write(tmp_path, "pdf/SKILL.md", "---\nname: pdf\ndescription: PDFs. Use for PDFs.\n---\nBody\n")
    write(tmp_path, "pdf/evals/files/report.pdf", "%PDF")
    return write(tmp_path, "pdf/evals/evals.json", {"skill_name": "pdf", "evals": cases, **top})


def test_valid(tmp_path: Path) -> None:
    v = check(
        skill(tmp_path, [case(), case(id=2, prompt="Extract only the first table of evals/files/report.pdf")])
    )
    assert v.format is not None and v.format.id == "skill-creator-evals"
    assert v.problems == []
    assert [c.name for c in v.format.cases(v.doc)] == ["1", "2"]  # type: ignore[arg-type]


def test_either_name_and_no_assertions_yet_are_fine(tmp_path: Path) -> None:
    """skill-creator's schemas.md says `expectations`, its SKILL.md `assertions`; and it says to save test cases
    before writing assertions ("Don't write assertions yet"). Extra keys of the repository's own are fine."""
    v = check(
        skill(
            tmp_path,
            [
                case(assertions=None, expectations=["Writes tables/table1.csv with a header row"]),
                case(
                    id=2,
                    prompt="Now only the totals row of evals/files/report.pdf",
                    assertions=None,
                    category="tables",
                    must_have=["csv"],
                ),
                case(
                    id=3,
                    prompt="And the footnotes of evals/files/report.pdf",
                    assertions=None,
                    expectations=[],
                ),
            ],
        )
    )
    assert v.problems == []


def test_both_names_in_one_case(tmp_path: Path) -> None:
    v = check(skill(tmp_path, [case(expectations=["Writes tables/table1.csv"])]))
    p = only(v, "both-check-keys")
    assert "use one name per case" in p.message and p.severity == Severity.WARNING


def test_near_miss_keys_get_did_you_mean(tmp_path: Path) -> None:
    v = check(skill(tmp_path, [case(assertions=None, assertion=["Writes tables/table1.csv"])]))
    p = only(v, "unknown-key")
    assert p.severity == Severity.WARNING and "did you mean `assertions`" in p.message
    assert p.fixes[0].edits[0].text == "assertions"


def test_mixed_names_across_cases_offers_both_directions(tmp_path: Path) -> None:
    path = skill(tmp_path, [case(), case(id=2, assertions=None, expectations=["Writes tables/table2.csv"])])
    p = only(check(path), "mixed-check-keys")
    assert [f.title for f in p.fixes] == [
        "Use `assertions` in every case",
        "Use `expectations` in every case",
    ]
    to_exp = apply(path.read_text(), p.fixes[1].edits)
    assert '"assertions"' not in to_exp


def test_object_assertion_fix_uses_description(tmp_path: Path) -> None:
    path = skill(
        tmp_path,
        [
            case(
                assertions=[
                    {
                        "name": "report",
                        "description": "report.md was created",
                        "check": "file_exists",
                        "path": "report.md",
                    }
                ]
            )
        ],
    )
    v = check(path)
    p = only(v, "object-assertion")
    assert "schema-type" not in codes(v) and p.severity == Severity.WARNING
    fixed = apply(path.read_text(), p.fixes[0].edits)
    assert json.loads(fixed)["evals"][0]["assertions"] == ["report.md was created"]


def test_object_assertions_are_one_diagnostic_with_one_fix(tmp_path: Path) -> None:
    """A house convention (`{name, description}` objects throughout) is one finding, not one per assertion."""
    objs = [{"name": f"a{j}", "description": f"The output names table{j}.csv"} for j in range(5)]
    path = skill(
        tmp_path,
        [
            case(assertions=objs),
            case(
                id=2,
                prompt="Only the 2nd table of evals/files/report.pdf",
                assertions=[*objs[:2], "表格写入 tables/表1.csv"],
            ),
        ],
    )
    v = check(path)
    p = only(v, "object-assertion")
    assert p.message.startswith("7 assertions are objects") and len(p.data["related"]) == 6
    fixed = json.loads(apply(path.read_text(), p.fixes[0].edits))
    assert fixed["evals"][1]["assertions"] == [
        "The output names table0.csv",
        "The output names table1.csv",
        "表格写入 tables/表1.csv",
    ]
    assert check(path, json.dumps(fixed)).problems == []


def test_repeated_findings_collapse_with_related_locations(tmp_path: Path) -> None:
    cases = [
        case(id=i, prompt=f"Extract table {i} of evals/files/report.pdf", expected_output=None)
        for i in range(6)
    ]
    v = check(skill(tmp_path, cases))
    p = only(v, "missing-expected-output")
    assert len(p.data["related"]) == 5 and "5 more like this" in p.message


def test_same_prompt_twice(tmp_path: Path) -> None:
    v = check(skill(tmp_path, [case(), case(id=2, assertions=["Writes only tables/table2.csv"])]))
    p = only(v, "duplicate-prompt")
    assert p.severity == Severity.HINT and "with different assertions" in p.message
    assert p.data["related"][0]["span"][0] == 5  # the first case's prompt
    v = check(skill(tmp_path, [case(), case(id=2)]))
    assert "counts twice" in only(v, "duplicate-prompt").message


def test_text_lints_any_language_and_slash_commands(tmp_path: Path) -> None:
    v = check(
        skill(
            tmp_path,
            [
                case(
                    prompt="/design-score https://example.com",
                    assertions=[
                        "优先使用 OpenReview API 而不是盲目网页搜索",
                        "输出包含作者和邮箱字段",
                        "Explains that the token is generated per session with the appropriate role",
                    ],
                ),
                case(id=2, prompt="设计一个登录页面", assertions=["Uses `role: viewer`"]),
            ],
        )
    )
    assert v.problems == []
    v = check(skill(tmp_path, [case(prompt="hi", files=None, assertions=["Works ✓ «好»"])]))
    assert set(codes(v)) == {"short-prompt"} or "vague-assertion" in codes(v)
    assert "\\u" not in " ".join(p.message for p in v.problems)


def test_ids(tmp_path: Path) -> None:
    v = check(skill(tmp_path, [case(), case()]))
    assert only(v, "duplicate-id").message.startswith("duplicate case ID `1`; first seen at $.evals[0].id")
    p = only(check(skill(tmp_path, [case(id="tables-to-csv")])), "string-id")
    assert p.severity == Severity.HINT  # a naming scheme; only strict validators mind


def test_files(tmp_path: Path) -> None:
    v = check(
        skill(
            tmp_path, [case(files=["evals/files/reprot.pdf", "../secret", "./evals/files/", {"path": "a"}])]
        )
    )
    missing = only(v, "file-missing")
    assert missing.message.startswith("file does not exist: evals/files/reprot.pdf")
    assert missing.fixes[0].edits[0].text == "evals/files/report.pdf"
    assert "path escapes skill root" in only(v, "path-escape").message
    assert only(v, "path-style").fixes[0].edits[0].text == "evals/files"
    assert "inline `{path, content}`" in only(v, "schema-type").message


def test_lints(tmp_path: Path) -> None:
    v = check(
        skill(
            tmp_path,
            [
                case(
                    prompt="Build me a thing.", assertions=["Works", "Is well written"], expected_output=None
                ),
                case(id=2, prompt="Summarise <FILE> for me"),
            ],
        )
    )
    (vague,) = [p for p in v.problems if p.code == "vague-assertion"]  # hints collapse from the second one
    assert vague.severity == Severity.HINT and len(vague.data["related"]) == 1
    assert {"abstract-prompt", "missing-expected-output", "placeholder"} <= set(codes(v))
    v = check(skill(tmp_path, [case(prompt="Search for 'TODO' comments across src/ and list their files")]))
    assert "placeholder" not in codes(v)


def test_skill_name_must_name_a_skill(tmp_path: Path) -> None:
    """`skill_name` resolves against SKILL.md names, not directory names; a name no SKILL.md carries is stale."""
    path = skill(tmp_path, [case()])
    data = json.loads(path.read_text())
    data["skill_name"] = "pdf-tools"
    p = only(check(path, json.dumps(data)), "unknown-skill")
    assert "names no skill" in p.message and p.fixes[0].edits[0].text == "pdf"
    write(tmp_path, "csv/SKILL.md", "---\nname: csv-tools\ndescription: CSV. Use for CSV.\n---\nBody\n")
    data["skill_name"] = "csv-tools"
    (tmp_path / ".git").mkdir()  # the repository: both skills are in it
    p = only(check(path, json.dumps(data)), "skill-name-mismatch")
    assert p.fixes[0].edits[0].text == "pdf"


def test_skill_name_at_plugin_root_resolves_against_every_skill(tmp_path: Path) -> None:
    write(tmp_path, ".claude-plugin/plugin.json", {"name": "kit"})
    write(
        tmp_path, "skills/pdf-dir/SKILL.md", "---\nname: pdf\ndescription: PDFs. Use for PDFs.\n---\nBody\n"
    )
    path = write(tmp_path, "evals/evals.json", {"skill_name": "pdf", "evals": [case(files=None)]})
    assert check(path).problems == []
    assert check(path, path.read_text().replace('"pdf"', '"pdf-dir"')).problems == []  # its folder name
    p = only(check(path, path.read_text().replace('"pdf"', '"pdf-old"')), "unknown-skill")
    assert [f.edits[0].text for f in p.fixes] == ["pdf"]


def test_completion_and_definition(tmp_path: Path) -> None:
    path = skill(tmp_path, [case()])
    v = check(path)
    ctx = RuleContext(str(path), None)
    assert v.format is not None and v.doc is not None
    assert "evals/files/report.pdf" in [
        c.value for c in v.format.value_choices(("evals", 0, "files", 0), ctx)
    ]
    assert [c.value for c in v.format.value_choices(("skill_name",), ctx)] == ["pdf"]
    target = v.format.definition(v.doc, ("evals", 0, "files", 0), "evals/files/report.pdf", ctx)
    assert target and target[0].path.endswith("report.pdf")


def test_grading(tmp_path: Path) -> None:
    data = {
        "expectations": [
            {"text": "a", "passed": True, "evidence": "e"},
            {"text": "b", "passed": False, "evidence": "e"},
        ],
        "summary": {"passed": 2, "failed": 0, "total": 2, "pass_rate": 1.0},
        "eval_feedback": {"suggestions": ["tighten b"], "overall": "ok"},
    }
    v = check(write(tmp_path, "run-1/grading.json", data))
    assert v.format is not None and v.format.id == "skill-creator-grading"
    mismatches = {
        p.data["path"][1]: p.fixes[0].edits[0].text for p in v.problems if p.code == "summary-mismatch"
    }
    assert mismatches == {"passed": "1", "failed": "1", "pass_rate": "0.5"}
    assert only(v, "suggestion-string").severity == Severity.WARNING
    renamed = {"assertion_results": data["expectations"], "summary": data["summary"]}
    p = only(check(write(tmp_path, "run-2/grading.json", renamed)), "missing-key")
    assert "assertion_results" in p.message and p.fixes[0].edits[0].text == "expectations"


def test_trigger_sets(tmp_path: Path) -> None:
    items = [
        {"query": "turn this pdf into csv", "should_trigger": True},
        {"query": "Turn this PDF into CSV", "should_trigger": False},
        {"query": "what's the weather", "should_trigger": False},
        {"query": "what's the weather", "should_trigger": False},
    ]
    v = check(write(tmp_path, "evals/trigger-eval.json", items))
    assert v.format is not None and v.format.id == "trigger-evals"
    assert {"conflicting-query", "duplicate-query"} <= set(codes(v))
    assert [c.name for c in v.format.cases(v.doc)] == ["*", "0", "1", "2", "3"]  # type: ignore[arg-type]
    one_sided = check(write(tmp_path, "evals/trigger-eval.json", items[:1]))
    assert "precision cannot be measured" in only(one_sided, "one-sided").message
    text = json.dumps(items[:1])
    assert (
        detect(str(tmp_path / "evals/queries.json"), text).format.id == "trigger-evals"
    )  # sniffed by content


def test_trigger_variant_converts(tmp_path: Path) -> None:
    data = {
        "skill_name": "pdf",
        "should_trigger": ["turn this pdf into csv"],
        "should_not_trigger": ["weather?"],
    }
    path = write(tmp_path, "evals/trigger-cases.json", data)
    v = check(path)
    assert v.format is not None and v.format.id == "trigger-evals-variant"
    fixed = apply(path.read_text(), only(v, "trigger-variant").fixes[0].edits)
    assert json.loads(fixed) == [
        {"query": "turn this pdf into csv", "should_trigger": True},
        {"query": "weather?", "should_trigger": False},
    ]
    assert check(path, fixed).format.id == "trigger-evals"


def test_hover_values(tmp_path: Path) -> None:
    path = skill(tmp_path, [case()])
    v = check(path)
    ctx = RuleContext(str(path), None)
    assert v.format is not None
    assert "PDFs. Use for PDFs." in (v.format.hover_value(("skill_name",), "pdf", ctx) or "")
    assert "4 bytes" in (v.format.hover_value(("evals", 0, "files", 0), "evals/files/report.pdf", ctx) or "")
    assert "does not exist" in (v.format.hover_value(("evals", 0, "files", 0), "nope.pdf", ctx) or "")


def test_variant_conflicting_query(tmp_path: Path) -> None:
    data = {"skill_name": "pdf", "should_trigger": ["same"], "should_not_trigger": ["same", "other"]}
    v = check(write(tmp_path, "evals/trigger-cases.json", data))
    assert only(v, "conflicting-query").span.start_line == 6


def test_benchmark_configuration_and_pass_rate_placement(tmp_path: Path) -> None:
    runs = [
        {
            "eval_id": 1,
            "configuration": "with_skill",
            "run_number": 1,
            "result": {"pass_rate": 1.0, "total": 2},
        },
        {"eval_id": 1, "configuration": "with_rule", "run_number": 1, "result": {"pass_rate": 0.5}},
        {"eval_id": 2, "configuration": "without_skill", "pass_rate": 0.5},
    ]
    v = check(
        write(tmp_path, "benchmarks/2026/benchmark.json", {"metadata": {"skill_name": "pdf"}, "runs": runs})
    )
    assert v.format is not None and v.format.id == "skill-creator-benchmark"
    messages = [p.message for p in v.problems if p.severity == Severity.ERROR]
    assert any("viewer shows empty values for any other name" in m for m in messages)
    assert any(m.startswith("runs[2] has `pass_rate` at the top level") for m in messages)
    ok = check(write(tmp_path, "benchmarks/2026/benchmark.json", {"metadata": {}, "runs": runs[:1]}))
    assert ok.problems == []


def test_short_prompt_that_names_its_data(tmp_path: Path) -> None:
    """A short prompt is a request with nothing to work on, unless it names its file (a path, a file name) or the
    case attaches input files ("Standard roast this" with `files`): then the hint's own advice is followed."""
    bare = case(prompt="Roast this", files=None)
    assert "short-prompt" in codes(check(skill(tmp_path, [bare])))
    for named in ("tighten up ./docs/api.md", "fix evals/files/report.pdf", "summarise `notes`"):
        assert "short-prompt" not in codes(check(skill(tmp_path, [case(prompt=named, files=None)]))), named
    assert "short-prompt" not in codes(check(skill(tmp_path, [case(prompt="Roast this")])))  # files attached


def test_assertion_naming_what_the_input_uses(tmp_path: Path) -> None:
    """A short vague-sounding assertion that names a name the case's input file uses in code ("the bcrypt usage"
    of a file that calls `bcrypt.hash`) gives the grader something to find; a word only in its comments does not."""
    write(
        tmp_path, "pdf/evals/files/auth.js", "// handles errors right\nconst h = await bcrypt.hash(pw, 10);\n"
    )
    names = case(
        files=["evals/files/auth.js"], assertions=["Acknowledges the bcrypt usage as something done right"]
    )
    assert "vague-assertion" not in codes(check(skill(tmp_path, [names])))
    vague = case(files=["evals/files/auth.js"], assertions=["Handles errors right"])
    assert "vague-assertion" in codes(check(skill(tmp_path, [vague])))
    nothing = case(files=None, assertions=["Acknowledges the bcrypt usage as something done right"])
    assert "vague-assertion" in codes(check(skill(tmp_path, [nothing])))


def test_files_resolve_from_the_skill_root(tmp_path: Path) -> None:
    """skill-creator's schemas.md: `files` are relative to the skill root. A path that resolves only from the
    evals folder is missing there; the message says where it exists and offers the path from the skill root."""
    write(tmp_path, "pdf/evals/files/other.pdf", "%PDF")
    v = check(skill(tmp_path, [case(files=["files/other.pdf"])]))
    missing = only(v, "file-missing")
    assert "relative to the skill root pdf/" in missing.message
    assert "exists relative to the evals folder" in missing.message
    assert missing.fixes[0].edits[0].text == "evals/files/other.pdf"


def test_files_message_from_a_relative_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`evalens validate some/dir` passes relative paths: the roots it compares against are absolute, and the
    message and the fix must come out the same."""
    write(tmp_path, "plug/.claude-plugin/plugin.json", {"name": "plug"})
    write(
        tmp_path, "plug/skills/pdf/SKILL.md", "---\nname: pdf\ndescription: PDFs. Use for PDFs.\n---\nBody\n"
    )
    write(tmp_path, "plug/evals/files/other.pdf", "%PDF")
    evals = write(
        tmp_path, "plug/evals/evals.json", {"skill_name": "pdf", "evals": [case(files=["files/other.pdf"])]}
    )
    monkeypatch.chdir(tmp_path)
    missing = only(check(evals.relative_to(tmp_path)), "file-missing")
    assert "relative to the skill root plug/skills/pdf/" in missing.message
    assert "(plug/evals/files/other.pdf)" in missing.message
    assert missing.fixes[0].edits[0].text == "evals/files/other.pdf"  # from the plugin root, which is read


def test_skill_name_mismatch_names_the_folder_from_inside_the_skill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Validating `evals/evals.json` from inside a skill whose SKILL.md has no `name` (Claude Code names it by its
    folder): the message names the folder, never an empty name."""
    write(tmp_path, "pdf/SKILL.md", "---\ndescription: PDFs. Use for PDFs.\n---\nBody\n")
    write(tmp_path, "other/SKILL.md", "---\nname: other\ndescription: Other.\n---\nBody\n")
    write(tmp_path, "LICENSE", "MIT")
    write(tmp_path, "pdf/evals/evals.json", {"skill_name": "other", "evals": [case(files=None)]})
    monkeypatch.chdir(tmp_path / "pdf")
    p = only(check(Path("evals/evals.json")), "skill-name-mismatch")
    assert p.message.endswith("the skill's SKILL.md is named `pdf`.")
