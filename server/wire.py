"""What the server sends editors beyond the LSP itself, declared once: command arguments and answers, custom
notifications and the initialize result's ``experimental.evalens`` section.

Field names are the camelCase names on the wire. ``vscode-extension/src/protocol.generated.ts`` is generated from
the models here (``python -m evalens.server.wire_ts --write``, server/wire_ts.py) and the extension imports its
types through ``protocol.ts``; ``tests/server/test_wire.py`` fails when the generated file is out of date. Build a
payload with ``Model(...).wire()``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from pydantic.alias_generators import to_camel

from evalens.core.models.verdict import State as RunState
from evalens.core.models.verdict import Verdict


class Wire(BaseModel):
    """Base: camelCase on the wire, unknown fields refused (a payload is exactly what is declared)."""

    # attribute docstrings become the generated TypeScript's doc comments: wire_ts reads them from this file's
    # source (one parse), not pydantic at import (use_attribute_docstrings walks the frames and re-reads each
    # class's source: ~20 ms of the server's start before its initialize answer, issue 43)
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    def wire(self) -> dict[str, Any]:
        """The JSON object sent (optional fields left unset are left out)."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


class LspPosition(Wire):
    line: int
    character: int


class LspRange(Wire):
    start: LspPosition
    end: LspPosition

    @classmethod
    def of(cls, rng: Any) -> LspRange:
        """From an ``lsprotocol`` range (duck-typed: this module stays free of lsprotocol)."""
        return cls(
            start=LspPosition(line=rng.start.line, character=rng.start.character),
            end=LspPosition(line=rng.end.line, character=rng.end.character),
        )


# ----------------------------------------------------------------------------------- initialize
class FileKind(Wire):
    """One file kind the server handles (evalens/core/kinds.py); no formats: claimed by content."""

    glob: str
    language_id: str
    formats: list[str]


class ExperimentalCapabilities(Wire):
    """``capabilities.experimental.evalens`` of the initialize result."""

    file_kinds: list[FileKind]


class ClientExperimentalCapabilities(Wire):
    """``capabilities.experimental.evalens`` of the client's initialize params: what the editor does itself."""

    command_links: list[str] | None = None
    """Hover links it runs ("Show run", "Compare with previous run")."""
    test_results: bool | None = None
    """It shows run results in its own test UI (VS Code's Test Explorer: the verdict, failures at their line),
    so the server publishes no verdict diagnostics that would pile up in Problems beside them."""


def client_declares(experimental: Any) -> ClientExperimentalCapabilities:
    """The client's evalens section; anything malformed counts as nothing declared."""
    section = experimental.get("evalens") if isinstance(experimental, dict) else None
    try:
        return ClientExperimentalCapabilities.model_validate(section if isinstance(section, dict) else {})
    except ValueError:
        return ClientExperimentalCapabilities()


# ----------------------------------------------------------------------------------- commands
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
"""An engine, model or arm name as a command carries it (surrounding blanks dropped)."""


class CaseCommandArgs(Wire):
    """The one argument of ``evalens.runCase``, ``runFile``, ``runAll``, ``pickUnits``, ``cancelRun``,
    ``discoverCases``, ``lastReport``, ``showResult`` and ``showProblems`` (and of every run lens): which file,
    which case (``*``: all), and a batch's options. The server reads it as this model; anything else is
    invalid params."""

    uri: str | None = None
    name: str | None = None
    dry_run: bool | None = None
    runs: int | None = Field(default=None, ge=1, le=100, strict=True)
    """Repeats of each unit ("Run 5×")."""
    select: Literal["failed", "stale"] | None = None
    """``runFile`` / ``runAll``: only what ``--failed`` / ``--stale`` would pick. ``pickUnits`` without it: every
    unit a batch lens on ``uri`` runs."""
    batch: str | None = Field(default=None, max_length=200)
    """Commands sent under one id share one budget (evalens.run.maxCost / maxTokens)."""
    engine: Name | None = None
    """A per-run override (the extension's "Run Overrides" quick pick, remembered per workspace) of the setting."""
    model: Name | None = None
    """A per-run override of the model, as ``engine``."""
    max_cost: float | None = Field(default=None, ge=0, strict=True)
    """USD for the batch, instead of evalens.run.maxCost."""
    arm: Name | None = None
    """``runCase`` of a UAAPS case: run it as this ``--arms`` arm installs the package (``no-skill``,
    ``without:references``, …; a matrix cell item of an engines × arms run)."""


class PickedUnit(Wire):
    """One entry of ``evalens.pickUnits``: a unit "Run failed" / "Run stale" would run, and why."""

    uri: str
    name: str
    reason: str


class MatrixCell(Wire):
    """One cell of a unit's row in the package's newest matrix run (``--engine a,b`` / ``--model A,B``,
    runner/matrix.py): k of N with the 95% Wilson interval and the cost; no state when the cell did not run the
    unit."""

    column: str
    """The cell's heading, as the CLI's table has it: ``claude-code · claude-sonnet-4-5`` (``· no skill``: the
    arm of an ``--arms`` run)."""
    engine: str | None = None
    model: str | None = None
    arm: str | None = None
    """The cell's ``--arms`` arm as given (``no-skill``, ``without:references``); none without ``--arms``."""
    state: RunState | None = None
    passed: int | None = None
    counted: int | None = None
    """Runs that passed or failed."""
    runs: int | None = None
    interval: list[float] | None = None
    cost_usd: float | None = None
    text: str
    """The one wording every face shows: ``PASS 2/2 [34%–100%] $0.0123`` (``—``: not run in this cell)."""


class DiscoveredCase(Wire):
    """One entry of ``evalens.discoverCases``."""

    uri: str
    name: str
    label: str | None = None
    """What editors show (a skill-creator case's prompt, not its numeric id)."""
    format: str
    range: LspRange
    package_root: str
    last_verdict: Verdict | None = None
    last_reason: str | None = None
    last_duration_seconds: float | None = None
    last_stale: list[str] | None = None
    """What changed since its last run (the lens's ``· stale``, ``server/features/run_stale.py``); empty or unset:
    current. The Test Explorer says so in the result's description."""
    last_outdated: bool | None = None
    """The unit's own text changed since its last run: the Test Explorer draws that result outdated (dimmed, its
    inline failures withdrawn, as they sit at lines of a text that is gone). Other changes (a skill, the model)
    leave the case as written: only the description marks them, and the failures stay at their lines."""
    skill: str | None = None
    """The skill the unit exercises (a Test Explorer tag)."""
    engine: str | None = None
    """The engine of its last run (a Test Explorer tag)."""
    matrix: list[MatrixCell] | None = None
    """Its row in the package's newest matrix run, one cell per column (the Test Explorer's cell items)."""


class FailedCheck(Wire):
    check: str
    value: Any = None
    message: str
    sentence: str
    """The failure as every screen tells it (``runner.check_words.failure_sentence``): editors show it as is,
    inline too, and never build their own from ``check``, ``message`` or the diff."""
    range: LspRange | None = None
    expected: str | None = None
    """What the check wanted, for the editor's diff (contains, not-contains, file checks)."""
    actual: str | None = None
    """What the run gave, for the editor's diff."""


class JudgeResult(Wire):
    verdict: str
    reason: str
    model: str | None = None


class RunUsage(Wire):
    """Tokens and cost of the agent's runs (cost only where the CLI reports one)."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None


class RepeatStats(Wire):
    """A unit run more than once (docs/repeats.md): k of N, the pass rate with its 95% Wilson interval, pass^k."""

    runs: int
    passed: int
    counted: int
    """Runs that passed or failed (errored and skipped runs say nothing about the skill)."""
    verdicts: list[Verdict]
    pass_rate: float | None = None
    interval: list[float] | None = None
    pass_hat_k: float | None = None


class CaseResult(Wire):
    """The answer of ``evalens.runCase`` (one element of ``runFile`` / ``runAll``)."""

    uri: str
    name: str
    verdict: Verdict
    state: RunState | None = None
    """The verdict over repeated runs (docs/repeats.md)."""
    stale: list[str] | None = None
    """What changed since this run; empty when current."""
    reason: str | None = None
    duration_seconds: float | None = None
    failed_checks: list[FailedCheck] | None = None
    judge: JudgeResult | None = None
    engine: str | None = None
    model: str | None = None
    output_snippet: str | None = None
    report_path: str | None = None
    error: str | None = None
    dry_run: bool | None = None
    """A dry run: nothing ran, the verdict is SKIP."""
    plan: dict[str, Any] | None = None
    """A dry run's plan (runner.api's RunPlan)."""
    cancelled: bool | None = None
    """Cut short by a cancel: the verdict is SKIP."""
    problems: int | None = None
    """Not run: the unit has this many validation errors (server/features/run_invalid.py)."""
    usage: RunUsage | None = None
    repeats: RepeatStats | None = None
    replayed: str | None = None
    """Answered from cassettes (docs/replay.md), worded once by ``replay_label``: "↺ replayed (3 of 3 requests)"."""


class ListRunsArgs(Wire):
    """The one argument of ``evalens.listRuns`` (the Runs view): whose runs (a file or folder of the package;
    none: every package of the workspace) and what to keep."""

    uri: str | None = None
    verdicts: list[str] | None = None
    """PASS, FAIL, FLAKY, SKIP, ERROR, BUDGET, CANCELLED (a unit cut short; empty or none: all)."""
    engine: str | None = None
    since: str | None = None
    """ISO 8601 date or time: batches on or after it."""


class RunEntry(Wire):
    """One entry of ``evalens.listRuns``: a unit's run in one batch (``runner/run_history.py``)."""

    name: str
    verdict: Verdict
    state: RunState | None = None
    timestamp: str
    engine: str | None = None
    model: str | None = None
    uri: str | None = None
    """The eval file."""
    report_path: str | None = None
    """None: a batch killed before its report (read from its run log)."""
    duration_seconds: float | None = None
    interrupted: bool | None = None
    cancelled: bool | None = None
    """Cut short by a cancel (the editor's ■ Cancel, Ctrl-C) before it finished: no verdict; ``verdict`` is the
    report's ERROR for it, which a view does not show."""


class MatrixArgs(Wire):
    """``evalens.matrix``: the newest matrix run of the package holding ``uri``, or only unit ``name``'s row."""

    uri: str
    name: str | None = None


class ComparisonArgs(Wire):
    """``evalens.runComparison``: start a whole comparison of ``uri``, an eval file of a format that runs per file
    (every unit of it), else the package holding it (every case): every engine · model cell times every arm, one
    batch each (runner/comparison.py); the answer is its matrix, as ``evalens.matrix`` reads it back. The fields
    are the CLI's ``--engine``, ``--model``, ``--arms`` and ``--arms-reference``."""

    uri: str
    engines: str | None = None
    """``claude-code,codex`` (none: the editor's engine setting)."""
    models: str | None = None
    """``claude-sonnet-4-5`` on every engine, or ``codex=gpt-5`` on one (none: each engine's default)."""
    arms: str | None = None
    """``skill,no-skill,ref:v1.2,without:references`` (none: one batch per cell)."""
    arms_reference: str | None = None
    """The arm the others are compared with (default ``skill``)."""
    no_judge: bool = False
    """Checks only: no judge, no pairwise comparison."""


class ComparisonPlan(Wire):
    """The answer of ``evalens.planComparison`` (the same arguments as ``evalens.runComparison``): what that
    comparison would start, counted by the runner before anything runs, so an editor asks about the real
    spend (an eval file's units, not every unit of its folder; each unit's runs)."""

    batches: int
    """One per engine · model cell and arm."""
    units: int
    """The units a batch runs."""
    runs: int
    """Each unit's runs in a batch (``--runs auto``: its maximum)."""
    agent_runs: int
    """Every agent run the comparison starts."""


class MatrixRow(Wire):
    unit: str
    """As the table labels it (the file added when two files share the name)."""
    name: str
    cells: list[MatrixCell]
    uplift: dict[str, str] | None = None
    """With ``--arms``: each engine's uplift of the reference arm over another (heading → ``▲ +100 pts [−12,
    +100]``), the CLI's Δ columns."""


class MatrixAnswer(Wire):
    """The answer of ``evalens.matrix`` (null: the package has no matrix run, or it did not run ``name``)."""

    batch: str
    """The run's time stamp, which its cell reports share."""
    columns: list[str]
    rows: list[MatrixRow]
    report_paths: list[str]
    table: str
    """The CLI's plain-text table of these rows (and, with ``--arms``, the pooled uplift lines)."""
    pooled: list[str] | None = None
    """With ``--arms``: each engine's arms pooled over the units, with the paired interval."""
    unread: list[str]
    """``<file>: <why>`` for each cell report that could not be read."""


class RunViewArgs(Wire):
    """The one argument of ``evalens.runView``: a unit of an eval file, or (``reportPath`` alone) a whole
    report."""

    uri: str | None = None
    name: str | None = None
    report_path: str | None = None
    compare: bool | None = None
    """The unit's two most recent runs side by side."""
    against_report_path: str | None = None
    """With ``compare`` and ``reportPath``: the other run to compare with (the Runs view's two picked runs)."""
    format: Literal["html", "markdown"] | None = None
    """``html`` (the default) for a webview, ``markdown`` for a text buffer."""


class RunViewAnswer(Wire):
    """The answer of ``evalens.runView`` (or null when the unit never ran): one page, a run, a comparison of two
    runs or a live run, rendered by the server."""

    format: Literal["html", "markdown"]
    text: str
    title: str
    report_path: str
    """The report the page shows (a live page: the batch's report, still to be written)."""
    anchor: str | None = None
    """The element to scroll to: the first failed check, or ``live``."""
    live: bool | None = None
    """True for a live page: the unit is still running, and the page shows the runs finished so far."""


class NewCaseArgs(Wire):
    """The one argument of ``evalens.newCase``: the SKILL.md the case is for."""

    uri: str
    reveal: bool | None = None
    """False when the editor puts the cursor on the prompt itself."""


class CreateFileArgs(Wire):
    """The one argument of ``evalens.createFile``, the fallback of "Create `x`" for clients without CreateFile."""

    uri: str
    """The eval file whose problem names the missing file."""
    path: str
    """The missing file (only a path a current problem of ``uri`` names is created)."""


class CreateFileResult(Wire):
    """The answer of ``evalens.createFile``."""

    created: bool
    """False: the file was there already."""
    path: str


class SnippetEdit(Wire):
    """One edit of a quick fix as a snippet (a placeholder the user must replace is a tab stop)."""

    uri: str
    range: LspRange
    snippet: str


class CodeActionData(Wire):
    """``CodeAction.data`` of a quick fix that inserts a placeholder, for a client that cannot take LSP 3.18
    snippet edits: VS Code's middleware applies ``snippets`` in place of the plain-text edit."""

    snippets: list[SnippetEdit]


class OptimizeArgs(Wire):
    """The one argument of ``evalens.optimizeDescription``: the SKILL.md, and how to measure its rewrites."""

    uri: str
    holdout: float = Field(default=0.5, gt=0, lt=1, strict=True)
    """The share of the trigger set's queries held out to judge the winner on."""
    runs: int = Field(default=1, ge=1, le=100, strict=True)
    """Agent runs per query."""
    candidates: int = Field(default=3, ge=1, le=20, strict=True)
    """Rewrites the judge proposes."""
    seed: int = Field(default=0, strict=True)
    """Seeds the train / held-out split."""


class OptimizeWinner(Wire):
    label: str
    description: str
    difference: list[float] | None = None
    """The held-out gain over the current description: [point, low, high]."""


class OptimizeAnswer(Wire):
    """The answer of ``evalens.optimizeDescription``: the winner as an edit to review, or why there is none."""

    uri: str
    log: list[str]
    """What the optimizer said, in order (also sent as log messages while it ran)."""
    cost: dict[str, int | float]
    """``agent_usd``, ``tokens``, ``agent_runs``, ``judge_calls``: as ``evalens triggers optimize --json``."""
    error: str | None
    stopped: str | None
    """Why the search ended early (the budget)."""
    winner: OptimizeWinner | None
    edit: dict[str, Any] | None
    """The rewrite as an LSP ``WorkspaceEdit`` (annotated for review when the client supports that)."""
    applied: bool
    """The client applied the edit (after the user's review)."""


class NewCaseResult(Wire):
    """The answer of ``evalens.newCase``: the file the case was written to and the position of its prompt."""

    uri: str
    position: LspPosition
    format: str
    title: str | None = None


class CancelRunResult(Wire):
    """The answer of ``evalens.cancelRun``: how many runs were cancelled."""

    cancelled: int


class ShowProblemsResult(Wire):
    """The answer of ``evalens.showProblems`` (null when the unit now validates): where the first problem is,
    and how many there are."""

    uri: str
    range: LspRange
    problems: int = Field(ge=1)


class LastReportResult(Wire):
    """The answer of ``evalens.lastReport`` (or null when there is none)."""

    path: str


# ----------------------------------------------------------------------------------- notifications
class VerdictChangedParams(Wire):
    """``evalens/verdictChanged``: after every run, also those started from a code lens."""

    uri: str
    name: str
    verdict: Verdict
    reason: str | None = None
    duration_seconds: float | None = None
    range: LspRange | None = None


class RunStateParams(Wire):
    """``evalens/runState``: how many runs the server has in flight."""

    running: int = Field(ge=0)


class ScanCompleteParams(Wire):
    """``evalens/scanComplete``: the start-up scan validated ``files`` eval files in ``seconds``."""

    files: int
    seconds: float


class RunTurnParams(Wire):
    """``evalens/runTurn``: one turn of the agent while a unit runs (``runner/live.py``), before its verdict.
    ``name`` is the unit the agent is running (one unit of a whole-file run)."""

    uri: str
    name: str
    run: int = Field(ge=1)
    seq: int = Field(ge=0)
    kind: Literal["text", "tool", "result", "hook", "error", "note"]
    text: str
    tool: str | None = None
    call_id: str | None = None
    is_error: bool | None = None
    blocked: bool | None = None


COMMANDS: dict[str, str] = {
    "discoverCases": "evalens.discoverCases",
    "runCase": "evalens.runCase",
    "runFile": "evalens.runFile",
    "runAll": "evalens.runAll",
    "cancelRun": "evalens.cancelRun",
    "lastReport": "evalens.lastReport",
    "showResult": "evalens.showResult",
    "runView": "evalens.runView",
    "showProblems": "evalens.showProblems",  # the "✗ N errors: fix to run" lens: go to the first problem
    "newCase": "evalens.newCase",  # "New eval case for this skill" on SKILL.md (server/features/new_case.py)
    "createFile": "evalens.createFile",  # "Create `x`" for clients without CreateFile (server/features/file_edits.py)
    "pickUnits": "evalens.pickUnits",  # what "Run failed" / "Run stale" would run (server/features/run_focus.py)
    "listRuns": "evalens.listRuns",  # every run of the workspace, filtered (the Runs view; server/features/run_view.py)
    # the SKILL.md description's "Optimize description with the trigger set…" (server/features/optimize_description.py)
    "optimizeDescription": "evalens.optimizeDescription",
    "matrix": "evalens.matrix",  # the newest matrix run's units x cells (server/features/matrix_view.py)
    # start a whole matrix x arms run of a package (server/features/comparison_run.py, runner/comparison.py)
    "runComparison": "evalens.runComparison",
    # what that comparison would start, counted before it starts (the editor's spend question)
    "planComparison": "evalens.planComparison",
}
"""Every ``workspace/executeCommand`` command the server registers (the generated ``Commands``)."""

NOTIFICATIONS: dict[str, str] = {
    "verdictChanged": "evalens/verdictChanged",
    "runState": "evalens/runState",
    "scanComplete": "evalens/scanComplete",
    "runTurn": "evalens/runTurn",
    # what changed since remembered runs moved (server/features/run_stale.py): the Test Explorer asks again
    "staleChanged": "evalens/staleChanged",
}
"""Every custom notification the server sends (the generated ``Notifications``)."""

NAMED_TYPES: dict[str, Any] = {"Verdict": Verdict, "RunState": RunState}
"""Literal types that keep their name in TypeScript (a field of exactly these values is typed by the name)."""

MODELS: tuple[type[Wire], ...] = (
    LspPosition,
    LspRange,
    FileKind,
    ExperimentalCapabilities,
    ClientExperimentalCapabilities,
    CaseCommandArgs,
    PickedUnit,
    MatrixCell,
    DiscoveredCase,
    FailedCheck,
    JudgeResult,
    RunUsage,
    RepeatStats,
    CaseResult,
    ListRunsArgs,
    RunEntry,
    MatrixArgs,
    ComparisonArgs,
    ComparisonPlan,
    MatrixRow,
    MatrixAnswer,
    RunViewArgs,
    RunViewAnswer,
    NewCaseArgs,
    NewCaseResult,
    CreateFileArgs,
    CreateFileResult,
    SnippetEdit,
    CodeActionData,
    OptimizeArgs,
    OptimizeWinner,
    OptimizeAnswer,
    CancelRunResult,
    ShowProblemsResult,
    LastReportResult,
    VerdictChangedParams,
    RunStateParams,
    ScanCompleteParams,
    RunTurnParams,
)
"""The models generated as TypeScript interfaces, in this order."""
