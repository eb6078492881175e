"""Every file kind that has a JSON Schema: file name, model, title. ``evalens schema`` exports these."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from evalens.core.models import cassette, run_log, run_record, uaaps
from evalens.core.models.base import export_schema


@dataclass(frozen=True)
class SchemaSpec:
    """One schema file generated from one model."""

    file_name: str
    model: type[BaseModel]
    title: str
    description: str


SCHEMAS: list[SchemaSpec] = [
    SchemaSpec(
        "uaaps-eval-config.schema.json",
        uaaps.EvalConfig,
        "UAAPS eval config",
        "`evals/eval-config.json` of a UAAPS/AAM package: engine, timeout, judge, sandbox and env for its eval cases.",
    ),
    SchemaSpec(
        "uaaps-eval-case.schema.json",
        uaaps.EvalCase,
        "UAAPS eval case",
        "One UAAPS/AAM eval case (`evals/cases/*.yaml`): a prompt, deterministic checks and judge criteria.",
    ),
    SchemaSpec(
        "uaaps-eval-report.schema.json",
        uaaps.EvalReport,
        "UAAPS eval report",
        "An eval run report (`evals/reports/<timestamp>.json`): provenance, summary and per-case verdicts.",
    ),
    SchemaSpec(
        "evalens-run-record.schema.json",
        run_record.RunRecord,
        "evalens run record",
        "What one run of one eval unit did (`evals/reports/<timestamp>/<unit>/record.json`): turns, tool calls, "
        "hooks, skill activations, file diffs, tokens and cost, verdict. Every text in it is bounded, and says so.",
    ),
    SchemaSpec(
        "evalens-run-log.schema.json",
        run_log.RunLogLine,
        "evalens run log line",
        "One line of a batch's run log (`evals/reports/<timestamp>/run-log.jsonl`): the batch's start with its "
        "inputs and their fingerprint, each unit run's start and finish (checks, judge, verdict), a resume, the end.",
    ),
    SchemaSpec(
        "evalens-cassette.schema.json",
        cassette.Cassette,
        "evalens cassette",
        "The model exchanges of one unit-run (`evals/cassettes/<unit>-<run>.<engine>.<model>[.<arm>].json`), "
        "written by `--record` and read "
        "by `--replay`: each request in canonical form (volatile fields normalised, secrets redacted) and its "
        "response, a streamed one as its server-sent events. No headers or keys are stored.",
    ),
]


def register(spec: SchemaSpec) -> None:
    """Let a format module add its schema (idempotent by file name)."""
    if all(s.file_name != spec.file_name for s in SCHEMAS):
        SCHEMAS.append(spec)


def render_all() -> dict[str, dict]:
    """Generate every schema from its model (the source of truth)."""
    # cycle: the registry loads evalens.core.formats.uaaps, which imports evalens.core.schema_check, which
    # imports this module at load; the format modules register their schemas as they load
    from evalens.core.formats import registry

    registry.all_formats()

    return {
        s.file_name: export_schema(s.model, file_name=s.file_name, title=s.title, description=s.description)
        for s in SCHEMAS
    }
