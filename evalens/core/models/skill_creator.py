"""Anthropic skill-creator / agentskills.io files: ``evals/evals.json``, ``grading.json`` and trigger eval sets
(formats.md §5; anthropics/skills@9d2f1ae and @c9972af ``skills/skill-creator/references/schemas.md``,
agentskills/agentskills@69ef37e ``docs/skill-creation/evaluating-skills.mdx``).

The list of checks is called ``expectations`` by skill-creator's schemas.md and ``assertions`` by its SKILL.md
and agentskills.io; both are accepted (never both in one case).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, RootModel

from evalens.core.models.base import EvalModel, doc

_CHECKS_MD = (
    'Each item is one verifiable statement in plain words ("The output includes a CSV with a '
    '`total` column"). Strings only: the grader writes them back as `grading.json` '
    "`expectations[].text`, which the viewer and `aggregate_benchmark.py` read."
)


class EvalCase(EvalModel):
    """One eval: a prompt, optional input files and the statements a grader checks."""

    id: int = doc(
        "Unique id. skill-creator documents integers; string ids are seen in the wild (and accepted by its "
        "scripts, which never read evals.json).",
        required=True,
        example=1,
    )
    prompt: Annotated[str, Field(min_length=1)] = doc(
        "The task to execute, written like a real user request (concrete names, files, context).",
        required=True,
        example="Extract the tables from evals/files/report.pdf into CSV",
    )
    expected_output: Annotated[str, Field(min_length=1)] | None = doc(
        "Human-readable description of success (documented as required; missing in some real files).",
        default=None,
        example="A CSV per table with the header row preserved",
    )
    files: list[str] = doc(
        "Input files, relative to the skill root (e.g. `evals/files/sample1.pdf`); each must exist.",
        default=[],
        example=["evals/files/report.pdf"],
    )
    expectations: list[str] | None = doc(
        "Verifiable statements about the result (the name skill-creator's schemas.md uses; agentskills.io "
        "calls the list `assertions`). Use one of the two names per case, not both.",
        default=None,
        example=["The CSV has a header row"],
        extra_md=_CHECKS_MD,
    )
    assertions: list[str] | None = doc(
        "Verifiable statements about the result (the name skill-creator's SKILL.md and agentskills.io use; "
        "schemas.md calls the list `expectations`). Use one of the two names per case, not both.",
        default=None,
        example=["The CSV has a header row"],
        extra_md=_CHECKS_MD,
    )


class EvalsFile(EvalModel):
    """``<skill>/evals/evals.json`` (skill-creator / agentskills.io)."""

    skill_name: Annotated[str, Field(min_length=1)] = doc(
        "The skill under test; should equal its SKILL.md frontmatter `name`.",
        required=True,
        example="pdf-tools",
    )
    schema_version: Literal[1] | None = doc(
        "Version of a repository schema for this file (magnus919/agent-skills `evals-v1`); not part of "
        "skill-creator's format.",
        default=None,
        example=1,
    )
    evals: list[EvalCase] = doc(
        "The evals.",
        required=True,
        example=[{"id": 1, "prompt": "…", "expected_output": "…", "assertions": []}],
    )


class GradedExpectation(EvalModel):
    """The grade of one statement; the viewer needs exactly `text`, `passed`, `evidence`."""

    text: str = doc(
        "The statement, verbatim from evals.json.",
        required=True,
        example="The CSV has a header row",
    )
    passed: bool = doc("Whether it holds.", required=True, example=True)
    evidence: str = doc(
        "Where in the transcript or outputs the grader saw it.",
        required=True,
        example="outputs/table1.csv line 1: `Quarter,Revenue`",
    )


class GradingSummary(EvalModel):
    """Totals of the graded statements."""

    passed: Annotated[int, Field(ge=0)] = doc("Statements that passed.", required=True, example=3)
    failed: Annotated[int, Field(ge=0)] = doc("Statements that failed.", required=True, example=0)
    total: Annotated[int, Field(ge=0)] = doc("All statements.", required=True, example=3)
    pass_rate: Annotated[float, Field(ge=0, le=1)] = doc(
        "passed / total.", type_="number (0–1)", required=True, example=1.0
    )


class Timing(EvalModel):
    """Durations from timing.json."""

    executor_duration_seconds: float | None = doc(
        "Executor time.", unit="seconds", default=None, example=42.0
    )
    grader_duration_seconds: float | None = doc("Grader time.", unit="seconds", default=None, example=12.0)
    total_duration_seconds: float | None = doc("Total time.", unit="seconds", default=None, example=54.0)


class GradingClaim(EvalModel):
    """A claim from the output, checked by the grader."""

    claim: str = doc("The claim.", required=True, example="The form has 12 fields")
    type: str | None = doc("Kind of claim (factual, process, quality).", default=None, example="factual")
    verified: bool = doc("Whether it holds.", required=True, example=True)
    evidence: str = doc("Why.", required=True, example="field_info.json lists 12")


class UserNotesSummary(EvalModel):
    """The executor's notes, grouped."""

    uncertainties: list[str] = doc("What the executor was unsure of.", default=[], example=[])
    needs_review: list[str] = doc("What a human should look at.", default=[], example=[])
    workarounds: list[str] = doc("Workarounds taken.", default=[], example=[])


class FeedbackSuggestion(EvalModel):
    """A grader suggestion about one statement."""

    assertion: str | None = doc(
        "The statement concerned.", default=None, example="The output includes the name"
    )
    reason: str = doc(
        "What to change and why.",
        required=True,
        example="A hallucinated document would also pass",
    )


class EvalFeedback(EvalModel):
    """The grader's concerns about the evals themselves (present only when it has some)."""

    suggestions: list[FeedbackSuggestion] = doc(
        "Suggestions, each `{assertion, reason}`.",
        default=[],
        example=[{"assertion": "…", "reason": "…"}],
    )
    overall: str | None = doc("Overall remark.", default=None, example="Assertions are weak")


class GradingFile(EvalModel):
    """``<run-dir>/grading.json`` written by skill-creator's grader."""

    expectations: list[GradedExpectation] = doc(
        "One grade per statement. **Required by the viewer and `aggregate_benchmark.py`** under exactly this "
        "name (agentskills.io calls it `assertion_results`).",
        required=True,
        example=[{"text": "…", "passed": True, "evidence": "…"}],
    )
    summary: GradingSummary = doc(
        "Totals.",
        required=True,
        example={"passed": 2, "failed": 1, "total": 3, "pass_rate": 0.67},
    )
    execution_metrics: dict[str, Any] = doc(
        "From the executor's metrics.json.", default={}, example={"total_tool_calls": 15}
    )
    timing: Timing = doc("From timing.json.", default={}, example={"total_duration_seconds": 54})
    claims: list[GradingClaim] = doc("Claims checked.", default=[], example=[])
    user_notes_summary: UserNotesSummary = doc(
        "The executor's notes.", default={}, example={"uncertainties": []}
    )
    eval_feedback: EvalFeedback = doc(
        "Concerns about the evals (optional).",
        default={},
        example={"suggestions": [], "overall": "…"},
    )


class EvalMetadataFile(EvalModel):
    """``<workspace>/iteration-N/eval-<id>/eval_metadata.json``: what one eval directory of a skill-creator
    workspace runs and grades (formats.md §5.2)."""

    eval_id: int | str = doc("The evals.json id this directory runs.", required=True, example=0)
    eval_name: str | None = doc(
        "A short name, also in the directory's name.",
        default=None,
        example="lumen-landing-page",
    )
    prompt: str = doc(
        "The prompt the runs were given.",
        required=True,
        example="Build a landing page for a SaaS product called 'Lumen' …",
    )
    assertions: list[Any] = doc(
        "The statements the grader checks (strings, or `{text, …}` objects).",
        default=[],
        example=["Uses CSS custom properties for colours"],
    )


class TriggerQuery(EvalModel):
    """One query of a trigger eval set."""

    query: Annotated[str, Field(min_length=1)] = doc(
        "A realistic user message.",
        required=True,
        example="can you turn this pdf into a spreadsheet",
    )
    should_trigger: bool = doc(
        "Whether the skill should load for it. `run_eval.py` counts a trigger when the first tool call is "
        "`Skill` (or a `Read` of the skill); 3 runs per query, threshold 0.5.",
        required=True,
        example=True,
    )


class TriggerEvalSet(RootModel[list[TriggerQuery]]):
    """A trigger eval set: a top-level array of `{query, should_trigger}` (skill-creator `run_eval.py`)."""


class TriggerEvalSetVariant(EvalModel):
    """The variant `{skill_name, should_trigger: [...], should_not_trigger: [...]}` seen in the wild."""

    skill_name: str | None = doc(
        "The skill under test (optional: nothing reads it; the file sits in the skill's own folder).",
        default=None,
        example="data-cleaning",
    )
    should_trigger: list[str] = doc(
        "Queries that should load the skill.",
        required=True,
        example=["Audit this CSV before I use it for reporting."],
    )
    should_not_trigger: list[str] = doc(
        "Queries that should not load it.",
        required=True,
        example=["Tune my XGBoost model's hyperparameters."],
    )


class BenchmarkMetadata(EvalModel):
    """What was benchmarked."""

    skill_name: str | None = doc("Skill under test.", default=None, example="pdf")
    skill_path: str | None = doc("Its path.", default=None, example="skills/pdf")
    executor_model: str | None = doc("Model that ran the evals.", default=None, example="claude-sonnet-4-5")
    analyzer_model: str | None = doc("Model that analysed them.", default=None, example="claude-opus-4-1")
    timestamp: str | None = doc("When, ISO 8601.", default=None, example="2026-03-01T10:00:00Z")
    evals_run: list[Any] = doc("Eval ids run.", default=[], example=[1, 2])
    runs_per_configuration: int | None = doc("Runs per configuration.", default=None, example=3)


class BenchmarkResult(EvalModel):
    """One run's numbers; the viewer reads `pass_rate` **here**, not on the run."""

    pass_rate: Annotated[float, Field(ge=0, le=1)] = doc(
        "passed / total.", type_="number (0–1)", required=True, example=0.67
    )
    passed: int | None = doc("Statements passed.", default=None, example=2)
    failed: int | None = doc("Statements failed.", default=None, example=1)
    total: int | None = doc("Statements graded.", default=None, example=3)
    time_seconds: float | None = doc("Run time.", unit="seconds", default=None, example=42.5)
    tokens: int | None = doc("Tokens used.", default=None, example=12000)
    tool_calls: int | None = doc("Tool calls.", default=None, example=14)
    errors: int | None = doc("Errors.", default=None, example=0)


class BenchmarkRun(EvalModel):
    """One eval run in one configuration."""

    eval_id: Any = doc("The eval's id.", type_="integer | string", required=True, example=1)
    eval_name: str | None = doc("The eval's name.", default=None, example="tables-to-csv")
    configuration: Literal["with_skill", "without_skill"] = doc(
        "`with_skill` or `without_skill`; the viewer shows empty values for anything else.",
        required=True,
        example="with_skill",
    )
    run_number: int | None = doc("1-based run number.", default=None, example=1)
    result: BenchmarkResult = doc(
        "The run's numbers (the viewer reads `result.pass_rate`).",
        required=True,
        example={"pass_rate": 1.0, "passed": 3, "total": 3},
    )
    expectations: list[Any] = doc(
        "Graded statements (`{text, passed, evidence}`).", type_="object[]", default=[], example=[]
    )
    notes: list[Any] = doc("Remarks.", default=[], example=[])


class BenchmarkFile(EvalModel):
    """skill-creator ``benchmarks/<timestamp>/benchmark.json``: with-skill vs without-skill runs."""

    metadata: BenchmarkMetadata = doc("What was benchmarked.", default={}, example={"skill_name": "pdf"})
    runs: list[BenchmarkRun] = doc(
        "Every run.",
        required=True,
        example=[{"eval_id": 1, "configuration": "with_skill", "result": {"pass_rate": 1}}],
    )
    run_summary: dict[str, Any] = doc(
        "Per-configuration means and `delta` (signed strings such as `+0.50`).",
        default={},
        example={"delta": {"pass_rate": "+0.50"}},
    )
    notes: list[Any] = doc("Analyst notes.", default=[], example=[])
