"""The request, progress and outcome types of the run API (:func:`evalens.runner.api.run`): one
:class:`RunRequest` for every format; the progress and outcome of a package's cases
(:func:`~evalens.runner.api.run_cases`).

Stability: the fields of :class:`RunRequest`, :class:`ProgressEvent` and :class:`RunOutcome` are a public
contract; add fields, don't rename them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, model_validator

from evalens.core.models.uaaps import EvalReport
from evalens.core.models.verdict import Verdict
from evalens.runner.results import CaseResult

Stage = Literal["plan", "sandbox", "agent", "checks", "judge", "cleanup", "done", "report"]

SNIPPET_CHARS = 500
FILE_ENGINE = "claude-code"  # an eval file's engine when none is asked for (a package's: its eval config's)


class RunError(Exception):
    """A run cannot start (bad selection, config, engine, missing key). ``exit_code`` is 2 for usage errors."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class AgentRunLimits(BaseModel):
    """What bounds each agent run, the same for every format: per-run turn and token limits, retries of
    transient API errors, resource limits (docs/repeats.md#per-run-limits, docs/sandbox.md#resource-limits)."""

    max_turns: int | None = Field(
        default=None,
        ge=1,
        description="Model calls one agent run may make; the run is stopped past it and is ERROR (turn limit).",
    )
    max_tokens_per_run: int | None = Field(
        default=None,
        ge=1,
        description="Tokens (in + out) one agent run may use, counted while it streams; the run is stopped "
        "past it and is ERROR (token limit).",
    )
    agent_retries: int | None = Field(
        default=None,
        ge=0,
        description="Times an agent run that met a transient model API error (429, 5xx) is run again "
        "from scratch within its time budget (None: $EVALENS_AGENT_RETRIES, else 2).",
    )
    resource_limits: dict[str, int] = Field(
        default_factory=dict,
        description="Resource limits of each agent run by `--limit` name (pids, memory-mb, cpu-seconds, "
        "file-mb, workspace-mb); over the config's `sandbox.limits` and evalens's defaults.",
    )
    record: bool = Field(
        default=False,
        description="Store every unit-run's model exchanges (agent and judge) as a cassette in "
        "`evals/cassettes/` (docs/replay.md).",
    )
    replay: Literal["strict", "new"] | None = Field(
        default=None,
        description="Answer the model requests from the cassettes: `strict` (a request that differs is ERROR) or "
        "`new` (live from the first request that differs, and recorded).",
    )
    replay_base: str | None = Field(
        default=None,
        description="With `replay`, a git ref whose cassettes are trusted: a cassette that differs from it (the "
        "change added or edited it) never answers a request (docs/ci.md).",
    )
    allow_unpriced: bool = Field(
        default=False,
        description="Start a batch with `max_cost` even when its agent's runs cannot be priced (an engine that "
        "reports no cost, with a model the price table lacks or the CLI's default): those runs count $0.",
    )


class RunOptions(AgentRunLimits):
    """What every run request means the same way, under one name each (issue 41): the engine, the agent model,
    the judge, the timeout in seconds, runs, limits, baseline, arm, resume and the report. :class:`RunRequest`
    adds what it selects (a UAAPS package's cases or an eval file's units); ``evalens run`` fills it from the one
    option set (``evalens/cli/run_options.py``). The file request's old names (``model``, ``judge_model``, ``timeout_seconds``, ``report``) are still
    accepted as keywords."""

    model_config = ConfigDict(arbitrary_types_allowed=True, populate_by_name=True)

    engine: str | None = Field(default=None, description="Engine override (`claude-code`, `codex`).")
    agent_model: str | None = Field(
        default=None,
        validation_alias=AliasChoices("agent_model", "model"),
        description="Model the agent should use (engine default if unset).",
    )
    judge: str | None = Field(
        default=None,
        validation_alias=AliasChoices("judge", "judge_model"),
        description="Judge / grader model override (`model` or `provider:model`).",
    )
    timeout: float | None = Field(
        default=None,
        validation_alias=AliasChoices("timeout", "timeout_seconds"),
        description="Per-run agent timeout in seconds.",
    )
    judge_timeout: float | None = Field(
        default=None,
        description="Seconds all judge calls of one run may "
        "take (default: $EVALENS_JUDGE_TIMEOUT, else half the case timeout, "
        "10-60 s); then the run is ERROR.",
    )
    no_judge: bool = Field(default=False, description="Skip the LLM judge; verdicts come from checks alone.")
    dry_run: bool = Field(default=False, description="Plan only: no agent, no model, no report.")
    keep_sandbox: bool = Field(default=False, description="Keep each sandbox directory for inspection.")
    extra_env: list[str] = Field(
        default_factory=list,
        description="Names of the caller's environment variables passed through to the agent (`--env NAME`, the "
        "editor's `evalens.apiKeyEnvVars`); names only, their values are read from the caller's environment.",
    )
    runs: int = Field(default=1, ge=1, description="Runs per unit; the report carries each unit's pass rate.")
    runs_auto: bool = Field(
        default=False,
        description="`--runs auto[:MAX]`: `runs` is MAX, and a unit runs again only while the Wilson interval of "
        "its pass rate straddles `runs_threshold` (runner/adaptive.py); the report says why each unit stopped.",
    )
    runs_threshold: float = Field(
        default=0.5, ge=0, le=1, description="The pass rate adaptive repeats decide a unit against."
    )
    jobs: int = Field(
        default=1,
        ge=1,
        description="Agent runs in flight at once, a unit's repeats among them (one after another under "
        "--runs auto), whatever the format; a run starts only while the budget lasts.",
    )
    max_cost: float | None = Field(
        default=None,
        ge=0,
        description="USD the batch may spend; then no new run "
        "starts and the rest are SKIP (docs/repeats.md#budgets).",
    )
    max_tokens: int | None = Field(default=None, ge=0, description="Tokens (in + out) the batch may spend.")
    budget: Any = Field(
        default=None,
        exclude=True,
        description="A runner.budget.Budget shared by several calls "
        "(an editor's batch); when set, max_cost and max_tokens are ignored.",
    )
    baseline: str | None = Field(
        default=None,
        description="`no-skill`, or a git ref: run every unit again "
        "without the skill or package, or with it as it was at the ref (docs/baseline.md).",
    )
    allow_unisolated_baseline: bool = Field(
        default=False,
        description="Run a baseline even when the sandbox is "
        "not enforced (its agent can read the package from the host); the "
        "uplift is then marked unisolated.",
    )
    arm: str | None = Field(
        default=None,
        description="`--arms`: the arm this batch runs (`skill`, `no-skill`, `plugin`, `ref:REF`, "
        "`without:references|scripts|hooks`): what its runs install (runner/arms.py).",
    )
    output: Path | None = Field(
        default=None,
        validation_alias=AliasChoices("output", "report"),
        description="The evalens report's path; default evals/reports/<timestamp>.json.",
    )
    write_report: bool = Field(
        default=True, description="Write the report and artifacts (false: results only)."
    )
    resume: Path | None = Field(
        default=None,
        description="The report of a batch cut short: run only its runs that did not finish (its run log says "
        "which), keep the others, and write its report complete. The other fields must be the batch's own "
        "(`runner.run_log`); a changed input is refused.",
    )


class RunRequest(RunOptions):
    """What to run, one request for every format (issue 41): a UAAPS package's cases (``package_root``, unset
    overrides falling back to ``evals/eval-config.json``) or one eval file's units (``file``, unset values
    falling back to the suite's own configuration, skilljack's ``eval.config.yaml``, then to the format's
    defaults: a file runs 3 times and on Claude Code unless told). The options are :class:`RunOptions`', the
    same for both; the fields below the selection are each one kind's own, and the CLI refuses one given for
    the other kind (``evalens/cli/run_options.py``)."""

    package_root: Path | None = Field(
        default=None, description="Package root: the folder holding `evals/` (or give `file`)."
    )
    cases: list[str] = Field(
        default_factory=list, description="Case names or case file paths; empty = every case in evals/cases/."
    )
    target: str | None = Field(
        default=None, description="Only cases with this target, e.g. `skill:pdf-tools`."
    )
    judge_repeats: int = Field(
        default=1,
        ge=1,
        description="`--judge-repeats K`: each transcript judged K times; any FAIL fails, any ERROR errs, and the "
        "report gives each case's flip rate and the batch's agreement (Krippendorff's alpha).",
    )
    agent_key_env: list[str] | None = Field(
        default=None, description="Env var names holding the agent's API key (engine default)."
    )
    judge_key_env: list[str] | None = Field(
        default=None, description="Env var names holding the judge's API key (provider default)."
    )

    file: Path | None = Field(
        default=None,
        description="An eval file to run (tasks.yaml, task.md, evals.json, a trigger eval set, a plugin eval "
        "case): its units, instead of a package's cases.",
    )
    units: list[str] = Field(default_factory=list, description="Unit ids to run (empty: every unit).")
    no_deterministic: bool = Field(default=False, description="Skip skilljack's deterministic checks.")
    config: Path | None = Field(
        default=None, description="skilljack eval.config.yaml (default: beside the file)."
    )
    output_dir: Path | None = Field(default=None, description="Where the format's own result files go.")
    json_output: Path | None = Field(default=None, description="Also write the format's JSON results here.")
    skills_dir: Path | None = Field(
        default=None, description="skilljack: skills folder (default: skills/ beside)."
    )
    skill: Path | None = Field(
        default=None, description="Trigger sets: the skill folder (default: inferred)."
    )
    with_installed: list[Path] = Field(
        default_factory=list,
        description="Trigger sets: other skills installed beside the one under test, so queries can be stolen "
        "(each a skill folder, or a folder of skills such as a plugin's `skills/`).",
    )
    threshold_discovery: float | None = None
    threshold_score: float | None = Field(
        default=None,
        description="skilljack: the mean score a task needs (1-5); plugin evals: the run score a case needs (0-1, "
        "default 1).",
    )
    ablation: str | None = Field(
        default=None,
        description="Plugin evals: `with-without` (the default, as `claude plugin eval` decides for a case whose "
        "plugin resolves: each run again without the plugin, the with-only graders unscored) or `none`.",
    )
    github_summary: bool = False

    @model_validator(mode="after")
    def _one_target(self) -> RunRequest:
        """Exactly one of ``package_root`` and ``file``; a file's defaults where the caller set none."""
        if (self.package_root is None) == (self.file is None):
            raise ValueError("a run request names a package_root or a file, not both and not neither")
        if self.file is not None:
            if "runs" not in self.model_fields_set:
                self.runs = 3
            if self.engine is None:
                self.engine = FILE_ENGINE
        return self

    @property
    def package_path(self) -> Path:
        """The package a package request runs (typed: the validator saw it set)."""
        if self.package_root is None:
            raise ValueError("this request runs an eval file, not a package")
        return self.package_root

    @property
    def file_path(self) -> Path:
        """The eval file a file request runs (typed: the validator saw it set)."""
        if self.file is None:
            raise ValueError("this request runs a package, not an eval file")
        return self.file

    @property
    def file_engine(self) -> str:
        """The engine a file request runs on (the validator set Claude Code where none was asked for)."""
        return self.engine or FILE_ENGINE

    # the names the file request had before it shared RunOptions' (a public API: still readable)
    @property
    def model(self) -> str | None:
        """Deprecated: ``agent_model``."""
        return self.agent_model

    @property
    def judge_model(self) -> str | None:
        """Deprecated: ``judge``."""
        return self.judge

    @property
    def timeout_seconds(self) -> float | None:
        """Deprecated: ``timeout``."""
        return self.timeout

    @property
    def report(self) -> Path | None:
        """Deprecated: ``output``."""
        return self.output


class ProgressEvent(BaseModel):
    """A step of the run; ``case_name`` is None for run-level events (plan, report)."""

    case_name: str | None = Field(description="Case the event belongs to.")
    stage: Stage = Field(description="plan | sandbox | agent | checks | judge | cleanup | done | report.")
    message: str = Field(default="", description="Human-readable detail.")
    run_index: int = Field(default=1, description="1-based run number with `runs` > 1.")
    case_file: str | None = Field(default=None, description="Case file path.")
    verdict: Verdict | None = Field(default=None, description="Set on `done`.")
    report_path: str | None = Field(
        default=None, description="Set on `report` (announced before the cases run)."
    )


class PlannedCase(BaseModel):
    name: str
    case_file: str
    target: str | None = None
    prompt: str
    files: list[str] = Field(default_factory=list)
    workspace_files: list[str] = Field(default_factory=list)
    checks: list[str] = Field(default_factory=list)


class RunPlan(BaseModel):
    """What would run: printed by ``--dry-run``."""

    package_root: str
    package_name: str
    package_version: str | None = None
    engine: str
    engine_binary: str | None = None
    agent_model: str | None = None
    judge: str | None = None
    judge_provider: str | None = None
    timeout: float
    runs: int
    jobs: int
    baseline: str | None = Field(
        default=None, description="What each case also runs against (`no skill`, a ref)."
    )
    sandbox: dict[str, Any]
    env_passed: list[str]
    cases: list[PlannedCase]
    warnings: list[str] = Field(default_factory=list)


class RunOutcome(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    plan: RunPlan
    report: EvalReport | None = None
    report_path: Path | None = None
    results: list[CaseResult] = Field(default_factory=list)
    interrupted: bool = False
