"""The compare page words a check as the case writes it and the run page shows it (issue 45 #8): `not-contains`,
`files-created`, `agent-blocked` `true`, where it said the report's `not_contains` / `files_created` and
Python's `True`."""

from __future__ import annotations

import json
from pathlib import Path

from evalens.runner.run_compare import compare_runs, rows
from tests.runner.test_run_history import _report


def test_the_compare_page_spells_checks_as_the_case_does(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "evals" / "cases").mkdir(parents=True)
    checks = [
        {"kind": "not_contains", "value": "ERROR", "status": "PASS"},
        {"kind": "files_created", "value": "output/report.md", "status": "FAIL", "detail": "not created"},
        {"kind": "agent_blocked", "value": True, "status": "PASS"},
    ]
    paths = []
    for stamp in ("2026-01-01T10:00:00Z", "2026-01-02T10:00:00Z"):
        path = _report(pkg, stamp, "claude-code", "sonnet", {"a": "FAIL"})
        path.write_text(
            path.read_text().replace('"case_file"', f'"checks": {json.dumps(checks)}, "case_file"')
        )
        paths.append(path)
    cmp = compare_runs(paths[1], paths[0], "a", str(pkg / "evals/cases/a.yaml"))
    assert cmp is not None
    labels = [label for label, _, _ in rows(cmp) if label.startswith("check ")]
    assert labels == [
        "check not-contains ERROR",
        "check files-created output/report.md",
        "check agent-blocked true",
    ], labels
