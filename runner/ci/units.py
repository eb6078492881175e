"""A report seen as CI sees it: a flat list of units with a verdict, a duration, a place and a reason.

Every CI writer (JUnit, the step summary, annotations, the gate, sharding) reads :class:`ReportUnit`, never a
report's own shape, so a new report shape needs only a new :func:`units_of`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalens.core.documents import parse
from evalens.runner.verdicts import count_passed, held, passed

#: Verdicts a unit may carry: FLAKY (runs disagreed) comes from a report case's ``state`` (``--runs``).
PASSING = frozenset({"PASS"})
VERDICTS = ("PASS", "FAIL", "FLAKY", "ERROR", "SKIP")

#: Report check kinds → the key of the case's ``expected`` block they come from.
_CHECK_KEYS = {
    "contains": "contains",
    "not_contains": "not-contains",
    "files_created": "files-created",
    "agent_blocked": "agent-blocked",
}


@dataclass(slots=True)
class ReportUnit:
    """One case / task / query of a report."""

    name: str
    verdict: str
    suite: str
    duration: float | None = None
    file: str | None = None  # relative to the package root, as the report stores it
    failed_checks: list[str] = field(default_factory=list)
    judge_reason: str | None = None
    error: str | None = None
    run_verdicts: list[str] = field(default_factory=list)
    output: str | None = None  # the start of the agent's final output
    reason: str | None = None  # the report's one-line reason, when it has one
    replay: Any = None  # the report case's CaseReplay (--record / --replay), None for a plain live run
    #: Where in ``file`` a failure annotation may point, best first: a document path (``("expected",
    #: "contains")``) and, for a list, the entry's value (the check's exact value), else None; the unit's own
    #: place comes last.
    fail_paths: list[tuple[tuple[str | int, ...], Any]] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.verdict in PASSING

    def message(self) -> str:
        """One line: what failed and why (failed checks, then the judge's reason, then the error)."""
        if self.verdict == "ERROR":  # the run broke: what the checks saw of it is no finding about the skill
            parts = [self.error or self.judge_reason or self.reason or ""]
        else:
            parts = list(self.failed_checks)
            if self.judge_reason and not passed(self.verdict):
                parts.append(f"judge: {self.judge_reason}")
            if self.error and not any(self.error in p for p in parts):
                parts.append(self.error)
        if self.verdict == "FLAKY" and self.run_verdicts:
            parts.insert(
                0,
                f"flaky: {count_passed(self.run_verdicts)} of {len(self.run_verdicts)} runs passed "
                f"({', '.join(self.run_verdicts)})",
            )
        if not parts and self.reason:
            parts.append(self.reason)
        if not parts and self.verdict == "SKIP":
            parts.append("skipped")
        return "; ".join(p.replace("\n", " ").strip() for p in parts if p) or self.verdict


def units_of(report: Any) -> list[ReportUnit]:
    """The units of a report (today: an ``EvalReport`` of UAAPS cases)."""
    suite = (report.package.name if report.package else None) or "evalens"
    out = []
    for case in report.cases:
        failed = [c for c in case.checks if c.status == "FAIL"]
        paths: list[tuple[tuple[str | int, ...], Any]] = []
        for c in failed:  # a check's own location when the report has it, else found by kind and value
            where = getattr(c, "location", None)
            paths.append(
                (tuple(where), None) if where else (("expected", _CHECK_KEYS.get(c.kind, c.kind)), c.value)
            )
        judge = case.judge_verdict
        if judge is not None and not held(judge.result):
            paths.append((("judge", "criteria"), None))
        if case.verdict == "ERROR":  # point at the unit, not at checks that judged a broken run
            paths = []
        own = getattr(case, "location", None)
        paths.append((tuple(own), None) if own is not None else (("name",), None))
        out.append(
            ReportUnit(
                name=case.name,
                verdict=getattr(case, "state", None) or case.verdict,
                suite=suite,
                duration=case.duration_seconds,
                file=case.case_file,
                judge_reason=judge.reason if judge else None,
                error=case.error,
                failed_checks=[
                    f"{c.kind.replace('_', '-')} {c.value!r}: {c.detail or 'failed'}" for c in failed
                ],
                run_verdicts=list(case.run_verdicts),
                fail_paths=paths,
                output=case.agent_output_snippet,
                reason=getattr(case, "reason", None),
                replay=getattr(case, "replay", None),
            )
        )
    return out


def counts(units: list[ReportUnit]) -> dict[str, int]:
    """Verdict → number of units, every verdict present (0 when none)."""
    out = dict.fromkeys(VERDICTS, 0)
    for unit in units:
        out[unit.verdict] = out.get(unit.verdict, 0) + 1
    return out


def pass_rate(units: list[ReportUnit]) -> float:
    return round(sum(u.passed for u in units) / len(units), 4) if units else 0.0


def locate(unit: ReportUnit, package_root: Path | None) -> tuple[Path | None, int]:
    """The unit's file (absolute, when it exists) and the 1-based line a failure annotation should point at:
    the first failed check's entry, else the judge criteria, else the case's ``name``."""
    if not unit.file:
        return None, 1
    path = Path(unit.file)
    if not path.is_absolute() and package_root is not None:
        path = package_root / path
    if not path.is_file():
        return path, 1
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return path, 1
    language = {".json": "json", ".md": "markdown"}.get(path.suffix.lower(), "yaml")
    doc = parse(text, language)  # type: ignore[arg-type]
    if not doc.ok:
        return path, 1
    for where, value in unit.fail_paths:
        node = doc.node_at_path(where)
        if node is not None and node.kind == "seq" and value is not None:
            for item in node.items:
                if item.kind == "scalar" and item.value == value:
                    return path, item.span.start_line + 1
        if node is not None or doc.key_span_at_path(where) is not None:
            return path, doc.span_for(where, prefer_key=True).start_line + 1
    return path, 1
