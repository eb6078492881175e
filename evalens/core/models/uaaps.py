"""UAAPS / AAM eval files: ``evals/eval-config.json``, ``evals/cases/*.yaml``, ``evals/reports/*.json``.

Field names, defaults and rules follow formats.md §2 (uaaps/uaaps_docs@9379291,
docs/spec/01-package-format.md). Case files use kebab-case keys; reports use snake_case.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, core_schema

from evalens.core.engines import engine_names
from evalens.core.models.base import EvalModel, doc
from evalens.core.models.baseline import ArmSource, BaselineSource, ReportArms, Uplift
from evalens.core.models.cassette import CaseReplay
from evalens.core.models.run_record import Usage
from evalens.core.models.verdict import CheckStatus, State, Verdict

NAME_PATTERN = r"^[a-z0-9-]+$"
TARGET_PATTERN = r"^(skill:[A-Za-z0-9._-]+|hook:[A-Za-z0-9._-]+|agent:[A-Za-z0-9._-]+)$"


def _known_engine(name: str) -> str:
    if name not in engine_names():
        raise ValueError(f"Input should be {' or '.join(repr(n) for n in engine_names())}")
    return name


class _RegisteredEngine:
    """An engine name the registry knows (``evalens.core.engines``): validated against it, and the JSON Schema's
    enum is the registry's at the time the schema is made."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.no_info_after_validator_function(_known_engine, core_schema.str_schema())

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {"type": "string", "enum": list(engine_names())}


Engine = Annotated[str, _RegisteredEngine]


class SandboxLimits(EvalModel):
    """Resource limits of each agent run (evalens extension; docs/sandbox.md#resource-limits). Unset fields keep
    evalens's defaults; `--limit NAME=VALUE` overrides both."""

    pids: int | None = doc(
        "Processes and threads the agent's tree may run (default 1024).",
        default=None,
        example=256,
        ge=1,
    )
    memory_mb: int | None = doc(
        "Memory in MB: the address space of one process, and the whole tree where a cgroup can be made "
        "(default 8192).",
        default=None,
        example=4096,
        ge=1,
        alias="memory-mb",
    )
    cpu_seconds: int | None = doc(
        "CPU time in seconds of one process (default 3600).",
        default=None,
        example=600,
        ge=1,
        alias="cpu-seconds",
    )
    file_mb: int | None = doc(
        "Size in MB of one file the agent writes (default 2048).",
        default=None,
        example=512,
        ge=1,
        alias="file-mb",
    )
    workspace_mb: int | None = doc(
        "Size in MB of everything the agent's sandbox holds: workspace, HOME, TMPDIR (default 4096).",
        default=None,
        example=1024,
        ge=1,
        alias="workspace-mb",
    )

    def overrides(self) -> dict[str, int]:
        """The limits this config sets, by their `--limit` names."""
        return {k.replace("_", "-"): v for k, v in self.model_dump(exclude_none=True).items()}


class SandboxConfig(EvalModel):
    """Isolation of the agent during an eval run."""

    network: bool = doc(
        "Allow network access inside the sandbox. The agent still reaches its model; its tools do not.",
        default=False,
        example=False,
    )
    writable_paths: list[str] | None = doc(
        "Directories (relative to the sandbox workspace) the agent may write. "
        "When absent the whole temporary workspace is writable.",
        default=None,
        example=["src/", "output/"],
        alias="writable-paths",
    )
    limits: SandboxLimits | None = doc(
        "Resource limits of each agent run; a run that meets one is ERROR naming it.",
        default=None,
        example={"pids": 256, "memory-mb": 4096},
    )


class EvalConfig(EvalModel):
    """`evals/eval-config.json`: how a package's eval cases are run."""

    version: Literal[1] = doc(
        "Format version of the eval config; currently `1`.",
        example=1,
        required=True,
    )
    engine: Engine = doc(
        "Agent engine that runs the cases: `claude-code` or `codex`. `copilot` and `cursor` are reserved "
        "until they have a headless mode and give an unsupported-engine error.",
        example="claude-code",
        required=True,
    )
    timeout: Annotated[float, Field(gt=0)] = doc(
        "Maximum time per eval case; the agent's whole process tree is killed when it runs out.",
        default=120,
        unit="seconds",
        example=120,
    )
    judge: str | None = doc(
        "Judge model for `judge.criteria`, e.g. `claude-sonnet-4-5` or `openai:gpt-5-mini`. "
        "Default: the engine's own model. `evalens eval --judge` overrides it.",
        example="claude-sonnet-4-5",
        default=None,
    )
    sandbox: SandboxConfig = doc(
        "Sandbox settings: network access and writable paths.",
        default={},
        example={"network": False, "writable-paths": ["output/"]},
    )
    env: dict[str, str] = doc(
        "Environment variables injected into the agent's sandbox (on top of the allow-listed ones): the eval's "
        "own settings only. Loader, shell, runtime, proxy, base-URL and key variables (`LD_*`, `BASH_ENV`, "
        "`NODE_OPTIONS`, `*_PROXY`, `*_BASE_URL`, `*_API_KEY`, `*_TOKEN`…) are refused (`env-refused`): they come "
        "from the runner's environment, never from an eval file.",
        default={},
        example={"PDF_STRICT": "1"},
    )


class CaseInput(EvalModel):
    """What the agent is given."""

    prompt: Annotated[str, Field(min_length=1)] = doc(
        "Prompt sent to the agent.",
        required=True,
        example="Extract the tables from report.pdf",
    )
    files: list[str] = doc(
        "Fixture files copied into the sandbox, relative to `evals/` (`fixtures/sample.pdf` means "
        "`evals/fixtures/sample.pdf`). Absolute paths and `..` escapes are errors.",
        default=[],
        example=["fixtures/sample.pdf"],
    )
    workspace_files: list[str] = doc(
        "Additional files pre-created (empty) in the sandbox workspace, relative to it.",
        default=[],
        example=["output/.keep"],
        alias="workspace-files",
    )


class CaseExpected(EvalModel):
    """Deterministic checks, run before the judge."""

    contains: list[str] = doc(
        "Substrings that must appear in the agent's final output (case-sensitive).",
        default=[],
        example=["| Quarter |"],
    )
    not_contains: list[str] = doc(
        "Substrings that must not appear in the agent's final output (case-sensitive).",
        default=[],
        example=["Traceback"],
        alias="not-contains",
    )
    files_created: list[str] = doc(
        "Files the agent must create in the workspace, relative to it.",
        default=[],
        example=["output/tables.csv"],
        alias="files-created",
    )
    agent_blocked: bool | None = doc(
        "`true`: the agent must be blocked by a hook (a tool call denied by a hook exiting 2); "
        "`false`: it must not be blocked.",
        default=None,
        example=True,
        alias="agent-blocked",
    )


class CaseJudge(EvalModel):
    """The LLM judge's instructions."""

    criteria: Annotated[str, Field(min_length=1)] = doc(
        "Natural-language pass/fail criteria for the LLM judge. Name concrete, checkable facts "
        "(values, file names, formats) rather than 'appropriate' or 'good'.",
        required=True,
        example="The output contains a markdown table with the Q1-Q4 revenue figures from the PDF.",
    )


class EvalCase(EvalModel):
    """`evals/cases/*.yaml`: one eval case."""

    name: Annotated[str, Field(pattern=NAME_PATTERN, max_length=64)] = doc(
        "Case identifier: lowercase letters, digits and `-`, at most 64 characters. Selects the case "
        "on the command line (`evalens eval <name>`); unique across `evals/cases/`.",
        required=True,
        example="pdf-table-extraction",
    )
    description: str | None = doc(
        "What the case checks, for humans.",
        default=None,
        example="Extracts tables from a PDF into CSV.",
    )
    target: Annotated[str, Field(pattern=TARGET_PATTERN)] | None = doc(
        "What the case exercises: `skill:<name>` (skills/<name>/SKILL.md), `hook:<event>` (an event in "
        "hooks/hooks.json) or `agent:<name>` (agents/<name>/).",
        default=None,
        example="skill:pdf-tools",
    )
    input: CaseInput = doc(
        "What the agent is given: the prompt and fixture files.",
        required=True,
        example={"prompt": "Extract the tables from report.pdf", "files": ["fixtures/report.pdf"]},
    )
    expected: CaseExpected = doc(
        "Deterministic checks on the agent's output and workspace, run before the judge.",
        default={},
        example={"contains": ["Q1"], "files-created": ["output/tables.csv"]},
    )
    judge: CaseJudge = doc(
        "Instructions for the LLM judge.",
        required=True,
        example={"criteria": "The CSV has one row per quarter."},
    )


class ReportConfig(EvalModel):
    """The effective configuration of the run."""

    engine: str = doc("Engine that ran the cases.", example="claude-code")
    engine_version: str | None = doc(
        "Version the engine CLI reported.", default=None, example="2.1.197 (Claude Code)"
    )
    judge: str | None = doc("Judge model used.", default=None, example="claude-sonnet-4-5")
    timeout: float | None = doc("Timeout per case.", unit="seconds", default=None, example=120)


class ReportAgent(EvalModel):
    """Provenance of the agent."""

    runtime: str | None = doc("Agent runtime (engine).", default=None, example="claude-code")
    runtime_version: str | None = doc("Runtime version.", default=None, example="2.1.197")
    model: str | None = doc(
        "Model the agent used, from its event stream.",
        default=None,
        example="claude-sonnet-4-5",
    )
    model_provider: str | None = doc("Provider of the agent's model.", default=None, example="anthropic")
    session_id: str | None = doc("Agent session id, from its event stream.", default=None, example="3f1c…")


class ReportJudge(EvalModel):
    """Provenance of the judge."""

    model: str | None = doc("Judge model.", default=None, example="claude-sonnet-4-5")
    model_provider: str | None = doc("Judge provider.", default=None, example="anthropic")
    choice: str | None = doc(
        "Which judge and why (evalens extension): named by `--judge` or the eval config, else a provider of a "
        "different family from the agent's when its key is set, else the agent's own family.",
        default=None,
        example="openai: a different family from the claude-code agent (anthropic); OPENAI_API_KEY is set",
    )
    repeats: int | None = doc(
        "Judgements per transcript, with `--judge-repeats K` (evalens extension).",
        default=None,
        example=3,
    )
    agreement: float | None = doc(
        "With `--judge-repeats`: Krippendorff's alpha (nominal) of the repeated judgements over the batch's "
        "transcripts; 1 is perfect agreement, 0 what chance gives; absent when it is undefined (every "
        "judgement the same) (evalens extension).",
        default=None,
        example=0.82,
    )


class ReportEnvironment(EvalModel):
    """Where the run happened."""

    os: str | None = doc("Operating system.", default=None, example="linux")
    arch: str | None = doc("CPU architecture.", default=None, example="x86_64")
    aam_version: str | None = doc("Version of the eval runner (evalens).", default=None, example="0.1.0")
    node_version: str | None = doc("Node.js version.", default=None, example="v20.20.2")
    python_version: str | None = doc("Python version.", default=None, example="3.11.7")


class ReportPackage(EvalModel):
    """The package under test."""

    name: str | None = doc("Package name.", default=None, example="pdf-tools")
    version: str | None = doc("Package version.", default=None, example="1.2.0")


class ReportSummary(EvalModel):
    """Totals of the run."""

    total: int = doc("Number of cases.", example=5)
    passed: int = doc("Cases with verdict PASS.", example=4)
    failed: int = doc("Cases with verdict FAIL.", example=1)
    skipped: int = doc("Cases with verdict SKIP.", default=0, example=0)
    errored: int = doc("Cases with verdict ERROR (timeouts, crashes, unusable judge).", default=0, example=0)
    pass_rate: float = doc("passed / total (0 when there are no cases).", example=0.8)
    usage: Usage | None = doc(
        "Tokens and cost of every agent run of the batch, summed (evalens extension; "
        "`cost_usd` only when every run's CLI reported one).",
        default=None,
        example={"input_tokens": 120400, "output_tokens": 2210, "cost_usd": 0.41},
    )
    flaky: int | None = doc(
        "Cases that both passed and failed over their runs (`--runs`; evalens extension; "
        "counted in `failed`).",
        default=None,
        example=1,
    )
    budget: int | None = doc(
        "Cases a budget cut short, state `BUDGET` (evalens extension; counted in `skipped`).",
        default=None,
        example=1,
    )
    uplift: Uplift | None = doc(
        "With `--baseline`: every case's runs pooled, pass rate with the package against "
        "the baseline (evalens extension; the same as `baseline.uplift`).",
        default=None,
        example={"against": "no skill", "difference": 0.5},
    )


class DeterministicChecks(EvalModel):
    """Result of each deterministic check kind that the case declared."""

    contains: CheckStatus | None = doc("`expected.contains` result.", default=None, example="PASS")
    not_contains: CheckStatus | None = doc("`expected.not-contains` result.", default=None, example="PASS")
    files_created: CheckStatus | None = doc("`expected.files-created` result.", default=None, example="PASS")
    agent_blocked: CheckStatus | None = doc("`expected.agent-blocked` result.", default=None, example="PASS")


class JudgeVerdict(EvalModel):
    """The judge's ruling."""

    result: Verdict = doc("PASS or FAIL (ERROR when the judge was unusable).", example="PASS")
    reason: str = doc("The judge's reason.", example="The table lists all four quarters.")
    model: str | None = doc("Judge model.", default=None, example="claude-sonnet-4-5")


Location = list[str | int]


class ReportCheck(EvalModel):
    """One declared check or graded statement and whether it held (evalens extension)."""

    kind: str = doc(
        "Check kind: for UAAPS cases the snake_case name of `deterministic_checks` (`contains`, `not_contains`, "
        "`files_created`, `agent_blocked`); for the other formats the check's own name (`skill_activation`, "
        "`marker`, `regex`, `assertion`, `expectation`, `trigger`, ...).",
        example="contains",
    )
    value: str | bool = doc(
        "The exact entry: substring, path, statement, or expected boolean.",
        example="EXTRACTED",
    )
    status: CheckStatus = doc("PASS or FAIL.", example="FAIL")
    detail: str | None = doc("Why it failed.", default=None, example="output does not contain 'EXTRACTED'")
    location: Location | None = doc(
        "Where the check is written: a path of keys and indexes into the eval file (`case_file`), from its "
        "root (evalens extension).",
        default=None,
        example=["expected", "contains", 0],
    )


class ReportSandbox(EvalModel):
    """How the agent was isolated (evalens extension)."""

    enforced: bool = doc(
        "True when bubblewrap enforced network and writable paths; false when the run fell "
        "back to the engine's own sandbox.",
        example=True,
    )
    method: str = doc("`bubblewrap` or `engine`.", example="bubblewrap")
    network: bool = doc("Whether the agent's tools had network access.", example=False)
    writable_paths: list[str] | None = doc(
        "Writable paths relative to the workspace (absent: all of it).",
        default=None,
        example=["output/"],
    )

    @property
    def sandboxed(self) -> str:
        """How every face words the isolation: `true` (bubblewrap), `engine` (the engine's own sandbox, which
        evalens configured: Claude Code's sandbox settings, Codex's workspace-write with network off) or
        `false`. One word, one place: the summary, the Action's output, JUnit and the report views read it."""
        if self.enforced:
            return "true"
        return "engine" if self.method == "engine" else "false"


class ReportCase(EvalModel):
    """One case's outcome."""

    name: str = doc(
        "Case name; for the other formats the unit's id (a task id, an eval id, a trigger query's index).",
        example="pdf-table-extraction",
    )
    target: str | None = doc("Case target.", default=None, example="skill:pdf-tools")
    verdict: Verdict = doc("PASS, FAIL, SKIP or ERROR. ERROR is never counted as a pass.", example="PASS")
    duration_seconds: float | None = doc("Wall time of the case.", unit="seconds", default=None, example=18.2)
    deterministic_checks: DeterministicChecks = doc(
        "Deterministic check results.", default={}, example={"contains": "PASS"}
    )
    judge_verdict: JudgeVerdict | None = doc(
        "The judge's ruling (absent with --no-judge).",
        default=None,
        example={"result": "PASS", "reason": "ok"},
    )
    agent_output_snippet: str | None = doc(
        "First 500 characters of the agent's final output.",
        default=None,
        example="| Quarter | Revenue |",
    )
    error: str | None = doc(
        "Why the case errored or was skipped.", default=None, example="timed out after 120 s"
    )
    checks: list[ReportCheck] = doc(
        "Every deterministic check entry with its exact value (evalens extension).",
        default=[],
        example=[{"kind": "contains", "value": "EXTRACTED", "status": "PASS"}],
    )
    runs: int | None = doc(
        "How many times the case ran (`--runs`); absent for a single run.",
        default=None,
        example=3,
    )
    pass_rate: float | None = doc(
        "Passing runs / runs that passed or failed, with `--runs` (evalens extension).",
        default=None,
        example=0.67,
    )
    run_verdicts: list[Verdict] = doc(
        "Verdict of each run, with `--runs` (evalens extension).",
        default=[],
        example=["PASS", "FAIL", "PASS"],
    )
    case_file: str | None = doc(
        "Eval file the unit came from, relative to the package root (evalens extension).",
        default=None,
        example="evals/cases/01-extract-text.yaml",
    )
    artifacts: str | None = doc(
        "Folder with the transcript and captured files, relative to the report "
        "(evalens extension; used by `evalens eval --rejudge`).",
        default=None,
        example="2026-02-22T14-30-00Z/extract-text",
    )
    usage: Usage | None = doc(
        "Tokens and cost of the case's agent runs, summed over `--runs` (evalens "
        "extension; each run's full record is `<artifacts>/record.json`).",
        default=None,
        example={"input_tokens": 37344, "output_tokens": 214, "cost_usd": 0.0123},
    )
    format: str | None = doc(
        "Format id of the eval file the unit came from (evalens extension; absent: a UAAPS "
        "case, `uaaps-case`).",
        default=None,
        example="skilljack-tasks",
    )
    location: Location | None = doc(
        "Where the unit is written in `case_file`: a path of keys and indexes from "
        "the file's root (evalens extension; `[]`: the whole file).",
        default=None,
        example=["tasks", 2],
    )
    reason: str | None = doc(
        "Why the unit got its verdict, in one line (evalens extension).",
        default=None,
        example="2/3 assertions passed",
    )
    result_file: str | None = doc(
        "The format's own result file for this unit (skilljack results JSON, "
        "`grading.json`), relative to the report (evalens extension).",
        default=None,
        example="../../results/greeting-2026-02-22T14-30-00Z.json",
    )
    details: dict[str, Any] = doc(
        "Format-specific figures of the unit, e.g. a skilljack task's scores or a "
        "trigger query's `trigger_rate` (evalens extension).",
        default={},
        example={"trigger_rate": 0.67},
    )
    state: State | None = doc(
        "The verdict over repeated runs (evalens extension), derived from `run_verdicts` and `budget_stopped`: "
        "`FLAKY` when the unit both passed and failed and no run errored; `BUDGET` when a budget kept runs from "
        "starting and no run failed or errored; else the verdict. Absent for a single run a budget did not stop.",
        default=None,
        example="FLAKY",
    )
    pass_at_k: dict[str, float] | None = doc(
        "Unbiased pass@k, the chance that at least one of k fresh runs passes, 1 - C(n-c, k) / C(n, k) over the n "
        "runs that passed or failed, for k = 1 … n (evalens extension).",
        default=None,
        example={"1": 0.6667, "2": 1.0, "3": 1.0},
    )
    at_least_k: dict[str, float] | None = doc(
        "at-least-k (Inspect's `at_least(k)` reducer): 1.0 when at least k of the n counted runs passed, for "
        "k = 1 … n (evalens extension). Figures only: the verdict stays the strict rule.",
        default=None,
        example={"1": 1.0, "2": 1.0, "3": 0.0},
    )
    budget_stopped: int | None = doc(
        "Runs a budget (`--max-cost`, `--max-tokens`) kept from starting; they are "
        "SKIP runs (evalens extension).",
        default=None,
        example=2,
    )
    pass_rate_interval: list[float] | None = doc(
        "95% Wilson score interval of the pass rate over the runs that passed or failed (evalens extension).",
        default=None,
        example=[0.21, 0.94],
    )
    judge_flip_rate: float | None = doc(
        "With `--judge-repeats`: how often two judgements of the same transcript disagreed (the share of "
        "differing pairs, averaged over the case's runs); 0 when every judgement agreed (evalens extension).",
        default=None,
        example=0.0,
    )
    judge_verdicts: list[str] | None = doc(
        "With `--judge-repeats`: each judgement's verdict of the case's (last judged) run (evalens extension).",
        default=None,
        example=["PASS", "PASS", "FAIL"],
    )
    pass_hat_k: float | None = doc(
        "pass^k with k = the runs asked for (`runs`): 1.0 when every run passed; absent "
        "when a run errored or never started (evalens extension).",
        default=None,
        example=0.0,
    )
    fingerprint: dict[str, str] | None = doc(
        "What the verdict depended on, one hash or version per input (`unit`, `skill:<folder>`, `hooks`, "
        "`rules`, `agents`, `fixtures`, `engine`, `engine-version`, `agent-model`, `judge`); a later change "
        "makes the verdict stale (evalens extension).",
        default=None,
        example={"unit": "3f2a9c1d0b7e4a55", "skill:pdf-tools": "9b1c2d3e4f5a6b7c", "engine": "claude-code"},
    )
    uplift: Uplift | None = doc(
        "With `--baseline`: the unit's pass rate with the package against its baseline runs, the difference with "
        "its 95% interval, and the cost of both (evalens extension; the verdict is the with-package runs' own).",
        default=None,
        example={
            "against": "no skill",
            "passed": 3,
            "counted": 3,
            "baseline_passed": 0,
            "baseline_counted": 3,
            "difference": 1.0,
        },
    )
    baseline: bool | None = doc(
        "True for a baseline unit in `baseline.cases` (evalens extension; absent otherwise).",
        default=None,
        example=True,
    )
    replay: CaseReplay | None = doc(
        "How the verdict came about under `--record` / `--replay`: recorded live, answered from cassettes, or "
        "replayed up to a divergence and live from there (evalens extension; absent for a plain live run).",
        default=None,
    )


class ReportShard(EvalModel):
    """Which slice of the suite this report holds, when run with `--shard K/N` (evalens extension)."""

    index: int = doc("K: this shard's 1-based number.", example=2)
    count: int = doc("N: how many shards the suite was split into.", example=3)
    units: int = doc("Units in the whole suite before splitting.", example=12)
    balanced_by: Literal["durations", "count"] = doc(
        "`durations` when previous reports' durations balanced the split (longest first), else `count`.",
        example="durations",
    )
    split: str = doc(
        "Fingerprint of the whole split; every shard of one split carries the same value, so "
        "`evalens report merge` can refuse shards cut from different splits.",
        example="3f9a0c1d2e4b",
    )
    commit: str | None = doc(
        "Git commit of the package the shard ran (`git rev-parse HEAD`); `evalens report merge` "
        "refuses shards of different commits.",
        default=None,
        example="0c3752259ca17669b739481b2785a3e4cea1cc0f",
    )
    config: str | None = doc(
        "Fingerprint of the run's configuration (evals/eval-config.json, or the eval file's own settings).",
        default=None,
        example="9b1c2d3e4f5a",
    )
    cases: str | None = doc(
        "Fingerprint of every unit of the whole suite (ids and their files' contents): shards of "
        "edited cases do not merge.",
        default=None,
        example="a1b2c3d4e5f6",
    )
    runs: int | None = doc("Runs per unit (`--runs`).", default=None, example=3)
    cell: str | None = doc(
        "The matrix cell (`engine · model`) this report holds, when a run of several engines or models was "
        "sharded: the split is by cell × unit, each shard writes one report per cell, and "
        "`evalens report merge` merges the shards of one cell only.",
        default=None,
        example="codex · gpt-5",
    )


class ReportSource(EvalModel):
    """Provenance of one shard report folded into a merged report (evalens extension)."""

    id: str = doc("The shard report's run id.", example="eval-run-2026-02-22T14-30-00Z")
    path: str = doc(
        "The shard report's path as given to `evalens report merge`.",
        example="shard-1/report.json",
    )
    timestamp: str = doc("Start of the shard's run, ISO 8601.", example="2026-02-22T14:30:00Z")
    duration_seconds: float | None = doc(
        "Wall time of the shard's run.", unit="seconds", default=None, example=61.5
    )
    shard: ReportShard | None = doc(
        "The shard's slice (absent for a report run without `--shard`).",
        default=None,
        example={"index": 1, "count": 3},
    )
    cases: list[str] = doc("Names of the cases this shard contributed.", default=[], example=["extract-text"])
    engine_version: str | None = doc(
        "Engine version on the shard's machine.",
        default=None,
        example="2.1.197 (Claude Code)",
    )
    environment: ReportEnvironment | None = doc(
        "Where the shard ran.", default=None, example={"os": "linux", "arch": "x86_64"}
    )
    interrupted: bool = doc("True when the shard's run was interrupted.", default=False, example=False)


class ReportBaseline(EvalModel):
    """The baseline runs of a `--baseline` batch (evalens extension): each unit run again without the package
    (or with it as it was at a git ref). They never decide a verdict or the exit code."""

    source: BaselineSource = doc(
        "What the baseline runs installed.", required=True, example={"kind": "no-skill"}
    )
    label: str = doc(
        "How faces name the baseline: `no skill`, or `<ref> (<short commit>)`.",
        example="no skill",
    )
    cases: list[ReportCase] = doc(
        "The baseline units, one per unit of `cases` (same names, `baseline: true`).",
        default=[],
        example=[{"name": "greet", "verdict": "FAIL"}],
    )
    summary: ReportSummary | None = doc(
        "Totals of the baseline units.",
        default=None,
        example={"total": 1, "passed": 0, "failed": 1, "pass_rate": 0.0},
    )
    uplift: Uplift | None = doc(
        "The batch's runs pooled: pass rate with the package against the baseline.",
        default=None,
        example={"against": "no skill", "difference": 0.5},
    )
    metrics: dict[str, Any] = doc(
        "Format-wide figures with and without (trigger sets: `with` and `without` "
        "precision, recall and accuracy).",
        default={},
        example={"with": {"precision": 1.0, "recall": 1.0}, "without": {"precision": None, "recall": 0.0}},
    )


class EvalReport(EvalModel):
    """`evals/reports/<timestamp>.json`: the result of one `evalens eval` run."""

    version: Literal[1] = doc("Report format version.", example=1, required=True)
    id: str = doc("Run id.", example="eval-run-2026-02-22T14-30-00Z", required=True)
    timestamp: str = doc("Start of the run, ISO 8601.", example="2026-02-22T14:30:00Z", required=True)
    duration_seconds: float | None = doc("Wall time of the run.", unit="seconds", default=None, example=142.3)
    config: ReportConfig = doc(
        "Effective configuration.",
        required=True,
        example={"engine": "claude-code", "timeout": 120},
    )
    agent: ReportAgent = doc("Agent provenance.", default={}, example={"runtime": "claude-code"})
    judge: ReportJudge = doc("Judge provenance.", default={}, example={"model": "claude-sonnet"})
    environment: ReportEnvironment = doc(
        "Run environment.", default={}, example={"os": "linux", "arch": "x86_64"}
    )
    package: ReportPackage = doc("Package under test.", default={}, example={"name": "pdf-tools"})
    summary: ReportSummary = doc(
        "Totals.",
        required=True,
        example={"total": 1, "passed": 1, "failed": 0, "skipped": 0, "pass_rate": 1.0},
    )
    cases: list[ReportCase] = doc(
        "Per-case outcomes.",
        default=[],
        example=[{"name": "pdf-table-extraction", "verdict": "PASS"}],
    )
    sandbox: ReportSandbox | None = doc(
        "How the agent was isolated (evalens extension).",
        default=None,
        example={"enforced": True, "method": "bubblewrap", "network": False},
    )
    interrupted: bool = doc(
        "True when the run was interrupted (Ctrl-C / cancelled) and the report is partial "
        "(evalens extension).",
        default=False,
        example=False,
    )
    shard: ReportShard | None = doc(
        "The slice of the suite this run covered, with `--shard K/N` (evalens extension).",
        default=None,
        example={"index": 1, "count": 3, "units": 12, "balanced_by": "count", "split": "3f9a0c1d2e4b"},
    )
    shards: list[ReportSource] = doc(
        "Every report merged into this one by `evalens report merge` (evalens extension).",
        default=[],
        example=[
            {
                "id": "eval-run-2026-02-22T14-30-00Z",
                "path": "shard-1.json",
                "timestamp": "2026-02-22T14:30:00Z",
            }
        ],
    )
    baseline: ReportBaseline | None = doc(
        "With `--baseline no-skill | REF`: every unit run again without the package (or with it as it was at the "
        "ref), and the uplift (evalens extension; docs/baseline.md).",
        default=None,
        example={"label": "no skill", "source": {"kind": "no-skill"}},
    )
    arm: ArmSource | None = doc(
        "With `--arms`: the arm this batch ran (what it installed of the package; docs/baseline.md#ablation-arms).",
        default=None,
        example={"name": "no-skill", "label": "no skill", "kind": "no-skill"},
    )
    arms: ReportArms | None = doc(
        "With `--arms`, on the reference arm's report: the uplift of the reference over every other arm, per "
        "unit and paired over the units (evalens extension).",
        default=None,
        example={"reference": {"name": "skill", "label": "skill", "kind": "skill"}, "comparisons": []},
    )


def load_config(path: Path) -> EvalConfig:
    """Load and validate an eval config file from core's parse of it, the one validation reads (raises
    pydantic.ValidationError / ValueError / OSError)."""
    # cycle: evalens.core.units reads files through the formats and validate, which import these models at load
    from evalens.core.units import read_doc

    return EvalConfig.model_validate(read_doc(path, "uaaps-config").data)


def load_case(path: Path) -> EvalCase:
    """Load and validate one case file from core's parse of it (merge keys and anchors resolved as
    validation resolves them)."""
    # cycle: evalens.core.units reads files through the formats and validate, which import these models at load
    from evalens.core.units import read_doc

    data: Any = read_doc(path, "uaaps-case").data
    return EvalCase.model_validate(data)
