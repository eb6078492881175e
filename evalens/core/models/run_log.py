"""The run log: one JSON line per event of a batch, appended as it happens (``<report folder>/run-log.jsonl``).

The log is what a batch *did*, in order: what it set out to run (its inputs and their fingerprint), each unit run
as it started and as it finished (checks, judge, verdict). The report written at the end, ``--resume`` and the
readers of past runs are views of it. A unit is named by a stable identity (its file, its name and the hash of
its content without the name), so a case renamed in place is still recognised as the same unit.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, RootModel

from evalens.core.models.base import EvalModel, doc
from evalens.core.models.run_record import Usage
from evalens.core.models.uaaps import ReportCheck
from evalens.core.models.verdict import JudgeRuling, Verdict

LOG_VERSION = 1
LOG_FILE = "run-log.jsonl"


class LogUnit(EvalModel):
    """The stable identity of a unit: where it is written, its name, and the hash of its content without the
    name (the fingerprint's ``unit`` part). Same file and content under a new name: the same unit, renamed."""

    file: str = doc(
        "The eval file, relative to the package root (POSIX separators).",
        example="evals/cases/extract-text.yaml",
    )
    name: str = doc("The unit's name when the event was written.", example="extract-text")
    content: str | None = doc(
        "Hash of the unit's own value without its name (None when the file could not be read).",
        default=None,
        example="3f2a9c0d1b7e4a55",
    )
    location: list[str | int] = doc(
        "Where the unit is written in its file (keys and indexes; empty: the whole file).",
        default=[],
        example=[],
    )
    format: str = doc("Format id of the eval file.", default="uaaps-case", example="uaaps-case")


class PlannedUnit(EvalModel):
    """A unit the batch set out to run, with what its verdict depends on."""

    unit: LogUnit = doc("The unit's identity.")
    fingerprint: dict[str, str] = doc(
        "What the unit's verdict depends on, one hash or value per input (as in the report's `fingerprint`).",
        default={},
        example={"unit": "3f2a9c0d1b7e4a55", "engine": "claude-code"},
    )


class BatchStart(EvalModel):
    """The first line: what the batch runs and with which inputs; ``--resume`` refuses when they changed."""

    event: Literal["batch-start"] = doc("Event kind.", example="batch-start")
    version: Literal[1] = doc("Log format version.", example=1)
    time: str = doc("UTC time the event was written.", example="2026-02-22T14:30:00Z")
    batch: str = doc("The batch's id (the report's `id`).", example="eval-run-2026-02-22T14-30-00Z")
    package_root: str = doc("Absolute package root.", example="/work/pdf-tools")
    report: str = doc(
        "The report file the batch writes (absolute).",
        example="/work/pdf-tools/evals/reports/2026-02-22T14-30-00Z.json",
    )
    inputs: dict[str, object] = doc(
        "The request that started the batch (selection, engine, judge, models, runs, limits, baseline): "
        "`--resume` runs the rest with exactly these.",
        default={},
        example={"engine": "claude-code", "runs": 1, "cases": []},
    )
    fingerprint: str = doc(
        "Hash of the inputs and of every planned unit's fingerprint.",
        example="9b1c03aa51e2d7f0",
    )
    units: list[PlannedUnit] = doc("Every unit the batch runs, in order.", default=[])
    runs: int = doc("Runs per unit.", default=1, example=1)
    baseline: str | None = doc(
        "With `--baseline`: the baseline's label; every unit also runs on that side (events with this `side`).",
        default=None,
        example="no skill",
    )

    def sides(self) -> list[str | None]:
        """Who runs each unit: ``None`` (the package), then the baseline's label if any."""
        return [None] + ([self.baseline] if self.baseline is not None else [])


class _UnitRunEvent(EvalModel):
    """What every event about one run of one unit says first: which event, when, which unit, run and side
    (a subclass narrows ``event`` to its kind and keeps this order)."""

    event: str = doc("Event kind.")
    time: str = doc("UTC time the event was written.", example="2026-02-22T14:30:01Z")
    unit: LogUnit = doc("The unit.")
    run: int = doc("1-based run number.", default=1, example=1)
    side: str | None = doc("`null`: the package; else the baseline's label.", default=None)


class RunStart(_UnitRunEvent):
    """A unit run started (its sandbox is being made)."""

    event: Literal["run-start"] = doc("Event kind.", example="run-start")


class LogJudge(EvalModel):
    """The judge's ruling on one run."""

    verdict: JudgeRuling = doc("PASS, FAIL or ERROR.", example="PASS")
    reason: str = doc("The judge's reason.", default="", example="The table lists all rows.")
    model: str | None = doc("Judge model.", default=None, example="claude-sonnet-4-5")
    provider: str | None = doc("Judge provider.", default=None, example="anthropic")


class RunFinish(_UnitRunEvent):
    """A unit run finished: its checks, judge and verdict. A run with no such line did not finish."""

    event: Literal["run-finish"] = doc("Event kind.", example="run-finish")
    verdict: Verdict = doc("The run's verdict.", example="PASS")
    reason: str = doc("Why.", default="", example="The table lists all rows.")
    error: str | None = doc("The agent's, the setup's or the judge's error.", default=None)
    budget: bool = doc(
        "True when a budget kept this run from starting (its SKIP is the unit's BUDGET state).",
        default=False,
    )
    checks: list[ReportCheck] = doc("Deterministic checks and whether each held.", default=[])
    judge: LogJudge | None = doc("The judge's ruling, when it was asked.", default=None)
    duration_seconds: float = doc("Wall time of the run.", default=0.0, unit="seconds")
    agent_seconds: float = doc("Time in the agent process.", default=0.0, unit="seconds")
    model: str | None = doc("Model the agent reported.", default=None, example="claude-sonnet-4-5")
    session_id: str | None = doc("The agent's session id.", default=None)
    output: str | None = doc("The start of the agent's final output (bounded).", default=None)
    artifacts: str | None = doc(
        "The run's folder (transcript, record), relative to the log's folder.",
        default=None,
        example="extract-text",
    )
    usage: Usage | None = doc("Tokens and cost of the run.", default=None)
    data: dict[str, object] | None = doc(
        "`evalens run` (the file formats): what the format's suite combines this run with the unit's other runs "
        "from, so `--resume` combines a kept run as a fresh one: the agent's result (output, skills, tool calls, "
        "exit code), the run's time and the format's own figures (skilljack's scores, the skill that fired "
        "first, the grading file).",
        default=None,
        example={"seconds": 4.2, "figures": {"fired": {"skill": "greeting"}}},
    )


class BatchResume(EvalModel):
    """``evalens eval --resume`` / ``evalens run --resume`` took the batch up again: the finished runs are kept, the rest run now."""

    event: Literal["batch-resume"] = doc("Event kind.", example="batch-resume")
    time: str = doc("UTC time the event was written.", example="2026-02-22T15:00:00Z")
    fingerprint: str = doc("The inputs' fingerprint, equal to the batch start's.")
    kept: int = doc("Finished runs taken from the log.", default=0, example=3)
    rerun: int = doc("Runs that run again (they had not finished).", default=0, example=2)
    renamed: dict[str, str] = doc(
        "Units renamed since the batch started (`file::new-name` → `file::old-name`); their runs are one unit's.",
        default={},
        example={"evals/cases/a.yaml::extract-text-v2": "evals/cases/a.yaml::extract-text"},
    )


class BatchFinish(EvalModel):
    """The batch ended and wrote its report (``interrupted``: cut short; the report is partial)."""

    event: Literal["batch-finish"] = doc("Event kind.", example="batch-finish")
    time: str = doc("UTC time the event was written.", example="2026-02-22T14:31:00Z")
    interrupted: bool = doc("True when a signal or cancel cut the batch short.", default=False)
    verdicts: dict[str, str] = doc(
        "Each unit's verdict in the report (`file::name` → verdict).",
        default={},
        example={"evals/cases/extract-text.yaml::extract-text": "PASS"},
    )


LogEvent = Annotated[
    BatchStart | RunStart | RunFinish | BatchResume | BatchFinish, Field(discriminator="event")
]


class RunLogLine(RootModel[LogEvent]):
    """One line of the run log: one event."""
