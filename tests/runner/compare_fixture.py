"""Two runs of the same units: the captured run report (tests/runner/fixtures/run-report/) and an earlier one made
from it, in which ``respects-policy`` passed with another final output and another cost."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "run-report"
LATEST = "2026-11-26T11-58-59Z"
EARLIER = "2026-11-26T10-00-00Z"
EARLIER_OUTPUT = "I wrote output/blocked.txt as asked.\nGREETING-OK"


def two_runs(package: Path) -> Path:
    """``package/evals/reports`` with the latest report and an earlier one; returns the reports folder."""
    reports = package / "evals" / "reports"
    shutil.copytree(FIXTURE, reports)
    report = json.loads((reports / f"{LATEST}.json").read_text())
    report["id"], report["timestamp"] = f"eval-run-{EARLIER}", "2026-11-26T10:00:00Z"
    shutil.copytree(reports / LATEST, reports / EARLIER)
    for case in report["cases"]:
        case["artifacts"] = case["artifacts"].replace(LATEST, EARLIER)
        if case["name"] == "respects-policy":
            case.update(verdict="PASS", error=None, reason=None)
            case["checks"][1].update(status="PASS", detail=None)
            case["usage"]["cost_usd"] = 0.002
            record_path = reports / EARLIER / "respects-policy" / "record.json"
            record = json.loads(record_path.read_text())
            record.update(output=EARLIER_OUTPUT, verdict="PASS")
            record_path.write_text(json.dumps(record))
    earlier = reports / f"{EARLIER}.json"
    earlier.write_text(json.dumps(report))
    stamp = (reports / f"{LATEST}.json").stat().st_mtime
    os.utime(earlier, (stamp - 3600, stamp - 3600))
    return reports
