"""writing-skills evals.json, history.json, grading.json, comparison.json, analysis.json: every rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evalens.core.formats.base import RuleContext
from evalens.core.problems import Severity
from tests.format_helpers import check, codes, only


def write(root: Path, rel: str, data: Any) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2), encoding="utf-8")
    return path


def evals(**over: Any) -> dict[str, Any]:
    data = {
        "version": "1.0",
        "skill": "/home/me/skills/commit",
        "cases": [
            {
                "id": "stages-first",
                "prompt": "commit my work",
                "files": [],
                "expectations": [
                    {
                        "criterion": "runs-git-diff",
                        "description": "Runs `git diff --cached` before writing the message",
                        "required": True,
                    },
                    {
                        "criterion": "conventional",
                        "description": "Message matches type(scope): description",
                        "required": False,
                    },
                ],
            },
            {
                "id": "no-amend",
                "prompt": "the hook rejected my commit",
                "expectations": [
                    {
                        "criterion": "new-commit",
                        "description": "Creates a new commit; never runs `git commit --amend`",
                        "required": True,
                    }
                ],
            },
        ],
    }
    data.update(over)
    return data


def test_valid_evals(tmp_path: Path) -> None:
    v = check(write(tmp_path, "commit/evals/evals.json", evals()))
    assert v.format is not None and v.format.id == "writing-skills-evals"
    assert v.problems == []
    assert [c.name for c in v.format.cases(v.doc)] == ["stages-first", "no-amend"]  # type: ignore[arg-type]


def test_ids_unique_and_kebab(tmp_path: Path) -> None:
    data = evals()
    data["cases"][1]["id"] = "stages-first"
    p = only(check(write(tmp_path, "commit/evals/evals.json", data)), "duplicate-id")
    assert p.message.startswith("Duplicate case id `stages-first`")
    data["cases"][1]["id"] = "No Amend"
    p = only(check(write(tmp_path, "commit/evals/evals.json", data)), "schema-pattern")
    assert "use kebab-case (e.g. `no-amend`)" in p.message and p.fixes[0].edits[0].text == "no-amend"


def test_required_expectation_needed(tmp_path: Path) -> None:
    data = evals()
    data["cases"][0]["expectations"][0]["required"] = False
    p = only(check(write(tmp_path, "commit/evals/evals.json", data)), "no-required-expectation")
    assert p.severity == Severity.ERROR and "can never fail" in p.message
    assert p.fixes[0].edits[0].text == "true"


def test_vague_description_and_duplicate_criterion(tmp_path: Path) -> None:
    data = evals()
    data["cases"][0]["expectations"][1]["description"] = "Handles the situation appropriately"
    data["cases"][1]["expectations"].append(dict(data["cases"][1]["expectations"][0]))
    v = check(write(tmp_path, "commit/evals/evals.json", data))
    assert only(v, "vague-expectation").severity == Severity.HINT
    assert "appears twice" in only(v, "duplicate-criterion").message


def test_stale_and_relative_skill(tmp_path: Path) -> None:
    v = check(write(tmp_path, "pr-comments/evals/evals.json", evals(skill="skills/pr:comments")))
    p = only(v, "skill-mismatch")
    assert p.fixes[0].edits[0].text == "skills/pr-comments"
    assert only(v, "skill-path-relative").severity == Severity.HINT


def test_skill_creator_content_is_not_writing_skills(tmp_path: Path) -> None:
    v = check(write(tmp_path, "x/evals/evals.json", {"skill_name": "x", "evals": []}))
    assert v.format is not None and v.format.id == "skill-creator-evals"


def test_history(tmp_path: Path) -> None:
    (tmp_path / "ws" / "v0" / "skill").mkdir(parents=True)
    data = {
        "versions": [
            {
                "version": 0,
                "timestamp": "t",
                "description": "first",
                "git_hash": None,
                "path": "v0/skill",
                "average_score": None,
            },
            {
                "version": 2,
                "timestamp": "t",
                "description": "v",
                "git_hash": "abc",
                "path": "v1/skill",
                "average_score": 7,
            },
        ],
        "current_version": 0,
    }
    v = check(write(tmp_path, "ws/history.json", data))
    assert v.format is not None and v.format.id == "writing-skills-history"
    assert {
        "baseline-description",
        "version-sequence",
        "version-path",
        "score-range",
        "current-version",
    } <= set(codes(v))
    assert "schema-type" not in codes(v)  # git_hash and average_score may be null


def grading(**over: Any) -> dict[str, Any]:
    conv = {
        k: {"passed": True, "details": "ok"}
        for k in (
            "frontmatter",
            "description_field",
            "token_efficiency",
            "progressive_disclosure",
            "type_alignment",
        )
    }
    data = {
        "case_id": "stages-first",
        "version": 1,
        "run": 2,
        "overall_score": 3.5,
        "required_score": 4.0,
        "results": [
            {"criterion": "runs-git-diff", "score": 4, "passed": True, "reasoning": "r"},
            {"criterion": "conventional", "score": 3, "passed": True, "reasoning": "r"},
        ],
        "overall": "pass",
        "convention_compliance": conv,
        "claims": [],
        "user_notes_summary": "",
        "eval_feedback": "",
        "execution_metrics": {},
    }
    data.update(over)
    return data


def test_grading_valid_and_located_evals(tmp_path: Path) -> None:
    write(tmp_path, "commit-workspace/v1/skill/evals/evals.json", evals())
    v = check(write(tmp_path, "commit-workspace/grading/stages-first_v1_run2.json", grading()))
    assert v.format is not None and v.format.id == "writing-skills-grading"
    assert v.problems == []
    ctx = RuleContext(v.path, None)
    assert [c.value for c in v.format.value_choices(("case_id",), ctx)] == ["stages-first", "no-amend"]
    target = v.format.definition(v.doc, ("case_id",), "stages-first", ctx)  # type: ignore[arg-type]
    assert target and target[0].span is not None and target[0].span.start_line == 5


def test_grading_rules(tmp_path: Path) -> None:
    write(tmp_path, "commit-workspace/v1/skill/evals/evals.json", evals())
    data = grading(overall_score=2.0, required_score=2.0, overall="pass", run=1)
    data["results"][0].update(score=2, passed=True)
    data["results"][1]["criterion"] = "conventionl"
    data["convention_compliance"]["extra"] = {"passed": True, "details": ""}
    v = check(write(tmp_path, "commit-workspace/grading/stages-first_v1_run2.json", data))
    assert only(v, "passed-mismatch").fixes[0].edits[0].text == "false"
    assert "mean of the scores is 2.5" in [p for p in v.problems if p.code == "score-mismatch"][0].message
    assert only(v, "overall-mismatch").fixes[0].edits[0].text == "fail"
    assert "did you mean `conventional`" in only(v, "unknown-criterion").message
    assert "`conventional`" in only(v, "missing-result").message
    assert "filename-mismatch" in codes(v)
    assert any(
        p.code == "unknown-key" and p.severity == Severity.ERROR for p in v.problems
    )  # exactly five keys


def test_grading_without_evals_checks_extremes_and_unknown_case(tmp_path: Path) -> None:
    data = grading(overall="pass")
    for r in data["results"]:
        r.update(score=1, passed=False)
    data["overall_score"] = 1.0
    assert "overall-mismatch" in codes(check(write(tmp_path, "ws/grading/stages-first_v1_run2.json", data)))
    write(tmp_path, "ws2/v1/skill/evals/evals.json", evals())
    v = check(write(tmp_path, "ws2/grading/stages-frist_v1_run2.json", grading(case_id="stages-frist")))
    assert "did you mean `stages-first`" in only(v, "unknown-case").message


def test_comparison_and_analysis(tmp_path: Path) -> None:
    pair = {"A": 3, "B": 8}
    data = {
        "eval_prompt": "p",
        "winner": "tie",
        "reasoning": "r",
        "scores": {
            k: pair
            for k in (
                "description_quality",
                "convention_compliance",
                "type_specific_quality",
                "token_efficiency",
                "content_value",
            )
        },
    }
    v = check(write(tmp_path, "ws/comparison.json", data))
    assert v.format is not None and v.format.id == "writing-skills-comparison"
    assert "no tie" in only(v, "schema-enum").message
    data["winner"] = "A"
    assert "winner-mismatch" in codes(check(write(tmp_path, "ws/comparison.json", data)))
    analysis = {
        "winner_version": "v1",
        "loser_version": "v1",
        "strengths": [],
        "weaknesses": [],
        "suggestions": [{"area": "a", "before": "b", "reasoning": "r"}],
    }
    v = check(write(tmp_path, "ws/analysis.json", analysis))
    assert {"same-version", "missing-key"} <= set(codes(v))


def test_grading_hover(tmp_path: Path) -> None:
    write(tmp_path, "commit-workspace/v1/skill/evals/evals.json", evals())
    v = check(write(tmp_path, "commit-workspace/grading/stages-first_v1_run2.json", grading()))
    ctx = RuleContext(v.path, None)
    assert v.format is not None
    assert (v.format.hover_value(("results", 1, "criterion"), "conventional", ctx) or "").startswith(
        "**optional**"
    )
    assert "commit my work" in (v.format.hover_value(("case_id",), "stages-first", ctx) or "")


def test_empty_cases_missing_version_dir_and_required_score(tmp_path: Path) -> None:
    assert "no-cases" in codes(check(write(tmp_path, "commit/evals/evals.json", evals(cases=[]))))
    data = {
        "versions": [
            {
                "version": 0,
                "timestamp": "t",
                "description": "baseline",
                "git_hash": None,
                "path": "v0/skill",
                "average_score": 3.5,
            }
        ],
        "current_version": 0,
    }
    assert codes(check(write(tmp_path, "ws/history.json", data))) == ["version-missing"]
    write(tmp_path, "commit-workspace/v1/skill/evals/evals.json", evals())
    p = only(
        check(
            write(tmp_path, "commit-workspace/grading/stages-first_v1_run2.json", grading(required_score=2.0))
        ),
        "score-mismatch",
    )
    assert "mean of the required criteria's scores is 4.0" in p.message
