"""``evalens.core.formats.skill_creator`` called directly: its helpers (template slots, case shapes, object-form
assertion text, the drafted assertions of a workspace, how folders are shown, the layouts aggregate_benchmark.py
does not read), each format's ``sniff`` / ``detect``, and the ranges and severities of the rules' diagnostics.
The rule-by-rule behaviour through ``validate_text`` is in ``test_formats_skill_creator.py``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalens.core.documents import parse
from evalens.core.formats import skill_creator as sc
from evalens.core.formats.base import Match, RuleContext
from evalens.core.problems import Severity
from tests.format_helpers import apply, check

EVALS = sc.SkillCreatorEvals()
GRADING = sc.SkillCreatorGrading()
BENCHMARK = sc.SkillCreatorBenchmark()
METADATA = sc.SkillCreatorEvalMetadata()
GRADED = {"expectations": [{"text": "a", "passed": True, "evidence": "e"}]}


def write(root: Path, rel: str, data: Any) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2), encoding="utf-8")
    return path


def rules(fmt: Any, path: Path) -> list:
    return fmt.rules(parse(path.read_text(encoding="utf-8"), "json"), RuleContext(str(path), None))


def line_of(path: Path, needle: str, nth: int = 0) -> int:
    hits = [i for i, line in enumerate(path.read_text(encoding="utf-8").split("\n")) if needle in line]
    return hits[nth]


# ------------------------------------------------------------------------------------------- helpers


def test_placeholder_pattern_takes_slots_not_pascal_case_words() -> None:
    prompt = "Use <FILE>, <File name>, <YOUR_NAME> with <Static> and <Box>; TODO, TBD, XXX; a TODOs list"
    assert [m.group() for m in sc._PLACEHOLDER.finditer(prompt)] == [
        "<FILE>",
        "<File name>",
        "<YOUR_NAME>",
        "TODO",
        "TBD",
        "XXX",
    ]


def test_quoted_needs_the_same_quote_on_both_sides() -> None:
    text = "find 'TODO' and \"TBD' and `XXX`"
    spans = {m.group(): (m.start(), m.end()) for m in sc._PLACEHOLDER.finditer(text)}
    assert sc._quoted(text, *spans["TODO"])
    assert not sc._quoted(text, *spans["TBD"])  # opened with " and closed with '
    assert sc._quoted(text, *spans["XXX"])
    assert not sc._quoted("TODO", 0, 4)  # at the edges of the text: nothing around it


def test_case_shapes() -> None:
    assert sc._case_like([{"prompt": "p", "expected_output": "e"}])
    assert sc._case_like(["x", {"prompt": "p", "assertions": []}])
    assert not sc._case_like([{"prompt": "p"}])  # a prompt with nothing to check
    assert not sc._case_like([{"expected_output": "e"}])
    # another runner's cases: a foreign id key and no `id`, or every check an object
    assert sc._own_runner_cases([{"eval_id": 1, "prompt": "p", "expected_output": "e"}])
    assert not sc._own_runner_cases([{"id": 1, "eval_id": 1, "prompt": "p"}])
    assert sc._own_runner_cases([{"id": 1, "assertions": [{"check": "a"}], "expectations": [{"c": 1}]}])
    assert not sc._own_runner_cases([{"id": 1, "assertions": [{"check": "a"}, "a sentence"]}])
    assert not sc._own_runner_cases([])


def test_object_assertion_text_prefers_the_statement() -> None:
    assert sc._text_key({"name": "n", "description": "d"}) == "description"
    assert sc._text_key({"description": "   ", "text": "t"}) == "text"  # blank does not count
    assert sc._text_key({"check": 3, "id": "only-id"}) == "id"
    assert sc._text_key({"weight": 1}) is None
    assert sc._object_text({"name": "  report  "}) == "report"
    assert sc._object_text({"weight": 1, "é": True}) == '{"weight": 1, "é": true}'  # no \\u escapes


def test_file_entry_is_a_safe_path_of_a_case_file() -> None:
    assert sc._file_entry(("evals", 0, "files", 1), "evals/files/a.pdf")
    assert not sc._file_entry(("evals", 0, "files", 1), "../a.pdf")
    assert not sc._file_entry(("evals", 0, "files", 1), 7)
    assert not sc._file_entry(("evals", 0, "files"), "a.pdf")
    assert not sc._file_entry(("evals", 0, "prompt", 1), "a.pdf")


def test_shown_and_from_a_root(tmp_path: Path) -> None:
    (tmp_path / "docs/skills/x").mkdir(parents=True)
    skills = tmp_path / "docs/skills"
    assert sc._shown(skills / "x", skills) == "skills/x/"  # from the folder above the shared one
    assert sc._shown(skills / "x" / "f.md", skills) == "skills/x/f.md"  # not a folder: no slash
    roots = [tmp_path / "elsewhere", skills]
    assert sc._from_a_root(skills / "x" / "a.pdf", roots) == "x/a.pdf"
    assert sc._from_a_root(tmp_path / "a.pdf", roots) is None


def test_workspace_assertions_inside_and_beside_the_skill(tmp_path: Path) -> None:
    root = tmp_path / "pdf"
    inside = write(root, "iteration-1/eval-1/eval_metadata.json", {"eval_id": 1, "assertions": ["a"]})
    write(root, "iteration-2/eval-1/eval_metadata.json", {"eval_id": 1, "assertions": ["a", "b", "c"]})
    write(
        tmp_path,
        "pdf-workspace/iteration-1/eval-x/eval_metadata.json",
        {"eval_id": "two", "assertions": ["a"]},
    )
    write(root, "iteration-1/eval-3/eval_metadata.json", {"eval_id": 3, "assertions": []})  # none drafted
    write(root, "iteration-1/eval-4/eval_metadata.json", {"eval_id": True, "assertions": ["a"]})
    write(root, "iteration-1/eval-5/eval_metadata.json", "{not json")
    write(root, "iteration-1/eval-6/eval_metadata.json", ["a"])
    write(root, "iteration-1/other/eval_metadata.json", {"eval_id": 7, "assertions": ["a"]})  # not eval-*
    found = sc._workspace_assertions(root)
    assert found == {
        "1": (1, inside),  # the first iteration's draft is kept
        "two": (1, tmp_path / "pdf-workspace/iteration-1/eval-x/eval_metadata.json"),
    }
    assert sc._workspace_assertions(root, limit=1) == {"1": (1, inside)}
    assert sc._workspace_assertions(tmp_path / "missing") == {}


def test_case_input_terms_read_a_bounded_number_of_files(tmp_path: Path) -> None:
    for k in range(10):
        write(tmp_path, f"in/f{k}.js", f"call_{k}(x);\n")
    files = [f"in/f{k}.js" for k in range(10)]
    terms = sc._case_input_terms({"files": ["../up.js", 3, "", "in/missing.js", *files]}, tmp_path)
    assert {"call_0", "call_3"} <= terms
    assert "call_9" not in terms  # the 9th and later entries of the list are not read
    assert sc._case_input_terms({"files": "in/f0.js"}, tmp_path) == frozenset()


# ------------------------------------------------------------------------------------------- evals.json


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (None, Match.YES),  # an empty file being written
        ({}, Match.YES),
        ({"evals": []}, Match.YES),
        ({"skill_name": "pdf", "evals": []}, Match.YES),
        ({"evals": [{"prompt": "p", "expected_output": "e"}]}, Match.YES),
        ({"evals": [{"eval_id": 1, "prompt": "p", "expected_output": "e"}]}, Match.LOOKALIKE),
        ({"skill_name": "pdf", "evals": "broken"}, Match.YES),
        ({"evals": [{"query": "q"}]}, Match.NO),
        ({"name": "x"}, Match.NO),
        ([{"prompt": "p", "assertions": []}], Match.LOOKALIKE),
        ([1, 2], Match.NO),
    ],
)
def test_evals_detect_at_its_name(data: Any, match: Match) -> None:
    assert EVALS.detect("pdf/evals/evals.json", data) is match


def test_evals_under_another_name_must_be_its_cases() -> None:
    assert EVALS.sniff("pdf/evals/evals.v2.json", '  {"skill_name": "pdf", "evals": []}')
    assert not EVALS.sniff("pdf/evals/evals.v2.yaml", '{"skill_name": "pdf", "evals": []}')
    assert not EVALS.sniff("pdf/evals/evals.v2.json", '{"evals": []}')
    assert EVALS.detect("evals-old.json", {"evals": [{"prompt": "p"}]}) is Match.YES
    assert EVALS.detect("evals-old.json", {"evals": []}) is Match.NO
    assert EVALS.detect("evals-old.json", {"evals": [{"prompt": "p"}, {"query": "q"}]}) is Match.NO
    assert EVALS.detect("evals-old.json", None) is Match.NO


def _skill(tmp_path: Path, data: dict[str, Any]) -> Path:
    write(tmp_path, "pdf/SKILL.md", "---\nname: pdf\ndescription: PDFs. Use for PDFs.\n---\nBody\n")
    return write(tmp_path, "pdf/evals/evals.json", data)


def _case(i: int, **over: Any) -> dict[str, Any]:
    data = {
        "id": i,
        "prompt": f"Extract table {i} of the quarterly report into one CSV file with its header row",
        "expected_output": "A CSV with the header row",
        "assertions": [f"Writes tables/table{i}.csv with the header `Quarter,Revenue`"],
    }
    data.update(over)
    return {k: v for k, v in data.items() if v is not None}


def test_rule_ranges_and_severities(tmp_path: Path) -> None:
    path = _skill(
        tmp_path,
        {
            "skill_name": "pdf",
            "evals": [
                _case(1, expectations=["Writes tables/table1.csv"]),
                _case(1, prompt="Extract table 9 of the annual report into a CSV with its header row"),
            ],
        },
    )
    found = {p.code: p for p in rules(EVALS, path)}
    assert set(found) == {"both-check-keys", "duplicate-id", "mixed-check-keys"}
    both = found["both-check-keys"]
    assert both.severity is Severity.WARNING
    line = line_of(path, '"assertions"')
    assert (both.span.start_line, both.span.end_line) == (line, line)  # on the key, not the whole list
    assert both.span.end_col - both.span.start_col == len('"assertions"')
    dup = found["duplicate-id"]
    assert dup.severity is Severity.ERROR and dup.data == {"path": ["evals", 1, "id"]}
    second = line_of(path, '"id": 1', 1)
    assert (dup.span.start_line, dup.span.end_col - dup.span.start_col) == (second, 1)  # the value `1`
    first = line_of(path, '"id": 1')
    assert f"(line {first + 1})" in dup.message
    mixed = found["mixed-check-keys"]
    assert mixed.span.start_line == line_of(path, '"evals"') and mixed.severity is Severity.WARNING
    assert "(evals 0) and `assertions` (evals 0, 1)" in mixed.message


def test_refine_makes_a_missing_skill_name_a_warning(tmp_path: Path) -> None:
    path = _skill(tmp_path, {"evals": [_case(1)]})
    (p,) = check(path).problems
    assert (p.code, p.severity, p.data["missing"]) == ("missing-key", Severity.WARNING, "skill_name")


def test_refine_keeps_object_assertions_out_of_schema_errors(tmp_path: Path) -> None:
    path = _skill(
        tmp_path, {"skill_name": "pdf", "evals": [_case(1, assertions=[{"check": "writes a csv"}])]}
    )
    v = check(path)
    assert [p.code for p in v.problems] == ["object-assertion"]
    (p,) = v.problems
    assert p.span.start_line == line_of(path, '"check"') - 1  # the object, from its `{`
    assert "Convert it to strings (their check)" == p.fixes[0].title
    assert json.loads(apply(path.read_text(), p.fixes[0].edits))["evals"][0]["assertions"] == ["writes a csv"]


def test_a_non_string_assertion_is_an_error_on_its_value(tmp_path: Path) -> None:
    path = _skill(tmp_path, {"skill_name": "pdf", "evals": [_case(1, assertions=[42])]})
    (p,) = rules(EVALS, path)
    assert (p.code, p.severity, p.message) == (
        "schema-type",
        Severity.ERROR,
        "`evals[0].assertions[0]` must be a string.",
    )
    assert p.span.start_line == line_of(path, "42")


def test_drafted_assertions_in_the_workspace_are_missing_from_the_evals(tmp_path: Path) -> None:
    path = _skill(
        tmp_path,
        {
            "skill_name": "pdf",
            "evals": [_case(1, assertions=None), _case(2, assertions=[]), _case(3, assertions=None)],
        },
    )
    write(tmp_path, "pdf/iteration-1/eval-1/eval_metadata.json", {"eval_id": 1, "assertions": ["a", "b"]})
    write(tmp_path, "pdf/iteration-1/eval-2/eval_metadata.json", {"eval_id": "2", "assertions": ["a"]})
    found = [p for p in rules(EVALS, path) if p.code == "missing-assertions"]
    assert [p.data["path"] for p in found] == [["evals", 0], ["evals", 1]]  # case 3 has no draft
    assert found[0].severity is Severity.WARNING
    assert (
        "grades 2 for it (`iteration-1/eval-1/eval_metadata.json`)" in found[0].message
    )  # relative to the skill
    assert found[0].span.start_line == line_of(path, '"id": 1') - 1  # the case's `{`


def test_placeholder_inside_quotes_is_talked_about(tmp_path: Path) -> None:
    prompts = [
        "Fill in <YOUR_NAME> in the contract template under docs/contract.md",
        "List every `TODO` comment in src/ with its file and line number",
        "Render the <Static> component of src/app.tsx without the <Box> wrapper",
    ]
    path = _skill(
        tmp_path, {"skill_name": "pdf", "evals": [_case(i, prompt=p) for i, p in enumerate(prompts)]}
    )
    found = [p for p in rules(EVALS, path) if p.code == "placeholder"]
    assert [(p.data["path"], p.severity) for p in found] == [(["evals", 0, "prompt"], Severity.WARNING)]
    assert found[0].message == "The prompt still contains the placeholder `<YOUR_NAME>`."


def test_abstract_prompt_wins_over_short(tmp_path: Path) -> None:
    path = _skill(tmp_path, {"skill_name": "pdf", "evals": [_case(1, prompt="Build me a website")]})
    assert [(p.code, p.severity) for p in rules(EVALS, path)] == [("abstract-prompt", Severity.HINT)]


def test_skeleton_is_flagged_only_for_its_placeholders(tmp_path: Path) -> None:
    """A new file from the skeleton must not run as is: its assertion is the placeholder evalens refuses to
    judge, and its `skill_name` names no skill; nothing else in it is a problem."""
    text = EVALS.skeleton(snippets=False)
    assert text is not None and text.endswith("\n")
    data = json.loads(text)
    path = _skill(tmp_path, data)
    assert sorted(p.code for p in check(path).problems) == ["skeleton-placeholder", "unknown-skill"]
    data["skill_name"] = "pdf"
    (p,) = check(path, json.dumps(data, indent=2)).problems
    assert (p.code, p.severity) == ("skeleton-placeholder", Severity.ERROR)
    data["evals"][0]["assertions"] = ["Writes output/report.md with a `## Summary` heading"]
    assert check(path, json.dumps(data, indent=2)).problems == []


def test_value_choices_and_definition_off_the_known_paths(tmp_path: Path) -> None:
    path = _skill(tmp_path, {"skill_name": "pdf", "evals": [_case(1)]})
    ctx = RuleContext(str(path), None)
    doc = parse(path.read_text(), "json")
    assert EVALS.value_choices(("evals", 0, "prompt"), ctx) == []
    assert [c.value for c in EVALS.value_choices(("evals", 0, "files", 0), ctx)] == ["SKILL.md"]
    assert EVALS.definition(doc, ("skill_name",), "pdf", ctx)[0].path == str(tmp_path / "pdf/SKILL.md")
    assert EVALS.definition(doc, ("evals", 0, "files", 0), "nope.pdf", ctx) == []
    assert EVALS.hover_value(("evals", 0, "prompt"), "x", ctx) is None
    (tmp_path / "pdf/evals/files").mkdir()
    assert "a folder" in (EVALS.hover_value(("evals", 0, "files", 0), "evals/files", ctx) or "")


# ------------------------------------------------------------------------------------------- grading.json


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"expectations": []}, Match.YES),
        ({"assertion_results": [{"text": "a"}]}, Match.YES),
        ({"assertions": [{"passed": True}]}, Match.YES),
        ({"assertions": [{"criterion": "c"}]}, Match.NO),
        ({"summary": {"pass_rate": 1}}, Match.YES),
        ({"summary": {}}, Match.NO),
        ([], Match.NO),
    ],
)
def test_grading_detect(data: Any, match: Match) -> None:
    assert GRADING.detect("run-1/grading.json", data) is match


def test_grading_keys_read_elsewhere_are_one_finding(tmp_path: Path) -> None:
    data = {**GRADED, "pass_rate": 1.0, "passed": 1, "notes": "n", "run_id": "r-1"}
    path = write(tmp_path, "run-1/grading.json", data)
    v = check(path)
    (missing,) = [p for p in v.problems if p.code == "missing-key"]
    assert missing.severity is Severity.ERROR and missing.data["missing"] == "summary"
    (p,) = [p for p in v.problems if p.code == "unknown-key"]  # `run_id` is the run's own bookkeeping
    assert p.severity is Severity.WARNING and p.span.start_line == line_of(path, '"pass_rate"')
    assert p.message.startswith("Top-level `pass_rate` is ignored") and "`summary.pass_rate`" in p.message
    related = p.data["related"]
    assert [r["span"][0] for r in related] == [line_of(path, '"passed": 1'), line_of(path, '"notes"')]
    assert "read `user_notes_summary`" in related[1]["message"]
    # beside a real `summary` the same keys are harmless
    ok = {**GRADED, "summary": {"passed": 1, "failed": 0, "total": 1, "pass_rate": 1.0}, "pass_rate": 1.0}
    assert check(write(tmp_path, "run-2/grading.json", ok)).problems == []


def test_grading_summary_arithmetic(tmp_path: Path) -> None:
    three = [{"text": t, "passed": t != "c", "evidence": "e"} for t in "abc"]
    ok = {"expectations": three, "summary": {"passed": 2, "failed": 1, "total": 3, "pass_rate": 0.67}}
    assert rules(GRADING, write(tmp_path, "a/grading.json", ok)) == []  # rounded to two places
    off = {"expectations": three, "summary": {"passed": 2, "failed": 1, "total": 3, "pass_rate": 0.7}}
    (p,) = rules(GRADING, path := write(tmp_path, "b/grading.json", off))
    assert (p.code, p.severity, p.fixes[0].edits[0].text) == ("summary-mismatch", Severity.WARNING, "0.67")
    assert p.span.start_line == line_of(path, '"pass_rate"')
    empty = {"expectations": [], "summary": {"passed": 0, "failed": 0, "total": 0, "pass_rate": 0.5}}
    (p,) = rules(GRADING, write(tmp_path, "c/grading.json", empty))
    assert p.message == "`summary.pass_rate` is 0.5 but `expectations` give 0.0."
    typed = {"expectations": three, "summary": {"passed": "2", "failed": True, "total": 3}}
    assert rules(GRADING, write(tmp_path, "d/grading.json", typed)) == []  # the schema's to report
    assert rules(GRADING, write(tmp_path, "e/grading.json", {"expectations": three})) == []


# ------------------------------------------------------------------------------------------- benchmark.json


def test_benchmark_sniff_and_detect() -> None:
    assert BENCHMARK.sniff("benchmark-v2.json", ' {"run_summary": {"with_skill": {}}}')
    assert BENCHMARK.sniff("b.json", '{"runs": [{"configuration": "without_skill"}]}')
    assert not BENCHMARK.sniff("b.json", '{"runs": [{"configuration": "other"}]}')  # no arm names
    assert not BENCHMARK.sniff("b.json", '{"with_skill": 1, "runs": []}')
    assert not BENCHMARK.sniff("b.yaml", '{"run_summary": {"with_skill": {}}}')
    assert BENCHMARK.detect("", {"runs": [{"configuration": "with_skill"}]}) is Match.YES
    assert BENCHMARK.detect("", {"runs": [{"score": 1}]}) is Match.NO
    assert BENCHMARK.detect("", {"runs": [], "run_summary": {"without_skill": {"pass_rate": 1}}}) is Match.YES
    assert BENCHMARK.detect("", {"run_summary": {"with_skill": {}}}) is Match.NO
    assert BENCHMARK.detect("", {"runs": ["x"]}) is Match.NO
    assert BENCHMARK.detect("", []) is Match.NO


# ------------------------------------------------------------------------------------------- workspaces


def test_unread_layouts(tmp_path: Path) -> None:
    (tmp_path / "it0/eval-1/with_skill").mkdir(parents=True)
    assert sc._unread_layout(tmp_path / "it0/eval-1") is None  # nothing graded yet
    write(tmp_path, "it1/eval-1/with_skill/run-1/grading.json", GRADED)
    write(tmp_path, "it1/eval-2/without_skill/grading.json", GRADED)  # the single-run layout
    assert sc._unread_layout(tmp_path / "it1/eval-1") is None
    assert sc._unread_layout(tmp_path / "it1/eval-2") is None
    write(tmp_path, "it2/case-a/with_skill/grading.json", GRADED)
    assert "in `it2/`: `case-a/` is not read" in (sc._unread_layout(tmp_path / "it2/case-a") or "")
    write(tmp_path, "it3/runs/eval-1/with_skill/grading.json", GRADED)
    write(tmp_path, "it3/eval-2/with_skill/grading.json", GRADED)
    beside = sc._unread_layout(tmp_path / "it3/eval-2") or ""
    assert "`it3/runs/` (it exists, so the folders beside it are not read): `eval-2/`" in beside
    assert sc._unread_layout(tmp_path / "it3/runs/eval-1") is None
    write(tmp_path, "it4/eval-1/run-1/grading.json", GRADED)
    write(tmp_path, "it4/eval-1/run-2/grading.json", GRADED)
    assert (sc._unread_layout(tmp_path / "it4/eval-1") or "").startswith("`run-1/`, `run-2/` sit directly")
    write(tmp_path, "it5/eval-1/with_skill/run-1/outputs/grading.json", GRADED)
    assert (sc._unread_layout(tmp_path / "it5/eval-1") or "").startswith(
        "`with_skill/run-1/outputs/grading.json` is not where"
    )
    write(tmp_path, "it6/eval-1/with_skill/outputs/grading.json", GRADED)
    assert (sc._unread_layout(tmp_path / "it6/eval-1") or "").startswith("`with_skill/outputs/grading.json`")


def test_gradings_look_three_levels_down(tmp_path: Path) -> None:
    for rel in ("grading.json", "a/grading.json", "a/b/grading.json", "a/b/c/grading.json"):
        write(tmp_path, rel, GRADED)
    found = [g.relative_to(tmp_path).as_posix() for g in sc._gradings(tmp_path)]
    assert found == ["a/b/grading.json", "a/grading.json", "grading.json"]


def test_eval_metadata_detect() -> None:
    assert METADATA.detect("", {"eval_id": 1}) is Match.YES
    assert METADATA.detect("", {"assertions": []}) is Match.YES
    assert METADATA.detect("", {"prompt": "p"}) is Match.NO
    assert METADATA.detect("", [{"eval_id": 1}]) is Match.NO


def test_eval_metadata_null_timings_on_the_eval_id_key(tmp_path: Path) -> None:
    path = write(tmp_path, "it/eval-1/eval_metadata.json", {"eval_id": 1, "prompt": "p", "assertions": ["a"]})
    write(tmp_path, "it/eval-1/with_skill/run-1/grading.json", GRADED)
    write(tmp_path, "it/eval-1/with_skill/run-1/timing.json", {"total_tokens": None, "duration_ms": None})
    write(tmp_path, "it/eval-1/without_skill/grading.json", GRADED)
    write(tmp_path, "it/eval-1/without_skill/timing.json", {"total_tokens": None})
    write(tmp_path, "it/eval-1/other/timing.json", {"total_tokens": 12, "duration_ms": None})  # has a value
    write(tmp_path, "it/eval-1/empty/timing.json", {})
    write(tmp_path, "it/eval-1/broken/timing.json", "{")
    (p,) = rules(METADATA, path)
    assert (p.code, p.severity) == ("timing-all-null", Severity.WARNING)
    assert p.message.startswith("2 timing.json file(s) under this eval hold only nulls (`with_skill/run-1/")
    line = line_of(path, '"eval_id"')
    assert (p.span.start_line, p.span.end_col - p.span.start_col) == (line, len('"eval_id"'))


def test_eval_metadata_without_eval_id_anchors_on_the_document(tmp_path: Path) -> None:
    path = write(tmp_path, "it/case/eval_metadata.json", {"assertions": ["a"]})
    write(tmp_path, "it/case/with_skill/grading.json", GRADED)
    (p,) = rules(METADATA, path)
    assert (p.code, p.severity) == ("workspace-no-runs", Severity.WARNING)
    assert (p.span.start_line, p.span.start_col) == (0, 0) and p.data == {"path": []}
