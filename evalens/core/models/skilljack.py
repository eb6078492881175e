"""skilljack-evals files: ``tasks.yaml``, ``eval.config.yaml``, ``<task-id>/task.md`` and results JSON.

Field names, defaults and version notes follow formats.md §3 (olaservo/skilljack-evals@e51416b
``src/parser.ts``, ``src/config.ts``; ``@1583807`` for the later deterministic keys and ``task.md``).
The original ignores unknown keys silently; evalens keeps them (extra="allow") and warns.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from evalens.core.models.base import EvalModel, doc

DEFAULT_WEIGHT = 0.33
"""Weight of a criterion that gives none (``parser.ts``: task → defaults → 0.33)."""
DEFAULT_RUNS = 3
"""``skilljack-evals run --runs`` default since ``10e9acb``."""
DIMENSIONS = ("discovery", "adherence", "output")
RUNNER_TYPES = (
    "claude-sdk",
    "claude-code",
    "codex",
    "copilot-sdk",
    "gemini",
    "opencode",
    "vercel-ai",
    "openai-agents",
)
"""Every ``runner.type`` some skilljack version accepts (formats.md §3.5 version differences)."""
NUDGE_VALUES = ("off", "name", "description", "full")
CHECK_KEYS = (
    "contains",
    "not_contains",
    "regex",
    "marker",
    "tool_calls",
    "no_tool_calls",
    "files_exist",
    "javascript",
)
OUTPUT_CHECK_KEYS = ("contains", "not_contains", "regex", "marker", "files_exist", "javascript")

_IGNORED = (
    "**Ignored by skilljack-evals at `e51416b`:** {what} — the module reads `loadConfigSync()`, which "
    "sees only built-in defaults and `EVAL_*` environment variables, so this value from the file (or "
    "the matching CLI flag) never takes effect there. evalens honours it."
)


# ----------------------------------------------------------------------------------------------- tasks.yaml


class Criterion(EvalModel):
    """One judge dimension: how much it weighs and what the judge should look for."""

    weight: Annotated[float, Field(ge=0, le=1)] = doc(
        "Weight of this dimension in the judge-only weighted score. A task's weights should sum to about 1 "
        "(`validate` reports sums off by more than 0.1). When absent: the `defaults` weight, else 0.33.",
        type_="number (0–1)",
        default=DEFAULT_WEIGHT,
        example=0.4,
    )
    description: str = doc(
        "What the judge should check for this dimension; shown to the judge next to the weight. "
        "When absent: the `defaults` description, else empty.",
        default="",
        example="Should follow the greeting format specified in the skill",
    )


class Criteria(EvalModel):
    """Judge dimensions. A dimension is judged only if it is set on the task or in `defaults`."""

    discovery: Criterion | None = doc(
        "Did the agent load the expected skill (binary 0/1; for `expected_skill_load: none`, 1 only if no "
        "skill loaded)?",
        default=None,
        example={"weight": 0.3, "description": "Loads greeting"},
    )
    adherence: Criterion | None = doc(
        "How well the agent followed the skill's instructions (judge score 1–5).",
        default=None,
        example={"weight": 0.4},
    )
    output: Criterion | None = doc(
        "Quality of the final output (judge score 1–5).",
        default=None,
        example={"weight": 0.3},
    )


class Deterministic(EvalModel):
    """Checks on the agent's event stream and output, run without the judge."""

    expect_skill_activation: bool = doc(
        "Whether the expected skill must be activated (a `Skill` tool call, or a SKILL.md read for Codex). "
        "`false` makes the task a negative (false-positive) test that passes only if **no** skill loads.",
        default=True,
        example=True,
        extra_md="Defaults to `true` **whenever a `deterministic` block exists**, even if it only sets a marker.",
    )
    expect_marker: str | None = doc(
        "Text the output must contain (case-insensitive substring; despite a comment in the original, not a "
        "regex).",
        default=None,
        example="GREETING_SUCCESS",
    )
    expect_tool_calls: list[str] | None = doc(
        "Tool names that must all be called, e.g. `Read`.",
        default=None,
        example=["Read"],
    )
    expect_no_tool_calls: list[str] | None = doc(
        "Tool names that must not be called.",
        default=None,
        example=["Bash"],
    )
    expect_contains: list[str] | None = doc(
        "Substrings that must all be in the output (case-sensitive). Later skilljack versions.",
        default=None,
        example=["Hello"],
    )
    expect_not_contains: list[str] | None = doc(
        "Substrings that must not be in the output (case-sensitive). Later skilljack versions.",
        default=None,
        example=["ERROR"],
    )
    expect_regex: list[str] | None = doc(
        "JavaScript regular expressions that must all match the output (5 s timeout each). Later versions.",
        default=None,
        example=["[Hh]ello|[Hh]i"],
    )
    expect_javascript: str | None = doc(
        "A JavaScript expression over `output` that must evaluate to exactly `true`. Later versions.",
        default=None,
        example="output.length < 500",
    )
    expect_file_exists: list[str] | None = doc(
        "Files that must exist afterwards, relative to the working directory (paths outside it fail). "
        "Later versions.",
        default=None,
        example=["results/greeting.txt"],
    )


class Fixture(EvalModel):
    """Per-task environment; parsed but not executed at `e51416b` (later versions run setup/teardown)."""

    state: str = doc("Fixture state name (unused at `e51416b`).", default="default", example="default")
    setup: str | None = doc(
        "Script run before the task (later versions; teardown runs even if it fails).",
        type_="string (path)",
        default=None,
        example="fixtures/setup.sh",
    )
    teardown: str | None = doc(
        "Script run after the task (later versions).",
        type_="string (path)",
        default=None,
        example="fixtures/teardown.sh",
    )


class Task(EvalModel):
    """One task: a prompt, the skill it should (or should not) load, and how it is scored."""

    id: Annotated[str, Field(min_length=1)] = doc(
        "Unique task id, selected with `--tasks gr-001,gr-002`. Convention: `<2-letter prefix>-NNN`, "
        "false-positive tests `<prefix>-fp-NNN`. Each task runs 3 times by default (`--runs`).",
        required=True,
        example="gr-001",
    )
    prompt: Annotated[str, Field(min_length=1)] = doc(
        "Prompt sent to the agent. Prompts that name the skill test compliance rather than discovery.",
        required=True,
        example="Hey, I just joined the team — can you give me a nice welcome?",
    )
    expected_skill_load: str | None = doc(
        "Skill the agent should load (a directory under `skills/` next to tasks.yaml), or `none` for a "
        "false-positive test. When absent: `defaults.expected_skill_load`.",
        default=None,
        example="greeting",
    )
    criteria: Criteria | None = doc(
        "Judge dimensions for this task (each inherits weight and description from `defaults`). The judge runs "
        "only if at least one dimension is set here or in `defaults`.",
        default=None,
        example={"discovery": {"weight": 0.3}, "adherence": {"weight": 0.4}, "output": {"weight": 0.3}},
    )
    golden_checklist: list[str] = doc(
        "Facts the judge checks the output against.",
        default=[],
        example=["Included GREETING_SUCCESS marker in output"],
    )
    deterministic: Deterministic | None = doc(
        "Deterministic checks. Its presence alone makes `expect_skill_activation` default to `true`.",
        default=None,
        example={"expect_skill_activation": True, "expect_marker": "OK"},
    )
    fixture: Fixture | None = doc(
        "Task environment (setup/teardown scripts).",
        default=None,
        example={"state": "default"},
    )


class Defaults(EvalModel):
    """Values every task inherits unless it sets its own."""

    expected_skill_load: str | None = doc(
        "Skill every task should load unless it says otherwise (`none`: no skill).",
        default=None,
        example="greeting",
    )
    criteria: Criteria | None = doc(
        "Default weight and description per judge dimension.",
        default=None,
        example={"discovery": {"weight": 0.3}},
    )


class TasksFile(EvalModel):
    """``tasks.yaml``: a skilljack eval suite for one skill."""

    skill: Annotated[str, Field(min_length=1)] = doc(
        "Name of the skill under test (the suite's `skills/` folder next to this file holds it).",
        required=True,
        example="greeting",
    )
    version: str | float | None = doc(
        "Free-form suite version, passed through. Quote it: unquoted `1.0` is a number in YAML.",
        default=None,
        example="1.0",
    )
    defaults: Defaults | None = doc(
        "Values inherited by every task.",
        default=None,
        example={"expected_skill_load": "greeting"},
    )
    tasks: list[Task] = doc(
        "The tasks. Each runs `--runs` times (default 3) and is scored deterministically and/or by the judge.",
        required=True,
        example=[{"id": "gr-001", "prompt": "Say hello"}],
    )


# ----------------------------------------------------------------------------------------------- eval.config


class Models(EvalModel):
    """Models for the agent and the judge."""

    agent: str = doc(
        "Agent model (env `EVAL_AGENT_MODEL`, flag `--model`).",
        default="sonnet",
        example="sonnet",
    )
    judge: str = doc(
        "Judge model (env `EVAL_JUDGE_MODEL`, flag `--judge-model`).",
        default="haiku",
        example="haiku",
    )


class Weights(EvalModel):
    """Weights of the merged score (deterministic discovery + judge adherence/output)."""

    discovery: float = doc(
        "Weight of discovery.",
        default=0.3,
        example=0.3,
        extra_md=_IGNORED.format(what="merge weights (`src/scorer/scorer.ts` line 38)"),
    )
    adherence: float = doc(
        "Weight of adherence.",
        default=0.4,
        example=0.4,
        extra_md=_IGNORED.format(what="merge weights (`src/scorer/scorer.ts` line 38)"),
    )
    output: float = doc(
        "Weight of output quality.",
        default=0.3,
        example=0.3,
        extra_md=_IGNORED.format(what="merge weights (`src/scorer/scorer.ts` line 38)"),
    )


class Scoring(EvalModel):
    """How scores are combined."""

    weights: Weights = doc(
        "Merged-score weights; should sum to 1.",
        default={},
        example={"discovery": 0.3, "adherence": 0.4, "output": 0.3},
    )


class Thresholds(EvalModel):
    """Pass/fail thresholds of a run (exit code 1 when missed)."""

    discovery_rate: Annotated[float, Field(ge=0, le=1)] = doc(
        "Minimum share of tasks whose expected skill loaded (env `EVAL_DISCOVERY_THRESHOLD`, flag "
        "`--threshold-discovery`).",
        type_="number (0–1)",
        default=0.8,
        example=0.8,
        extra_md=_IGNORED.format(what="report thresholds (`src/report/report.ts` lines 33, 182)"),
    )
    avg_score: Annotated[float, Field(ge=1, le=5)] = doc(
        "Minimum average adherence **and** average output quality, compared separately (not the weighted "
        "score; env `EVAL_SCORE_THRESHOLD`, flag `--threshold-score`).",
        type_="number (1–5)",
        default=4.0,
        example=4.0,
        extra_md=_IGNORED.format(what="report thresholds (`src/report/report.ts` lines 33, 182)"),
    )


class Runner(EvalModel):
    """How tasks are executed."""

    timeout_ms: Annotated[int, Field(gt=0)] = doc(
        "Time limit per task run (env `EVAL_TASK_TIMEOUT_MS`, flag `--timeout`).",
        default=300000,
        unit="milliseconds",
        example=300000,
        extra_md=_IGNORED.format(what="the runner timeout (`src/runner/runner.ts` line 181)"),
    )
    allowed_write_dirs: list[str] = doc(
        "Directories (relative to the working directory) the agent may `Write`/`Edit` in; other writes are "
        "denied with `Write denied: <path> is outside allowed directories`.",
        default=["./results/", "./fixtures/"],
        example=["./results/"],
    )
    type: str = doc(
        "Agent runner (env `EVAL_RUNNER_TYPE`, flag `--runner`). Values depend on the skilljack version: "
        "`claude-sdk`, `claude-code` (`@1583807`), `codex`, `gemini`, `opencode`, `copilot-sdk` (later), "
        "`vercel-ai`, `openai-agents` (branch `821fbaa`).",
        default="claude-sdk",
        example="claude-code",
    )
    concurrency: Annotated[int, Field(ge=0)] | None = doc(
        "Tasks run in parallel (`@1583807`; env `EVAL_RUNNER_CONCURRENCY`); must be a non-negative integer.",
        default=None,
        example=2,
    )


class Output(EvalModel):
    """Where and how much is written."""

    dir: str = doc(
        "Results folder (env `EVAL_OUTPUT_DIR`, flag `--output-dir`).",
        default="./results",
        example="./results",
    )
    judge_truncation: Annotated[int, Field(gt=0)] = doc(
        "Characters of agent output shown to the judge (env `EVAL_OUTPUT_TRUNCATION`).",
        default=5000,
        unit="characters",
        example=5000,
        extra_md=_IGNORED.format(what="judge truncation (`src/scorer/judge.ts` line 94)"),
    )
    report_truncation: Annotated[int, Field(gt=0)] = doc(
        "Characters of output per task in the markdown report (env `EVAL_REPORT_TRUNCATION`).",
        default=2000,
        unit="characters",
        example=2000,
        extra_md=_IGNORED.format(what="report truncation"),
    )


class Ci(EvalModel):
    """CI behaviour."""

    exit_on_failure: bool = doc(
        "Exit 1 when thresholds fail (env `EVAL_EXIT_ON_FAILURE`: anything but `'false'` is true).",
        default=True,
        example=True,
        extra_md="**Ignored by skilljack-evals at `e51416b`:** read but never used. evalens honours it.",
    )
    github_summary: bool = doc(
        "Append a summary to `$GITHUB_STEP_SUMMARY` (env `EVAL_GITHUB_SUMMARY`: only `'true'` is true).",
        default=False,
        example=False,
    )
    html_report: bool = doc(
        "Write an HTML report too (`@1583807`; env `EVAL_HTML_REPORT`).",
        default=True,
        example=True,
    )


class Cache(EvalModel):
    """Response cache (`@1583807`)."""

    enabled: bool = doc("Reuse cached task results (env `EVAL_CACHE_ENABLED`).", default=True, example=True)
    dir: str = doc(
        "Cache folder (env `EVAL_CACHE_DIR`).",
        default="./results/.cache",
        example="./results/.cache",
    )
    ttl_hours: Annotated[float, Field(ge=0)] = doc(
        "Age after which entries expire (env `EVAL_CACHE_TTL_HOURS`).",
        default=168,
        unit="hours",
        example=168,
    )


class EvalConfigFile(EvalModel):
    """``eval.config.yaml``: skilljack run settings (defaults → file → `EVAL_*` env → CLI flags)."""

    models: Models = doc("Agent and judge models.", default={}, example={"agent": "sonnet", "judge": "haiku"})
    scoring: Scoring = doc(
        "Score weights.",
        default={},
        example={"weights": {"discovery": 0.3, "adherence": 0.4, "output": 0.3}},
    )
    thresholds: Thresholds = doc(
        "Pass/fail thresholds.", default={}, example={"discovery_rate": 0.8, "avg_score": 4.0}
    )
    runner: Runner = doc("Task execution.", default={}, example={"timeout_ms": 300000})
    output: Output = doc("Report output.", default={}, example={"dir": "./results"})
    ci: Ci = doc("CI behaviour.", default={}, example={"exit_on_failure": True})
    nudge: Literal["off", "name", "description", "full"] | None = doc(
        "How much the prompt hints at the skill (`@1583807`; env `EVAL_NUDGE`).",
        default=None,
        example="off",
    )
    cache: Cache = doc("Response cache (`@1583807`).", default={}, example={"enabled": True})


# ----------------------------------------------------------------------------------------------- task.md


class Verifier(EvalModel):
    """A verifier script (`verifier/verify.*` or `test.*`) or command that rewards the run."""

    timeout_ms: Annotated[int, Field(gt=0)] | None = doc(
        "Verifier time limit.", default=None, unit="milliseconds", example=60000
    )
    command: str | None = doc(
        "Command to run instead of a `verifier/verify.*` script.",
        default=None,
        example="npm test",
    )


class Checks(EvalModel):
    """Output checks of a task package; they map one-to-one onto the tasks.yaml `expect_*` keys."""

    contains: list[str] | None = doc(
        "Substrings the output must contain (case-sensitive).",
        default=None,
        example=["GREETING_SUCCESS"],
    )
    not_contains: list[str] | None = doc(
        "Substrings the output must not contain.", default=None, example=["ERROR"]
    )
    regex: list[str] | None = doc(
        "JavaScript regular expressions the output must match.",
        default=None,
        example=["[Hh]ello"],
    )
    marker: str | None = doc(
        "Case-insensitive marker the output must contain.",
        default=None,
        example="GREETING_SUCCESS",
    )
    tool_calls: list[str] | None = doc("Tools that must be called.", default=None, example=["Read"])
    no_tool_calls: list[str] | None = doc("Tools that must not be called.", default=None, example=["Bash"])
    files_exist: list[str] | None = doc(
        "Files that must exist in the workspace afterwards.",
        default=None,
        example=["out/greeting.txt"],
    )
    javascript: str | None = doc(
        "JavaScript expression over `output` that must be exactly `true`.",
        default=None,
        example="output.includes('Hi')",
    )


class TaskFrontmatter(EvalModel):
    """Frontmatter of a skilljack ``task.md`` package (the markdown body is the prompt)."""

    id: str | None = doc(
        "Task id; if present it must equal the task's directory name.",
        default=None,
        example="gr-001",
    )
    difficulty: Literal["easy", "medium", "hard"] = doc("Difficulty label.", default="medium", example="easy")
    category: str | None = doc("Free-form category.", default=None, example="greeting")
    tags: list[str] | None = doc("Free-form tags.", default=None, example=["smoke"])
    expected_skill: str | None = doc(
        "Skill the agent should invoke; required when several skills are available (suite `skills/` plus "
        "`environment/skills/`).",
        default=None,
        example="greeting",
    )
    expect_skill_invocation: bool | None = doc(
        "Whether a skill must be invoked. `false`: negative test. Default: `true` iff skills are present.",
        default=None,
        example=False,
    )
    timeout_ms: Annotated[int, Field(gt=0)] | None = doc(
        "Time limit for the task.", default=None, unit="milliseconds", example=300000
    )
    verifier: Verifier | None = doc("Verifier settings.", default=None, example={"timeout_ms": 60000})
    checks: Checks | None = doc(
        "Deterministic output checks.", default=None, example={"marker": "GREETING_SUCCESS"}
    )
    assertions: list[str] | None = doc(
        "Statements the judge checks (the golden checklist); judge criteria weights come from the config.",
        default=None,
        example=["Friendly and welcoming tone"],
    )


# ----------------------------------------------------------------------------------------------- results


class ResultsMetadata(EvalModel):
    """Provenance of a run."""

    skillPath: str | None = doc("Path of the tasks file.", default=None, example="evals/greeting/tasks.yaml")
    agentModel: str | None = doc("Agent model.", default=None, example="sonnet")
    judgeModel: str | None = doc("Judge model.", default=None, example="haiku")
    runnerType: str | None = doc("Runner type.", default=None, example="claude-sdk")


class ResultsSummary(EvalModel):
    """Totals over all tasks and runs."""

    totalTasks: int = doc("Number of tasks.", example=3)
    numRuns: int | None = doc("Task runs in total.", default=None, example=9)
    discoveryAccuracy: Annotated[float, Field(ge=0, le=1)] = doc(
        "Share of tasks with correct discovery.", type_="number (0–1)", example=1
    )
    avgAdherence: float | None = doc("Mean adherence (1–5).", default=None, example=4.5)
    avgOutputQuality: float | None = doc("Mean output quality (1–5).", default=None, example=4.5)
    avgWeightedScore: float | None = doc("Mean weighted score (0–1).", default=None, example=0.9)
    totalDurationMs: float | None = doc("Summed duration.", default=None, unit="milliseconds", example=238399)
    totalCostUsd: float | None = doc(
        "Summed cost (0 when the runner reports none).",
        default=None,
        unit="USD",
        example=0.47,
    )


class FailureCount(EvalModel):
    """How often a failure category occurred."""

    category: str = doc("Failure category.", example="none")
    count: int = doc("Tasks in this category.", example=3)
    percentage: float = doc("Share of tasks.", unit="percent", example=100)


class TaskOutcome(EvalModel):
    """One task: the parsed task, the representative run result, the (aggregated) score."""

    task: dict[str, Any] = doc("The parsed task, camelCase.", example={"id": "gr-001"})
    result: dict[str, Any] = doc(
        "The representative run's result.",
        example={"taskId": "gr-001", "skillLoads": ["greeting"]},
    )
    score: dict[str, Any] = doc(
        "The score (aggregated over runs).",
        example={"discovery": 1, "adherence": 5, "outputQuality": 5},
    )
    runDetails: list[dict[str, Any]] | None = doc("Every run's result and score.", default=None, example=[])


class ResultsFile(EvalModel):
    """skilljack results JSON (``<output.dir>/<skill>-<timestamp>.json``)."""

    skillName: str = doc("Skill under test.", required=True, example="greeting")
    timestamp: str = doc("Run time, ISO 8601.", required=True, example="2026-03-01T04:21:52.927Z")
    passed: bool = doc("Whether every threshold was met.", required=True, example=True)
    failureReasons: list[str] = doc(
        "Why the run failed (empty when passed).",
        default=[],
        example=["Discovery rate 66.7% below threshold 80%"],
    )
    metadata: ResultsMetadata = doc("Provenance.", default={}, example={"agentModel": "sonnet"})
    summary: ResultsSummary = doc("Totals.", required=True, example={"totalTasks": 3, "discoveryAccuracy": 1})
    failureBreakdown: list[FailureCount] = doc(
        "Tasks per failure category.",
        default=[],
        example=[{"category": "none", "count": 3, "percentage": 100}],
    )
    tasks: list[TaskOutcome] = doc("Per-task outcomes.", default=[], example=[])
