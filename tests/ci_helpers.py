"""Reports for the CI-output tests: built through the report model, so they are what a run writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalens.core.models.uaaps import (
    EvalReport,
    JudgeVerdict,
    ReportCase,
    ReportCheck,
    ReportConfig,
    ReportPackage,
    ReportSummary,
)


def make_case(
    name: str,
    verdict: str,
    *,
    duration: float = 1.0,
    file: str | None = None,
    reason: str = "",
    failed_check: str | None = None,
    error: str | None = None,
    **extra: Any,
) -> ReportCase:
    checks = []
    if failed_check is not None:
        checks.append(
            ReportCheck(
                kind="contains",
                value=failed_check,
                status="FAIL",
                detail=f"output does not contain {failed_check!r}",
            )
        )
    judge = (
        JudgeVerdict(result="PASS" if verdict == "PASS" else "FAIL", reason=reason or "ok", model="judge-m")
        if verdict in ("PASS", "FAIL")
        else None
    )
    if verdict in ("PASS", "FAIL", "ERROR", "SKIP"):
        return ReportCase(
            name=name,
            verdict=verdict,
            duration_seconds=duration,
            case_file=file,
            checks=checks,
            judge_verdict=judge,
            error=error,
            **extra,
        )
    return ReportCase.model_construct(
        name=name,
        verdict=verdict,
        duration_seconds=duration,
        case_file=file,
        checks=checks,
        judge_verdict=judge,
        error=error,
        **extra,
    )


def make_report(
    cases: list[ReportCase],
    *,
    package: str = "pkg",
    timestamp: str = "2026-02-22T14:30:00Z",
    duration: float = 10.0,
    **extra: Any,
) -> EvalReport:
    total = len(cases)
    passed = sum(c.verdict == "PASS" for c in cases)
    return EvalReport(
        version=1,
        id=f"eval-run-{timestamp}",
        timestamp=timestamp,
        duration_seconds=duration,
        config=ReportConfig(engine="claude-code", engine_version="9.9.9", judge="judge-m", timeout=60),
        package=ReportPackage(name=package, version="1.0.0"),
        summary=ReportSummary(
            total=total,
            passed=passed,
            failed=sum(c.verdict == "FAIL" for c in cases),
            errored=sum(c.verdict == "ERROR" for c in cases),
            skipped=sum(c.verdict == "SKIP" for c in cases),
            pass_rate=round(passed / total, 4) if total else 0.0,
        ),
        cases=cases,
        **extra,
    )


def write(report: EvalReport, path: Path) -> Path:
    from evalens.runner.report import write_report

    return write_report(report, path)


DATA = Path(__file__).resolve().parent / "data"
#: The strict consumers' schemas (sources and licences: tests/data/SOURCES.md).
JUNIT_SCHEMAS = ("junit-10.xsd", "ant-junit.xsd")


def validate_junit(text: str) -> Any:
    """The document, after validating against the Jenkins xunit ``junit-10.xsd`` and the Ant ``JUnit.xsd``."""
    from lxml import etree

    doc = etree.fromstring(text.encode("utf-8"))
    for name in JUNIT_SCHEMAS:
        etree.XMLSchema(etree.parse(str(DATA / name))).assertValid(doc)
    return doc


def validate_sarif(log: dict[str, Any]) -> None:
    """Validate a SARIF log against the OASIS SARIF 2.1.0 JSON schema (draft-04)."""
    import json

    import jsonschema

    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(schema).validate(log)


def make_arms_report(case: str, *, package: str = "pkg") -> EvalReport:
    """An ``--arms`` reference report: the ``skill`` arm (claude-code) against ``no-skill`` (+40 pts [+12, +68])
    and ``without:hooks`` (−20 pts [−50, +10]), as the SKILL.md arms lens reads it."""
    from evalens.core.models.baseline import ArmComparison, ArmSource, ReportArms, Uplift

    def uplift(against: str, difference: float, interval: list[float]) -> Uplift:
        return Uplift(
            against=against,
            passed=5,
            counted=5,
            baseline_passed=3,
            baseline_counted=5,
            difference=difference,
            interval=interval,
        )

    reference = ArmSource(name="skill", label="skill", kind="skill")
    report = make_report([make_case(case, "PASS")], package=package)
    return report.model_copy(
        update={
            "config": report.config.model_copy(update={"engine": "claude-code"}),
            "arm": reference,
            "arms": ReportArms(
                reference=reference,
                comparisons=[
                    ArmComparison(
                        arm=ArmSource(name="no-skill", label="no skill", kind="no-skill"),
                        uplift=uplift("no skill", 0.4, [0.12, 0.68]),
                        method="newcombe-paired",
                    ),
                    ArmComparison(
                        arm=ArmSource(
                            name="without:hooks", label="without hooks", kind="without", part="hooks"
                        ),
                        uplift=uplift("without hooks", -0.2, [-0.5, 0.1]),
                        method="newcombe-paired",
                    ),
                ],
            ),
        }
    )
