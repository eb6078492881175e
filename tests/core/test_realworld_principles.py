"""The principles behind issue #20's real-world fixes, each on a minimal file of our own (the shape that mattered
on the real repositories, not their text): open formats stay open, evidence decides, heuristics look at what
is there, and files are recognised by content, never by name alone."""

from __future__ import annotations

import json
from pathlib import Path

from evalens.core.index import IndexCache
from evalens.core.problems import Severity
from evalens.core.validate import validate_text

SKILL = "---\nname: demo\ndescription: Demo skill. Use when the user asks for a demo.\n---\n# Demo\n"


def _put(root: Path, rel: str, content: object) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content, indent=2), encoding="utf-8")
    return path


def _check(path: Path):
    return validate_text(str(path), path.read_text(encoding="utf-8"), IndexCache())


def _codes(path: Path) -> list[str]:
    return [p.code for p in _check(path).problems]


GRADED = {"expectations": [{"text": "The page names `Lumen`", "passed": True, "evidence": "title"}]}


def test_grading_bookkeeping_beside_a_summary_is_fine(tmp_path: Path) -> None:
    """The viewer and aggregate_benchmark.py read only their keys: `run_id`, top-level totals and notes beside a
    real `summary` break nothing."""
    ok = _put(
        tmp_path,
        "ws/eval-1/with_skill/run-1/grading.json",
        {
            "run_id": "eval-1-with",
            **GRADED,
            "summary": {"passed": 1, "failed": 0, "total": 1, "pass_rate": 1.0},
            "pass_rate": 1.0,
            "passed": 1,
            "total": 1,
            "notes": "fine",
        },
    )
    assert _codes(ok) == []


def test_grading_without_summary_says_where_the_tools_read(tmp_path: Path) -> None:
    bad = _put(
        tmp_path, "ws/eval-1/with_skill/run-1/grading.json", {**GRADED, "pass_rate": 1.0, "run_id": "x"}
    )
    problems = _check(bad).problems
    assert sorted(p.code for p in problems) == ["missing-key", "unknown-key"]  # run_id is not reported
    (moved,) = [p for p in problems if p.code == "unknown-key"]
    assert "`summary.pass_rate`" in moved.message


def test_missing_assertions_only_with_workspace_evidence(tmp_path: Path) -> None:
    """skill-creator saves cases first and drafts assertions later: no assertions is fine until the workspace
    grades some for that eval."""
    _put(tmp_path, "demo/SKILL.md", SKILL)
    evals = _put(
        tmp_path,
        "demo/evals/evals.json",
        {
            "skill_name": "demo",
            "evals": [
                {
                    "id": 0,
                    "prompt": "Make a landing page for `Lumen` with a 3-part hero",
                    "expected_output": "A page",
                },
                {
                    "id": 1,
                    "prompt": "Make a pricing page with tiers at $0, $19 and $79",
                    "expected_output": "A page",
                },
            ],
        },
    )
    assert "missing-assertions" not in _codes(evals)
    _put(
        tmp_path,
        "demo/iteration-1/eval-0-landing/eval_metadata.json",
        {"eval_id": 0, "prompt": "…", "assertions": [{"text": "Uses CSS variables"}, {"text": "Has a hero"}]},
    )
    found = [p for p in _check(evals).problems if p.code == "missing-assertions"]
    assert len(found) == 1 and found[0].severity == Severity.WARNING
    assert "grades 2" in found[0].message and "eval_metadata.json" in found[0].message


def test_build_me_a_is_abstract_only_when_nothing_concrete_follows(tmp_path: Path) -> None:
    _put(tmp_path, "demo/SKILL.md", SKILL)
    evals = _put(
        tmp_path,
        "demo/evals/evals.json",
        {
            "skill_name": "demo",
            "evals": [
                {"id": 1, "prompt": "Build me a dashboard", "expected_output": "x"},
                {
                    "id": 2,
                    "prompt": "Write me a hero section that highlights three benefits and ends with a 'Start free' "
                    "call to action",
                    "expected_output": "x",
                },
                {
                    "id": 3,
                    "prompt": "Build me a SaaS analytics dashboard with metric cards showing revenue, churn and "
                    "active users over the last quarter",
                    "expected_output": "x",
                },
            ],
        },
    )
    abstract = [p for p in _check(evals).problems if p.code == "abstract-prompt"]
    assert len(abstract) == 1 and abstract[0].span.start_line == _line_of(evals, "Build me a dashboard")


def _line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()) if needle in line)


def test_short_assertions_that_name_something_are_not_vague(tmp_path: Path) -> None:
    _put(tmp_path, "demo/SKILL.md", SKILL)
    evals = _put(
        tmp_path,
        "demo/evals/evals.json",
        {
            "skill_name": "demo",
            "evals": [
                {
                    "id": 1,
                    "prompt": "Lint the repository in src/ and fix what it reports",
                    "expected_output": "x",
                    "assertions": ["Runs lint", "Acknowledges the bcrypt usage", "Works", "Produces output"],
                }
            ],
        },
    )
    (vague,) = [p for p in _check(evals).problems if p.code == "vague-assertion"]  # a hint, said once
    assert vague.severity == Severity.HINT and "Works" in vague.message and len(vague.data["related"]) == 1
    assert "Produces output" in vague.data["related"][0]["message"]


def test_another_tools_cases_under_skill_and_cases_get_one_hint(tmp_path: Path) -> None:
    """`skill` + `cases` is writing-skills' wrapper only when the cases carry its keys."""
    _put(tmp_path, "demo/SKILL.md", SKILL)
    other = _put(
        tmp_path,
        "demo/evals/evals.json",
        {
            "skill": "demo",
            "version": "1.0.0",
            "cases": [
                {
                    "id": "t-1",
                    "prompt": "Create a skill for migrations",
                    "expect_activation": True,
                    "assertions": [{"type": "content", "check": "contains_section", "value": "Phase 1"}],
                }
            ],
        },
    )
    problems = _check(other).problems
    assert [(p.code, p.severity, p.span.start_line) for p in problems] == [("lookalike", Severity.HINT, 0)]


def test_skill_creator_files_under_other_names_are_recognised_by_content(tmp_path: Path) -> None:
    _put(tmp_path, "demo/SKILL.md", SKILL)
    old = _put(
        tmp_path,
        "demo/evals/evals-old.json",
        {
            "skill_name": "demo",
            "evals": [
                {"id": 1, "prompt": "Summarise report.pdf", "expected_output": "x", "assertions": ["Works"]}
            ],
        },
    )
    assert _check(old).format is not None and _check(old).format.id == "skill-creator-evals"
    assert "vague-assertion" in _codes(old)
    bench = _put(
        tmp_path,
        "demo/benchmark-v2.json",
        {
            "metadata": {},
            "runs": [
                {"eval_id": 1, "configuration": "with_skil", "run_number": 1, "result": {"pass_rate": 1.0}}
            ],
            "run_summary": {"with_skill": {"pass_rate": 1.0}},
        },
    )
    assert _check(bench).format is not None and _check(bench).format.id == "skill-creator-benchmark"
    assert "schema-enum" in _codes(bench)
    # the same wrapper around another tool's entries (no prompts) is not claimed under another name
    lookalike = _put(
        tmp_path,
        "demo/evals/local-evals.json",
        {
            "skill_name": "demo",
            "evals": [
                {"id": 101, "name": "scan", "type": "scan", "expectations": ["Findings include `eval`"]}
            ],
        },
    )
    assert _check(lookalike).format is None and _codes(lookalike) == []


def test_flat_files_in_claude_skills_are_never_loaded(tmp_path: Path) -> None:
    flat = _put(
        tmp_path, "repo/.claude/skills/deploy.md", "---\nname: deploy\ndescription: Deploys.\n---\nBody\n"
    )
    (p,) = _check(flat).problems
    assert p.code == "flat-skill-file" and ".claude/skills/deploy/SKILL.md" in p.message
    readme = _put(tmp_path, "repo/.claude/skills/README.md", "# Our skills\n")
    assert _codes(readme) == []


def test_a_lowercase_skill_md_that_is_not_a_skill_gets_nothing(tmp_path: Path) -> None:
    note = _put(tmp_path, "repo/modes/skill.md", "# The skill mode\n\nNotes.\n")
    assert _codes(note) == []
    broken = _put(tmp_path, "repo/skills/x/SKILL.md", "# no frontmatter\n")
    assert _codes(broken) == ["frontmatter-missing"]


def test_wrapped_trigger_sets_are_trigger_sets(tmp_path: Path) -> None:
    """`{skill_name, queries: [{query, should_trigger}]}` is one skill's trigger set: validated, listed and run
    from the same reading of its shape; run results and routers with the same item keys are not."""
    from evalens.core.formats.registry import by_id
    from runner.suites.trigger_sets import trigger_queries

    _put(tmp_path, "demo/SKILL.md", SKILL)
    wrapped = _put(
        tmp_path,
        "demo/evals/trigger-eval.json",
        {
            "skill_name": "demo",
            "purpose": "routing",
            "queries": [
                {"query": "demo the login flow for me", "should_trigger": True},
                {"query": "demo the login flow for me", "should_trigger": False},
                {"query": "what's the weather", "should_trigger": False},
            ],
        },
    )
    v = _check(wrapped)
    assert v.format is not None and v.format.id == "trigger-evals"
    assert sorted(p.code for p in v.problems) == ["conflicting-query", "trigger-wrapped"]
    cases = by_id("trigger-evals").cases(v.doc)  # type: ignore[union-attr]
    assert [c.path for c in cases[1:]] == [("queries", 0), ("queries", 1), ("queries", 2)]
    assert trigger_queries(wrapped) == (
        "demo",
        [
            ("demo the login flow for me", True),
            ("demo the login flow for me", False),
            ("what's the weather", False),
        ],
    )
    results = _put(
        tmp_path,
        "demo/results/trigger-v1.json",
        {
            "skill_name": "demo",
            "query_results": [{"query": "x", "should_trigger": True, "trigger_rate": 0.0, "passed": False}],
        },
    )
    assert _check(results).format is None
    router = _put(
        tmp_path,
        "plugin/evals/trigger_evals.json",
        {
            "version": 1,
            "cases": [{"id": "a", "query": "Run a full scan", "should_trigger": True, "target": "scan"}],
        },
    )
    assert _check(router).format is None


def test_a_project_without_git_does_not_resolve_names_in_the_tree_above(tmp_path: Path) -> None:
    """A downloaded or vendored project (a LICENSE, no .git) inside some other repository resolves skill names
    against itself only, never against the outer tree."""
    (tmp_path / ".git").mkdir()
    _put(tmp_path, "skills/other-skill/SKILL.md", SKILL.replace("demo", "other-skill"))
    _put(tmp_path, "vendor/proj/LICENSE", "MIT")
    _put(tmp_path, "vendor/proj/demo/SKILL.md", SKILL)
    evals = _put(
        tmp_path,
        "vendor/proj/evals/evals.json",
        {
            "skill_name": "ghost",
            "evals": [{"id": 1, "prompt": "Summarise report.pdf in 3 bullets", "expected_output": "x"}],
        },
    )
    (p,) = [p for p in _check(evals).problems if p.code == "unknown-skill"]
    assert "`demo`" in p.message and "other-skill" not in p.message


def test_workspace_problems_that_break_aggregate_benchmark(tmp_path: Path) -> None:
    """skill-creator's aggregate_benchmark.py (anthropics/skills@12726c4) reads `eval-*/<config>/run-N/grading.json`
    or one `<config>/grading.json` (the single-run layout, beside `outputs/`), and `timing.json`: what it does not
    find, and all-null timings, are real problems, said once per eval on its eval_metadata.json (issue #39, noise
    class 4)."""
    meta = _put(
        tmp_path,
        "ws/iteration-1/eval-0-landing/eval_metadata.json",
        {"eval_id": 0, "eval_name": "landing", "prompt": "Build it", "assertions": ["Has a hero"]},
    )
    _put(
        tmp_path,
        "ws/iteration-1/eval-0-landing/with_skill/grading.json",
        {**GRADED, "summary": {"pass_rate": 1}},
    )
    _put(tmp_path, "ws/iteration-1/eval-0-landing/with_skill/outputs/page.html", "<html/>")
    _put(tmp_path, "ws/iteration-1/eval-0-landing/without_skill/run-1/grading.json", GRADED)
    _put(
        tmp_path,
        "ws/iteration-1/eval-0-landing/without_skill/run-1/timing.json",
        {"total_tokens": None, "duration_ms": None},
    )
    v = _check(meta)
    assert v.format is not None and v.format.id == "skill-creator-eval-metadata"
    assert _codes(meta) == ["timing-all-null"]  # both layouts are read
    _put(tmp_path, "ws/iteration-1/eval-0-landing/without_skill/run-1/timing.json", {"total_tokens": 10})
    assert _codes(meta) == []

    # an eval folder not named eval-*: the aggregator never opens it
    other = _put(
        tmp_path, "ws/iteration-1/landing-v2/eval_metadata.json", {"eval_id": 1, "prompt": "Build it"}
    )
    _put(tmp_path, "ws/iteration-1/landing-v2/with_skill/run-1/grading.json", GRADED)
    (p,) = _check(other).problems
    assert p.code == "workspace-no-runs" and "`landing-v2/` is not read" in p.message
    # runs with no configuration folder: read as a configuration named run-1, never "outside any run-N folder"
    flat = _put(tmp_path, "ws/iteration-1/eval-2/eval_metadata.json", {"eval_id": 2, "prompt": "Build it"})
    _put(tmp_path, "ws/iteration-1/eval-2/run-1/grading.json", GRADED)
    (p,) = _check(flat).problems
    assert "`run-1/` sit directly in the eval folder" in p.message and "outside" not in p.message
    # a grading.json below outputs/: skipped
    deep = _put(tmp_path, "ws/iteration-1/eval-3/eval_metadata.json", {"eval_id": 3, "prompt": "Build it"})
    _put(tmp_path, "ws/iteration-1/eval-3/with_skill/outputs/grading.json", GRADED)
    (p,) = _check(deep).problems
    assert "`with_skill/outputs/grading.json` is not where aggregate_benchmark.py looks" in p.message
    # nothing graded yet: nothing to say
    fresh = _put(tmp_path, "ws/iteration-1/eval-4/eval_metadata.json", {"eval_id": 4, "prompt": "Build it"})
    _put(tmp_path, "ws/iteration-1/eval-4/with_skill/outputs/page.html", "<html/>")
    assert _codes(fresh) == []


def test_a_projects_own_eval_cases_get_one_hint(tmp_path: Path) -> None:
    """Issue #39, noise class 2: `evals.json` read by the project's own runner (`eval_id`, its own assertion
    objects) is not skill-creator's without its `skill_name` wrapper: one look-alike hint on line 1."""
    _put(tmp_path, "demo/SKILL.md", SKILL)
    for i, case in enumerate(
        (
            {"eval_id": "e1", "prompt": "Summarise the report", "expected_output": "A summary"},
            {"id": 1, "prompt": "Summarise it", "assertions": [{"kind": "contains", "value": "Total"}]},
        )
    ):
        own = _put(tmp_path, f"demo/evals/cases/c{i}/evals.json", {"evals": [case]})
        problems = _check(own).problems
        assert [(p.code, p.severity, p.span.start_line) for p in problems] == [
            ("lookalike", Severity.HINT, 0)
        ]
    ours = _put(
        tmp_path,
        "demo/evals/evals.json",
        {
            "evals": [
                {
                    "id": 1,
                    "prompt": "Summarise it",
                    "expected_output": "A summary",
                    "assertions": ["Says Total"],
                }
            ]
        },
    )
    assert _check(ours).format is not None and _check(ours).format.id == "skill-creator-evals"


def test_a_routing_set_is_not_a_broken_trigger_set(tmp_path: Path) -> None:
    """Issue #39, noise class 2: `should_trigger` naming the skill that should fire is a router's test set."""
    routing = _put(
        tmp_path,
        "demo/evals/trigger-eval.json",
        [{"query": "deploy the api", "should_trigger": "deploy"}, {"query": "hi", "should_trigger": "none"}],
    )
    problems = _check(routing).problems
    assert [(p.code, p.severity, p.span.start_line) for p in problems] == [("lookalike", Severity.HINT, 0)]
    flags = _put(
        tmp_path, "demo/evals/t2-trigger.json", [{"query": "deploy the api", "should_trigger": True}]
    )
    assert _check(flags).format is not None and _check(flags).format.id == "trigger-evals"


def test_skill_creator_cases_under_skill_and_cases_are_not_writing_skills(tmp_path: Path) -> None:
    """Issue #39, noise class 5: `expectations` and `files` are both formats' names; string checks and an
    `expected_output` are skill-creator's, `{criterion, …}` objects writing-skills'."""
    _put(tmp_path, "demo/SKILL.md", SKILL)
    creator = _put(
        tmp_path,
        "demo/evals/evals.json",
        {
            "skill": "demo",
            "cases": [
                {
                    "id": 1,
                    "prompt": "Summarise the report",
                    "expected_output": "A summary",
                    "expectations": ["Names the total"],
                }
            ],
        },
    )
    v = _check(creator)
    assert v.format is None and [(p.code, p.span.start_line) for p in v.problems] == [("lookalike", 0)]
    ws = _put(
        tmp_path,
        "demo2/evals/evals.json",
        {
            "skill": "demo2",
            "cases": [{"id": "c1", "prompt": "Summarise", "expectations": [{"criterion": "names-total"}]}],
        },
    )
    assert _check(ws).format is not None and _check(ws).format.id == "writing-skills-evals"
