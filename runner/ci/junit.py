"""JUnit XML for CI test reporters: one ``<testcase>`` per unit.

The shape validates against the strict schemas (the Jenkins xunit plugin's ``junit-10.xsd`` and the Ant
``JUnit.xsd``, both in tests/data/) as well as the lenient readers (GitHub / GitLab reporters, Jenkins core):
``<testsuites>`` (no attributes: Ant allows none) → one ``<testsuite>`` (one per cell of a matrix run) → ``<properties>``, ``<testcase>``…,
``<system-out>``, ``<system-err>``. A testcase carries only ``name``, ``classname`` and ``time``; verdicts map
so a reader can tell them apart: FAIL → ``<failure type="FAIL">``, FLAKY → ``<failure type="FLAKY">``, ERROR →
``<error type="ERROR">`` (the agent or the judge broke: not a failing skill), SKIP → ``<skipped>``, any other
state → ``<error type="STATE">``. What the schemas have no attribute for (each unit's verdict, file and line) goes
into the suite's ``<properties>`` and into the failure text.
"""

from __future__ import annotations

import re
import socket
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from evalens.core.models.cassette import replay_label
from evalens.runner.ci.units import ReportUnit, counts, locate, units_of
from evalens.runner.verdicts import passed

#: Characters XML 1.0 cannot carry (an agent's output may hold any of them).
_NOT_XML = re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
MESSAGE_CHARS = 1000


def _text(value: object, limit: int | None = None) -> str:
    text = _NOT_XML.sub("\ufffd", str(value))
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"


def _seconds(value: float | None) -> str:
    return f"{max(0.0, value or 0.0):.3f}"


def _details(unit: ReportUnit) -> str:
    lines = [f"verdict: {unit.verdict}"]
    if unit.run_verdicts:
        lines.append(f"runs: {', '.join(unit.run_verdicts)}")
    lines += [f"check failed: {c}" for c in unit.failed_checks]
    if unit.judge_reason:
        lines.append(f"judge: {unit.judge_reason}")
    if unit.error and unit.error != unit.judge_reason:
        lines.append(f"error: {unit.error}")
    if unit.output:
        lines += ["agent output (start):", unit.output]
    return "\n".join(lines)


def place(unit: ReportUnit, package_root: Path | None, base: Path | None = None) -> str | None:
    """``file:line`` of the unit (its failed check, else its case), relative to ``base`` when it is inside."""
    if not unit.file:
        return None
    path, line = locate(unit, package_root)
    shown = unit.file
    if path is not None and base is not None:
        try:
            shown = path.resolve().relative_to(base.resolve()).as_posix()
        except ValueError:
            shown = str(path)
    return f"{shown}:{line}"


def testcase(unit: ReportUnit, package_root: Path | None, base: Path | None = None) -> ET.Element:
    """One ``<testcase>``; ``base`` makes the place relative (a repository root), else it stays as stored."""
    element = ET.Element(
        "testcase",
        {"name": _text(unit.name), "classname": _text(unit.suite), "time": _seconds(unit.duration)},
    )
    message = _text(unit.message(), MESSAGE_CHARS)
    where = place(unit, package_root, base)
    details = _text((f"at: {where}\n" if where else "") + _details(unit))
    if unit.verdict in ("FAIL", "FLAKY"):
        ET.SubElement(element, "failure", {"message": message, "type": unit.verdict}).text = details
    elif unit.verdict == "ERROR":
        ET.SubElement(element, "error", {"message": message, "type": "ERROR"}).text = details
    elif unit.verdict == "SKIP":
        ET.SubElement(element, "skipped", {"message": message})
    elif not passed(unit.verdict):  # a verdict this writer does not know yet must not read as a pass
        ET.SubElement(element, "error", {"message": message, "type": _text(unit.verdict)}).text = details
    return element


def _timestamp(report: Any) -> str:
    """ISO 8601 without a zone: the JUnit schema's pattern has none."""
    return str(report.timestamp).rstrip("Z")[:19]


def junit_xml(
    report: Any, *, package_root: Path | None = None, base: Path | None = None, cells: list[str] | None = None
) -> str:
    """The report as a JUnit XML document (UTF-8 text with its declaration).

    A matrix run passes a list of cell reports and their ``cells`` labels: one ``<testsuite>`` per cell in one
    document (both strict schemas allow several), its cases' ``classname`` naming the cell so a reader keeps
    the same unit of two cells apart."""
    reports = report if cells is not None else [report]
    root = ET.Element("testsuites")
    for index, one in enumerate(reports):
        root.append(_suite(one, index, cells[index] if cells is not None else None, package_root, base))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _suite(
    report: Any, index: int, cell: str | None, package_root: Path | None, base: Path | None
) -> ET.Element:
    """One report's ``<testsuite>``: its counts, its facts as properties, then a testcase per unit."""
    units = units_of(report)
    n = counts(units)
    failures = n["FAIL"] + n["FLAKY"]
    errors = len(units) - n["PASS"] - n["SKIP"] - failures
    total_time = _seconds(
        report.duration_seconds
        if report.duration_seconds is not None
        else sum(u.duration or 0 for u in units)
    )
    name = _text(units[0].suite if units else (report.package.name or "evalens")).strip() or "evalens"
    if cell is not None:
        name = f"{name} [{_text(cell)}]"
    suite = ET.Element(
        "testsuite",
        {
            "name": name,
            "tests": str(len(units)),
            "failures": str(failures),
            "errors": str(errors),
            "skipped": str(n["SKIP"]),
            "time": total_time,
            "timestamp": _timestamp(report),
            "hostname": _text(socket.gethostname()).strip() or "localhost",
            "id": str(index),
            "package": name,
        },
    )
    _properties(ET.SubElement(suite, "properties"), report, units, package_root, base)
    for unit in units:
        case = testcase(unit, package_root, base)
        if cell is not None:
            case.set("classname", name)
        suite.append(case)
    ET.SubElement(suite, "system-out").text = ""
    ET.SubElement(suite, "system-err").text = ""
    return suite


def _properties(
    props: ET.Element, report: Any, units: list[ReportUnit], package_root: Path | None, base: Path | None
) -> None:
    """What the schemas have no attribute for: the run's facts, and each unit's verdict and place."""
    facts = {
        "evalens.report": report.id,
        "evalens.engine": report.config.engine,
        "evalens.engine_version": report.config.engine_version,
        "evalens.judge": report.config.judge,
        "evalens.pass_rate": f"{report.summary.pass_rate:.4f}",
        "evalens.interrupted": str(bool(report.interrupted)).lower(),
    }
    sandbox = getattr(report, "sandbox", None)
    if sandbox is not None:
        facts["evalens.sandboxed"] = sandbox.sandboxed
    if report.shard is not None:
        facts["evalens.shard"] = f"{report.shard.index}/{report.shard.count}"
    if report.shards:
        facts["evalens.merged_from"] = ", ".join(s.id for s in report.shards)
    replays = [u for u in units if u.replay is not None]
    if replays:  # --record / --replay: how many verdicts came from cassettes, and which units went live
        facts["evalens.replay.mode"] = replays[0].replay.mode
        facts["evalens.replay.replayed_units"] = str(sum(bool(u.replay.replayed) for u in replays))
        facts["evalens.replay.live_units"] = ", ".join(u.name for u in replays if u.replay.live_requests)
    for key, value in facts.items():
        if value is not None:
            ET.SubElement(props, "property", {"name": key, "value": _text(value)})
    for unit in units:  # per unit: its verdict (every state, known or new) and its place
        where = place(unit, package_root, base)
        ET.SubElement(
            props,
            "property",
            {
                "name": _text(f"evalens.unit.{unit.name}"),
                "value": _text(unit.verdict + (f" {where}" if where else "")),
            },
        )
        label = replay_label(unit.replay)
        if label:
            ET.SubElement(props, "property", {"name": _text(f"evalens.replay.{unit.name}"), "value": label})


def write_junit(
    report: Any,
    path: Path,
    *,
    package_root: Path | None = None,
    base: Path | None = None,
    cells: list[str] | None = None,
) -> Path:
    """Write :func:`junit_xml` (``cells``: a matrix run's cell reports and labels, one document)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(junit_xml(report, package_root=package_root, base=base, cells=cells), encoding="utf-8")
    return path
