"""``evalens.core.formats.writing_skills`` called directly: its helpers (the skill folder of an evals file, the
cases the lens shows, the fixture files offered, the evals.json a grading file belongs to), each format's
``detect``, and the ranges, severities and fixes of the rules' diagnostics. The rule-by-rule behaviour through
``validate_text`` is in ``test_formats_writing_skills.py``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalens.core.documents import parse
from evalens.core.formats import writing_skills as ws
from evalens.core.formats.base import Match, RuleContext
from evalens.core.problems import Severity
from tests.format_helpers import apply, check

EVALS = ws.WritingSkillsEvals()
HISTORY = ws.WritingSkillsHistory()
GRADING = ws.WritingSkillsGrading()
COMPARISON = ws.WritingSkillsComparison()
ANALYSIS = ws.WritingSkillsAnalysis()


def write(root: Path, rel: str, data: Any) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2), encoding="utf-8")
    return path


def rules(fmt: Any, path: Path) -> list:
    return fmt.rules(parse(path.read_text(encoding="utf-8"), "json"), RuleContext(str(path), None))


def line_of(path: Path, needle: str, nth: int = 0) -> int:
    return [i for i, line in enumerate(path.read_text(encoding="utf-8").split("\n")) if needle in line][nth]


def expectation(criterion: str, required: bool, description: str | None = None) -> dict[str, Any]:
    text = description or f"Runs `git {criterion}` before writing the commit message"
    return {"criterion": criterion, "description": text, "required": required}


def evals(*cases: dict[str, Any], skill: str = "/home/me/skills/commit") -> dict[str, Any]:
    return {"version": "1.0", "skill": skill, "cases": list(cases)}


def case(cid: Any, *exps: dict[str, Any]) -> dict[str, Any]:
    return {"id": cid, "prompt": "commit my work", "files": [], "expectations": list(exps)}


# ------------------------------------------------------------------------------------------- helpers


def test_skill_dir_of(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert ws.skill_dir_of("/a/commit/evals/evals.json") == Path("/a/commit")
    assert ws.skill_dir_of("/a/commit/evals.json") == Path("/a/commit")
    monkeypatch.chdir(tmp_path)
    assert ws.skill_dir_of("evals/evals.json") == tmp_path  # absolute, so it has a name


def test_dicts_keeps_the_index_of_each_mapping() -> None:
    assert ws._dicts([1, {"a": 1}, None, {}]) == [(1, {"a": 1}), (3, {})]
    assert ws._dicts({"a": 1}) == [] and ws._dicts(None) == []


def test_skill_creator_cases_are_told_by_their_checks() -> None:
    assert ws._skill_creator_cases([{"expectations": ["a sentence"]}])
    assert ws._skill_creator_cases([{"assertions": []}])
    assert ws._skill_creator_cases([{"prompt": "p", "expected_output": "e"}])
    assert not ws._skill_creator_cases([{"expectations": [{"criterion": "c"}], "expected_output": "e"}])
    assert not ws._skill_creator_cases([{"expectations": []}])
    assert not ws._skill_creator_cases([{"prompt": "p"}])


def test_id_cases_are_the_lens_units() -> None:
    doc = parse('{"cases": [{"id": "a"}, {"id": ""}, {"x": 1}, {"id": 3}, 7], "other": {}}', "json")
    found = ws._id_cases(doc, "cases")
    assert [(c.name, c.path) for c in found] == [("a", ("cases", 0)), ("3", ("cases", 3))]
    assert (found[0].span.start_col, found[0].span.end_col) == (12, 16)  # the key `"id"`
    assert ws._id_cases(doc, "other") == [] and ws._id_cases(doc, "missing") == []
    assert ws._id_cases(parse("[]", "json"), "cases") == []


def test_files_under_skips_hidden_and_is_bounded(tmp_path: Path) -> None:
    for rel in ("a.txt", "sub/b.txt", ".git/config", "sub/.hidden", "evals.json"):
        write(tmp_path, rel, "x")
    assert ws._files_under(tmp_path, skip={"evals.json"}) == ["a.txt", "sub/b.txt"]
    assert ws._files_under(tmp_path, skip=set(), limit=1) == ["a.txt"]
    assert ws._files_under(tmp_path / "missing", skip=set()) == []


def test_find_evals_of_a_grading_file(tmp_path: Path) -> None:
    data = evals(case("a", expectation("diff", True)))
    v0 = write(tmp_path, "w/v0/skill/evals/evals.json", data)
    v2 = write(tmp_path, "w/v2/skill/evals/evals.json", evals(case("b", expectation("diff", True))))
    assert ws._find_evals(str(tmp_path / "w/grading/a_v2_run1.json"), 2) == (v2, json.loads(v2.read_text()))
    assert ws._find_evals(str(tmp_path / "w/grading/a_v1_run1.json"), 1)[0] == v0  # type: ignore[index]
    assert ws._find_evals(str(tmp_path / "w/grading/a.json"), None)[0] == v0  # type: ignore[index]
    # a grading.json deeper in a workspace: the folder holding history.json
    write(tmp_path, "h/history.json", {})
    h0 = write(tmp_path, "h/v0/skill/evals/evals.json", data)
    assert ws._find_evals(str(tmp_path / "h/runs/x/grading.json"), None)[0] == h0  # type: ignore[index]
    # `<skill>-workspace` beside the skill
    own = write(tmp_path, "commit/evals/evals.json", data)
    assert ws._find_evals(str(tmp_path / "commit-workspace/grading/a.json"), 0)[0] == own  # type: ignore[index]
    write(tmp_path, "broken/v0/skill/evals/evals.json", "{")
    assert ws._find_evals(str(tmp_path / "broken/grading/a.json"), 0) is None
    write(tmp_path, "shape/v0/skill/evals/evals.json", {"cases": {}})
    assert ws._find_evals(str(tmp_path / "shape/grading/a.json"), 0) is None


# ------------------------------------------------------------------------------------------- evals.json


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"skill": "/s", "cases": []}, Match.YES),
        ({"skill": "/s", "version": "1.0"}, Match.YES),
        ({"skill": "/s"}, Match.NO),
        ({"skill": "/s", "cases": [{"id": "a", "prompt": "p", "steps": []}]}, Match.LOOKALIKE),
        ({"skill": "/s", "cases": [{"id": "a", "steps": []}]}, Match.NO),
        ({"skill": "/s", "cases": [{"id": "a", "expectations": ["a sentence"]}]}, Match.LOOKALIKE),
        ({"skill": "/s", "cases": [{"id": "a", "files": []}]}, Match.YES),
        ({"cases": [{"expectations": [{"criterion": "c"}]}]}, Match.YES),
        ({"cases": [{"expectations": ["c"]}]}, Match.NO),
        ({"skill": "/s", "cases": [], "evals": []}, Match.NO),  # skill-creator's
        ({"skill": "/s", "cases": [], "skill_name": "s"}, Match.NO),
        ({}, Match.NO),
        ([], Match.NO),
    ],
)
def test_evals_detect(data: Any, match: Match) -> None:
    assert EVALS.detect("commit/evals/evals.json", data) is match


def test_refine_offers_the_kebab_case_id(tmp_path: Path) -> None:
    path = write(tmp_path, "commit/evals/evals.json", evals(case("Stages First", expectation("diff", True))))
    (p,) = check(path).problems
    assert (p.code, p.severity) == ("schema-pattern", Severity.ERROR)
    assert p.message == "`Stages First` is not a valid case id: use kebab-case (e.g. `stages-first`)."
    assert p.span.start_line == line_of(path, '"Stages First"')
    fixed = apply(path.read_text(), p.fixes[-1].edits)
    assert json.loads(fixed)["cases"][0]["id"] == "stages-first"
    assert check(path, fixed).problems == []


def test_evals_rule_ranges_severities_and_fixes(tmp_path: Path) -> None:
    data = evals(
        case("a", expectation("diff", False), expectation("diff", False, "Works well")),
        case("a", expectation("log", True)),
        {
            "prompt": "no id",
            "expectations": [{"criterion": "c", "description": "Runs `git status`", "required": "yes"}],
        },
    )
    path = write(tmp_path, "commit/evals/evals.json", data)
    found = [(p.code, p.severity, p.data["path"]) for p in rules(EVALS, path)]
    assert found == [
        ("no-required-expectation", Severity.ERROR, ["cases", 0, "expectations"]),
        ("duplicate-criterion", Severity.ERROR, ["cases", 0, "expectations", 1, "criterion"]),
        ("vague-expectation", Severity.HINT, ["cases", 0, "expectations", 1, "description"]),
        ("duplicate-id", Severity.ERROR, ["cases", 1, "id"]),
        ("no-required-expectation", Severity.ERROR, ["cases", 2, "expectations"]),
    ]
    problems = rules(EVALS, path)
    none_required = problems[0]
    assert none_required.span.start_line == line_of(path, '"expectations"')  # on the key
    assert none_required.span.end_col - none_required.span.start_col == len('"expectations"')
    fixed = json.loads(apply(path.read_text(), none_required.fixes[0].edits))
    assert fixed["cases"][0]["expectations"][0]["required"] is True
    first = line_of(path, '"id": "a"')
    assert f"(first used on line {first + 1})" in problems[3].message
    assert problems[3].span.start_line == line_of(path, '"id": "a"', 1)
    assert problems[4].message.startswith("Case cases[2] has no `required: true`")  # no id: its index
    assert problems[4].fixes == []  # `required: "yes"` is not false: nothing to flip


def test_empty_cases_is_a_warning_on_the_key(tmp_path: Path) -> None:
    path = write(tmp_path, "commit/evals/evals.json", evals())
    (p,) = rules(EVALS, path)
    assert (p.code, p.severity, p.message) == (
        "no-cases",
        Severity.WARNING,
        "`cases` is empty: nothing to run.",
    )
    assert p.span.start_line == line_of(path, '"cases"') and p.span.start_col == 2


@pytest.mark.parametrize(
    ("skill", "codes"),
    [
        ("/home/me/skills/commit", []),
        ("C:\\skills\\commit", []),  # a Windows path is absolute, its last part the folder
        ("D:/skills/commit", []),
        ("skills/commit", ["skill-path-relative"]),
        ("/home/me/skills/old", ["skill-mismatch"]),
        ("old", ["skill-mismatch", "skill-path-relative"]),
    ],
)
def test_skill_rules(tmp_path: Path, skill: str, codes: list[str]) -> None:
    path = write(
        tmp_path, "commit/evals/evals.json", evals(case("a", expectation("diff", True)), skill=skill)
    )
    assert [p.code for p in rules(EVALS, path)] == codes


def test_skill_named_by_its_frontmatter_is_not_stale(tmp_path: Path) -> None:
    write(tmp_path, "commit-dir/SKILL.md", "---\nname: commit\ndescription: Commits.\n---\nBody\n")
    path = write(tmp_path, "commit-dir/evals/evals.json", evals(case("a", expectation("diff", True))))
    assert rules(EVALS, path) == []
    (p,) = rules(EVALS, write(tmp_path, "elsewhere/evals.json", evals(case("a"), skill="/x/other")))[:1]
    assert p.code == "no-required-expectation"  # not under `evals/`: the folder is not the skill's


def test_skill_mismatch_fix_replaces_the_last_part(tmp_path: Path) -> None:
    path = write(
        tmp_path, "commit/evals/evals.json", evals(case("a", expectation("diff", True)), skill="/sk/old")
    )
    (p,) = rules(EVALS, path)
    assert (p.severity, p.span.start_line) == (Severity.WARNING, line_of(path, '"skill"'))
    assert json.loads(apply(path.read_text(), p.fixes[0].edits))["skill"] == "/sk/commit"


def test_skill_mismatch_fix_of_a_windows_path_stays_json(tmp_path: Path) -> None:
    data = evals(case("a", expectation("diff", True)), skill="C:\\sk\\old")
    path = write(tmp_path, "commit/evals/evals.json", data)
    (p,) = rules(EVALS, path)
    assert p.code == "skill-mismatch"
    assert json.loads(apply(path.read_text(), p.fixes[0].edits))["skill"] == "C:\\sk\\commit"


def test_skill_mismatch_fix_with_a_trailing_slash(tmp_path: Path) -> None:
    data = evals(case("a", expectation("diff", True)), skill="/home/me/skills/old-name/")
    path = write(tmp_path, "commit/evals/evals.json", data)
    (p,) = rules(EVALS, path)
    assert json.loads(apply(path.read_text(), p.fixes[0].edits))["skill"] in (
        "/home/me/skills/commit/",
        "/home/me/skills/commit",
    )


def test_editor_knowledge(tmp_path: Path) -> None:
    write(tmp_path, "commit/SKILL.md", "---\nname: commit\n---\n")
    write(tmp_path, "commit/evals/files/diff.txt", "x")
    write(tmp_path, "commit/notes.md", "x")
    path = write(tmp_path, "commit/evals/evals.json", evals(case("a", expectation("diff", True))))
    ctx = RuleContext(str(path), None)
    doc = parse(path.read_text(), "json")
    assert [c.value for c in EVALS.value_choices(("cases", 0, "files", 0), ctx)] == ["files/diff.txt"]
    assert EVALS.value_choices(("cases", 0, "prompt"), ctx) == []
    # `skill` names a folder that does not exist here: the evals' own skill is the target
    assert EVALS.definition(doc, ("skill",), "/nope", ctx)[0].path == str(tmp_path / "commit/SKILL.md")
    files = ("cases", 0, "files", 0)
    assert EVALS.definition(doc, files, "files/diff.txt", ctx)[0].path == str(
        tmp_path / "commit/evals/files/diff.txt"
    )
    assert EVALS.definition(doc, files, "notes.md", ctx)[0].path == str(tmp_path / "commit/notes.md")
    assert EVALS.definition(doc, files, "gone.txt", ctx) == []
    assert EVALS.definition(doc, ("skill",), 3, ctx) == []
    [only] = EVALS.cases(doc)
    assert (only.name, only.path) == ("a", ("cases", 0))


def test_skeleton_is_clean(tmp_path: Path) -> None:
    text = EVALS.skeleton(snippets=True)
    assert text is not None
    path = write(tmp_path, "my-skill/evals/evals.json", text)
    assert check(path).problems == []


# ------------------------------------------------------------------------------------------- history.json


def test_history_detect() -> None:
    assert HISTORY.detect("", {"current_version": 0, "versions": []}) is Match.YES
    assert HISTORY.detect("", {"versions": [{"git_hash": None}]}) is Match.YES
    assert HISTORY.detect("", {"versions": [{"version": 0}]}) is Match.NO  # every changelog's
    assert HISTORY.detect("", []) is Match.NO


def test_history_rules(tmp_path: Path) -> None:
    (tmp_path / "ws/v0/skill").mkdir(parents=True)
    data = {
        "current_version": 1,
        "versions": [
            {"version": 0, "path": "v0/skill", "description": "first", "average_score": 0.5},
            {"version": 2, "path": "v2/skill", "average_score": 5},
            {"version": True},
            {"version": 3, "path": "skill3", "average_score": True},
        ],
    }
    path = write(tmp_path, "ws/history.json", data)
    found = [(p.code, p.severity, p.data["path"]) for p in rules(HISTORY, path)]
    assert found == [
        ("baseline-description", Severity.HINT, ["versions", 0, "description"]),
        ("score-range", Severity.ERROR, ["versions", 0, "average_score"]),
        ("version-sequence", Severity.WARNING, ["versions", 1, "version"]),
        ("version-missing", Severity.WARNING, ["versions", 1, "path"]),
        ("version-path", Severity.WARNING, ["versions", 3, "path"]),
        ("current-version", Severity.WARNING, ["current_version"]),
    ]
    problems = rules(HISTORY, path)
    assert problems[1].message == "`average_score` 0.5 is outside the 1–5 rubric."
    assert problems[4].fixes[0].edits[0].text == "v3/skill"  # inside the quotes
    assert problems[4].span.start_line == line_of(path, '"skill3"')
    assert problems[5].message == "`current_version` is 1 but the newest version is 3."


# ------------------------------------------------------------------------------------------- grading


def _workspace(tmp_path: Path) -> None:
    write(
        tmp_path,
        "w/v0/skill/evals/evals.json",
        evals(
            {
                "id": "a",
                "prompt": "Commit my work",
                "expectations": [expectation("c1", True), expectation("c2", False)],
            }
        ),
    )


def test_grading_detect() -> None:
    assert GRADING.detect("", {"case_id": "a"}) is Match.YES
    assert GRADING.detect("", {"results": [{"criterion": "c"}]}) is Match.YES
    assert GRADING.detect("", {"results": [{"score": 1}]}) is Match.NO
    assert GRADING.detect("", []) is Match.NO


def test_grading_against_the_evals(tmp_path: Path) -> None:
    _workspace(tmp_path)
    data = {
        "case_id": "a",
        "version": 0,
        "run": 2,
        "results": [
            {"criterion": "c1", "score": 4, "passed": True},
            {"criterion": "c2", "score": 1, "passed": False},
        ],
        "overall": "fail",
        "overall_score": 2.5,
        "required_score": 3,
    }
    path = write(tmp_path, "w/grading/a_v0_run2.json", data)
    problems = rules(GRADING, path)
    assert [(p.code, p.severity) for p in problems] == [
        ("overall-mismatch", Severity.ERROR),
        ("score-mismatch", Severity.WARNING),
    ]
    assert problems[0].message.startswith("`overall` must be `pass`: it passes only when every required")
    assert problems[0].span.start_line == line_of(path, '"overall"')
    assert json.loads(apply(path.read_text(), problems[0].fixes[0].edits))["overall"] == "pass"
    assert problems[1].fixes[0].edits[0].text == "4.0" and problems[1].data["path"] == ["required_score"]
    data.update(overall="pass", required_score=4.0)
    assert rules(GRADING, write(tmp_path, "w/grading/a_v0_run2.json", data)) == []


def test_grading_score_arithmetic_and_file_name(tmp_path: Path) -> None:
    data = {
        "case_id": "b",
        "version": 1,
        "run": 1,
        "results": [
            {"criterion": "x", "score": 3, "passed": False},
            {"criterion": "y", "score": 2.9, "passed": False},
        ],
        "overall_score": 3.0,
    }
    path = write(tmp_path, "lone/grading/a_v2_run1.json", data)  # no evals found: only the arithmetic
    found = [(p.code, p.data["path"]) for p in rules(GRADING, path)]
    assert found == [
        ("passed-mismatch", ["results", 0, "passed"]),
        ("filename-mismatch", ["case_id"]),
        ("filename-mismatch", ["version"]),
    ]
    problems = rules(GRADING, path)
    assert problems[0].message == "`passed` must be `score >= 3`: score 3 means `true`."
    assert (
        problems[1].message
        == '`case_id` is "b" but the file name says "a" (`<case_id>_v<version>_run<run>.json`).'
    )
    data["overall_score"] = 2.0  # the mean is 3.0 (2.95 rounded to one place)
    (mean,) = [p for p in rules(GRADING, write(tmp_path, "lone/g.json", data)) if p.code == "score-mismatch"]
    assert mean.message == "`overall_score` is 2.0 but the mean of the scores is 3.0."


def test_grading_without_evals_checks_the_extremes(tmp_path: Path) -> None:
    failing = {"results": [{"criterion": "x", "passed": False}], "overall": "pass"}
    (p,) = rules(GRADING, write(tmp_path, "a/g.json", failing))
    assert (p.code, p.message) == ("overall-mismatch", "`overall` is `pass` but every result failed.")
    passing = {"results": [{"criterion": "x", "score": 5}], "overall": "fail"}
    (p,) = rules(GRADING, write(tmp_path, "b/g.json", passing))
    assert p.message == "`overall` is `fail` but every result passed."
    mixed = {"results": [{"criterion": "x", "score": 5}, {"criterion": "y", "score": 1}], "overall": "fail"}
    assert rules(GRADING, write(tmp_path, "c/g.json", mixed)) == []


def test_grading_editor_knowledge(tmp_path: Path) -> None:
    _workspace(tmp_path)
    path = write(tmp_path, "w/grading/a_v0_run1.json", {"case_id": "a", "version": 0, "results": []})
    ctx = RuleContext(str(path), None)
    assert [(c.value, c.detail) for c in GRADING.value_choices(("case_id",), ctx)] == [("a", "case")]
    criteria = GRADING.value_choices(("results", 0, "criterion"), ctx)
    assert [(c.value, c.detail) for c in criteria] == [("c1", "required"), ("c2", "optional")]
    assert GRADING.hover_value(("case_id",), "a", ctx) == "**Case `a`** — Commit my work"
    assert (GRADING.hover_value(("results", 0, "criterion"), "c2", ctx) or "").startswith("**optional** — ")
    assert GRADING.hover_value(("case_id",), "zz", ctx) is None
    doc = parse(path.read_text(), "json")
    (target,) = GRADING.definition(doc, ("case_id",), "a", ctx)
    assert target.path == str(tmp_path / "w/v0/skill/evals/evals.json") and target.span is not None
    assert target.span.start_line == line_of(tmp_path / "w/v0/skill/evals/evals.json", '"id": "a"')
    assert GRADING.definition(doc, ("run",), 1, ctx) == []
    lone = RuleContext(str(write(tmp_path, "lone/grading/x.json", {"case_id": "a"})), None)
    assert (
        GRADING.value_choices(("case_id",), lone) == []
        and GRADING.hover_value(("case_id",), "a", lone) is None
    )


# ------------------------------------------------------------------------------------------- comparison / analysis


def test_comparison(tmp_path: Path) -> None:
    assert COMPARISON.detect("", {"eval_prompt": "p"}) is Match.YES
    assert COMPARISON.detect("", {"scores": {"clarity": {"A": 1, "B": 2}}}) is Match.YES
    assert COMPARISON.detect("", {"scores": {"clarity": {"A": 1}}}) is Match.NO
    assert COMPARISON.detect("", []) is Match.NO
    scores = {"clarity": {"A": 4, "B": 2}, "accuracy": {"A": 1.5, "B": 5}, "note": "n"}
    path = write(tmp_path, "c/comparison.json", {"winner": "A", "scores": scores})
    (p,) = rules(COMPARISON, path)
    assert (p.code, p.severity) == ("winner-mismatch", Severity.WARNING)
    assert p.message == "`winner` is A but its scores total 5.5 against 7 for B."
    assert p.span.start_line == line_of(path, '"winner"')
    assert rules(COMPARISON, write(tmp_path, "d/comparison.json", {"winner": "B", "scores": scores})) == []
    assert rules(COMPARISON, write(tmp_path, "e/comparison.json", {"winner": "tie", "scores": scores})) == []
    assert rules(COMPARISON, write(tmp_path, "f/comparison.json", {"winner": "A", "scores": {}})) == []


def test_analysis(tmp_path: Path) -> None:
    assert ANALYSIS.detect("", {"loser_version": 1}) is Match.YES
    assert ANALYSIS.detect("", {"winner": 1}) is Match.NO
    path = write(tmp_path, "analysis.json", {"winner_version": 2, "loser_version": 2})
    (p,) = rules(ANALYSIS, path)
    assert (p.code, p.severity, p.data["path"]) == ("same-version", Severity.ERROR, ["loser_version"])
    assert p.span.start_line == line_of(path, '"loser_version"')
    assert (
        rules(ANALYSIS, write(tmp_path, "analysis.json", {"winner_version": None, "loser_version": None}))
        == []
    )
    assert rules(ANALYSIS, write(tmp_path, "analysis.json", {"winner_version": 2, "loser_version": 1})) == []
