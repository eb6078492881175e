"""The "writing-skills" eval schemas: ``evals.json``, ``history.json``, ``grading.json``, ``comparison.json``,
``analysis.json`` (formats.md §4; luan/dot-claude@03681a4:skills/writing-skills/references/schemas.md).

No JSON Schema existed for these; the models below are written from the prose there. Unknown keys are kept
(warned), except ``convention_compliance`` whose five keys are fixed.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, WithJsonSchema

from evalens.core.models.base import EvalModel, StrictEvalModel, doc

KEBAB = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
PASS_SCORE = 3
"""A result passes when its 1–5 score is at least 3 (``schemas.md``)."""
NullableStr = Annotated[str | None, WithJsonSchema({"type": ["string", "null"]})]
NullableFloat = Annotated[float | None, WithJsonSchema({"type": ["number", "null"]})]
NullableBool = Annotated[bool | None, WithJsonSchema({"type": ["boolean", "null"]})]
CONVENTION_KEYS = (
    "frontmatter",
    "description_field",
    "token_efficiency",
    "progressive_disclosure",
    "type_alignment",
)
COMPARISON_KEYS = (
    "description_quality",
    "convention_compliance",
    "type_specific_quality",
    "token_efficiency",
    "content_value",
)


class Expectation(EvalModel):
    """One graded criterion of a case."""

    criterion: Annotated[str, Field(min_length=1)] = doc(
        "Short label; `grading.json` `results[].criterion` must repeat it exactly.",
        required=True,
        example="reads-skill-first",
    )
    description: Annotated[str, Field(min_length=1)] = doc(
        "What the grader checks. Must be concrete and falsifiable: name the file, command, value or behaviour; "
        'avoid "appropriate", "reasonable", "good".',
        required=True,
        example="Reads skills/scope/SKILL.md top to bottom before editing it",
    )
    required: bool = doc(
        "A failed required expectation fails the case; a failed optional one is only noted. Every case needs at "
        "least one required expectation, otherwise it can never fail.",
        required=True,
        example=True,
    )


class Case(EvalModel):
    """One eval case: a prompt and its graded expectations."""

    id: Annotated[str, Field(pattern=KEBAB)] = doc(
        "Case id, kebab-case, unique across cases; names the grading files `<id>_v<N>_run<M>.json`.",
        required=True,
        example="edit-skill-activates",
    )
    prompt: Annotated[str, Field(min_length=1)] = doc(
        "What the executor subagent is asked to do with the skill loaded.",
        required=True,
        example="Update the scope skill step 5 to include task IDs.",
    )
    files: list[str] = doc(
        "Input files, relative to the workspace (`{workspace}/{file}`); a missing one is logged in the "
        "transcript and the run continues. Fixtures usually live in `<skill>/evals/fixtures/`.",
        default=[],
        example=["fixtures/research-findings.md"],
    )
    expectations: list[Expectation] = doc(
        "Graded criteria (1–5 each; pass at ≥ 3).",
        required=True,
        example=[
            {
                "criterion": "reads-skill-first",
                "description": "Reads SKILL.md before editing",
                "required": True,
            }
        ],
    )


class EvalsFile(EvalModel):
    """``<skill>/evals/evals.json`` in the writing-skills format."""

    version: str = doc('Format version; the init script writes `"1.0"`.', required=True, example="1.0")
    skill: Annotated[str, Field(min_length=1)] = doc(
        "The skill under test: documented as its absolute path (`init_workspace.py` writes the resolved path); "
        "real files often use a repository-relative path such as `skills/commit`.",
        required=True,
        example="/home/me/.claude/skills/writing-skills",
    )
    cases: list[Case] = doc(
        "The eval cases.",
        required=True,
        example=[{"id": "first-case", "prompt": "…", "expectations": []}],
    )


class HistoryVersion(EvalModel):
    """One snapshot of the skill in the workspace."""

    version: Annotated[int, Field(ge=0)] = doc("Version number, 0-based.", required=True, example=0)
    timestamp: str = doc(
        "When the version was created, ISO 8601 UTC.",
        required=True,
        example="2026-02-25T10:00:00Z",
    )
    description: str = doc(
        '`"baseline"` for v0, else the `--description` or `"version N"`.',
        required=True,
        example="baseline",
    )
    git_hash: NullableStr = doc(
        "`git rev-parse HEAD` at copy time (null outside git).",
        type_="string | null",
        required=True,
        example="03681a4",
    )
    path: str = doc("Copy of the skill, `v<N>/skill`.", required=True, example="v0/skill")
    average_score: NullableFloat = doc(
        "Mean grading score of the version (1 decimal), null until graded.",
        type_="number | null",
        required=True,
        example=3.8,
    )


class HistoryFile(EvalModel):
    """``<skill>-workspace/history.json`` (not committed)."""

    versions: list[HistoryVersion] = doc(
        "Every version, oldest first.",
        required=True,
        example=[{"version": 0, "description": "baseline", "path": "v0/skill"}],
    )
    current_version: Annotated[int, Field(ge=0)] = doc(
        "The version being worked on.", required=True, example=1
    )


class GradedResult(EvalModel):
    """The grade of one expectation."""

    criterion: str = doc(
        "The expectation's `criterion`, verbatim.", required=True, example="reads-skill-first"
    )
    score: Annotated[int, Field(ge=1, le=5)] = doc(
        "1 not addressed · 2 partly, significant gaps · 3 met minimally · 4 met well · 5 exemplary.",
        type_="integer (1–5)",
        required=True,
        example=4,
    )
    passed: bool = doc("Always `score >= 3`; never set independently.", required=True, example=True)
    reasoning: str = doc(
        "Why this score, with evidence from the transcript.",
        required=True,
        example="Read the whole SKILL.md first (transcript step 2).",
    )


class ConventionCheck(EvalModel):
    """One convention check (never affects the score)."""

    passed: NullableBool = doc(
        "Whether the convention holds; null for behavioural runs.",
        type_="boolean | null",
        required=True,
        example=True,
    )
    details: str = doc("What was checked.", required=True, example="Frontmatter has name and description")


class ConventionCompliance(StrictEvalModel):
    """Exactly five convention checks."""

    frontmatter: ConventionCheck = doc(
        "Frontmatter conventions.", required=True, example={"passed": True, "details": "ok"}
    )
    description_field: ConventionCheck = doc(
        "Description conventions.", required=True, example={"passed": True, "details": "ok"}
    )
    token_efficiency: ConventionCheck = doc(
        "Token efficiency.", required=True, example={"passed": True, "details": "ok"}
    )
    progressive_disclosure: ConventionCheck = doc(
        "Progressive disclosure.", required=True, example={"passed": True, "details": "ok"}
    )
    type_alignment: ConventionCheck = doc(
        "Alignment with the skill type.",
        required=True,
        example={"passed": True, "details": "ok"},
    )


class Claim(EvalModel):
    """A claim the executor made, checked by the grader."""

    claim: str = doc("The claim.", required=True, example="All tests pass")
    verified: bool = doc("Whether the grader could verify it.", required=True, example=False)
    evidence: str = doc("What the grader found.", required=True, example="No test run in the transcript")


class GradingFile(EvalModel):
    """``grading/<case_id>_v<version>_run<run>.json``: the grader's verdict on one run."""

    case_id: str = doc("The evals.json case id.", required=True, example="edit-skill-activates")
    version: Annotated[int, Field(ge=0)] = doc("Skill version graded.", required=True, example=1)
    run: Annotated[int, Field(ge=1)] = doc(
        "Run number: 1–3 in improve mode, 1 in eval mode.", required=True, example=1
    )
    overall_score: Annotated[float, Field(ge=1, le=5)] = doc(
        "Mean of all scores, 1 decimal.", required=True, example=3.7
    )
    required_score: Annotated[float, Field(ge=1, le=5)] = doc(
        "Mean of the required criteria's scores, 1 decimal.", required=True, example=4.0
    )
    results: list[GradedResult] = doc(
        "One result per expectation.",
        required=True,
        example=[{"criterion": "x", "score": 4, "passed": True, "reasoning": "…"}],
    )
    overall: Literal["pass", "fail"] = doc(
        "`pass` only when every required expectation passed.", required=True, example="pass"
    )
    convention_compliance: ConventionCompliance = doc(
        "Five convention checks (never affect the score); behavioural runs use "
        '`{"passed": null, "details": "N/A - behavioral run"}`.',
        required=True,
        example={"frontmatter": {"passed": True, "details": "ok"}},
    )
    claims: list[Claim] = doc(
        "Executor claims and whether they hold.",
        default=[],
        example=[{"claim": "Tests pass", "verified": False, "evidence": "none run"}],
    )
    user_notes_summary: str = doc(
        'Summary of the executor\'s user notes, `""` if none.', default="", example=""
    )
    eval_feedback: str = doc('Suggestions about the evals themselves, `""` if none.', default="", example="")
    execution_metrics: dict = doc(
        "Copy of the executor's metrics.json, or `{}`.",
        default={},
        example={"total_tool_calls": 12},
    )


class ScorePair(EvalModel):
    """Blinded scores of the two outputs."""

    A: Annotated[int, Field(ge=1, le=10)] = doc("Score of output A (1–10).", required=True, example=7)
    B: Annotated[int, Field(ge=1, le=10)] = doc("Score of output B (1–10).", required=True, example=5)


class ComparisonScores(EvalModel):
    """The five comparison dimensions."""

    description_quality: ScorePair = doc(
        "Quality of the description.", required=True, example={"A": 7, "B": 5}
    )
    convention_compliance: ScorePair = doc("Convention compliance.", required=True, example={"A": 7, "B": 5})
    type_specific_quality: ScorePair = doc(
        "Quality for the skill type.", required=True, example={"A": 7, "B": 5}
    )
    token_efficiency: ScorePair = doc("Token efficiency.", required=True, example={"A": 7, "B": 5})
    content_value: ScorePair = doc("Value of the content.", required=True, example={"A": 7, "B": 5})


class ComparisonFile(EvalModel):
    """``comparison.json``: the blind comparator's verdict between two versions (A/B randomised)."""

    eval_prompt: str = doc("The prompt both versions ran.", required=True, example="…")
    winner: Literal["A", "B"] = doc(
        "The better output. The schema has no tie (the comparator prose allows one).",
        required=True,
        example="A",
    )
    reasoning: str = doc("Why the winner won.", required=True, example="A follows the template")
    scores: ComparisonScores = doc(
        "Scores per dimension.",
        required=True,
        example={"description_quality": {"A": 7, "B": 5}},
    )


class Suggestion(EvalModel):
    """One concrete improvement."""

    area: str = doc("Part of the skill.", required=True, example="description")
    before: str = doc("Current text.", required=True, example="Helps with commits")
    after: str = doc("Proposed text.", required=True, example="Writes conventional commits …")
    reasoning: str = doc("Why it helps.", required=True, example="Names the trigger")


class AnalysisFile(EvalModel):
    """``analysis.json``: the analyzer's unblinded explanation of a comparison."""

    winner_version: Annotated[str, Field(pattern=r"^v\d+$")] = doc(
        "Winning version label.", required=True, example="v1"
    )
    loser_version: Annotated[str, Field(pattern=r"^v\d+$")] = doc(
        "Losing version label.", required=True, example="v0"
    )
    strengths: list[str] = doc("Why the winner won.", required=True, example=["Clear steps"])
    weaknesses: list[str] = doc("What held the loser back.", required=True, example=["Vague trigger"])
    suggestions: list[Suggestion] = doc(
        "Improvements, each with before and after.",
        required=True,
        example=[{"area": "description", "before": "…", "after": "…", "reasoning": "…"}],
    )
