"""``evalens show --html``'s page in headless Chromium: what a reader of a failing build sees.

The report and its run records are a real run of the `claude` CLI against the fake model (captured in
tests/runner/fixtures/run-report/). The page is opened from a file with no network; playwright-core drives
Debian's chromium (shared/reference/editors-e2e.md §3.5). Screenshots land in build/e2e/run-page/.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.editors.shared_build import build_lock

pytestmark = pytest.mark.editors

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "runner" / "fixtures" / "run-report"
DRIVER = Path(__file__).resolve().parent / "run_page" / "check.js"
PLAYWRIGHT = REPO / "tests" / "editors" / "vscode"  # its node_modules holds playwright-core
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = REPO / "build" / "e2e" / "run-page"


def test_page_shows_verdict_failed_check_tool_call_and_diff(tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists() or shutil.which("node") is None:
        pytest.skip(f"chromium ({CHROMIUM}) or node not installed (run .ci/install-vscode.sh)")
    with build_lock():  # another lane of the editors tier may be installing it right now
        if not (PLAYWRIGHT / "node_modules" / "playwright-core").exists():
            subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=PLAYWRIGHT, check=True)
    reports = tmp_path / "evals" / "reports"
    shutil.copytree(FIXTURE, reports)
    page = tmp_path / "run.html"
    proc = subprocess.run(
        [sys.executable, "-m", "evalens", "show", str(tmp_path), "--html", "-o", str(page)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    html = page.read_text(encoding="utf-8")
    assert "http://" not in html and "https://" not in html  # self-contained: nothing to fetch
    if ARTIFACTS.exists():
        shutil.rmtree(ARTIFACTS)
    ARTIFACTS.mkdir(parents=True)
    driven = subprocess.run(
        ["node", str(DRIVER), str(page), str(ARTIFACTS)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NODE_PATH": str(PLAYWRIGHT / "node_modules"), "CHROMIUM": CHROMIUM},
    )
    assert driven.returncode == 0, driven.stdout + driven.stderr
    seen = json.loads(driven.stdout.strip().splitlines()[-1])
    assert seen["errors"] == [] and seen["requests"] == []
    assert seen["first_unit"] == "FAIL" and seen["fail_badge_visible"]  # failures first
    assert seen["failed_check_visible"]
    assert "agent-blocked" in seen["failed_check_text"] and "BLOCKED_BY_POLICY" in seen["failed_check_text"]
    assert seen["blocked_call_visible"] and "output/blocked.txt" in seen["blocked_call_text"]
    assert "denied the call" in seen["blocked_call_text"]
    assert seen["diff_hidden_before"] and seen["diff_visible_after"]  # diffs collapse until clicked
    assert seen["diff_added_line"] == "+Signed: the team"
    assert seen["after_pass_filter"] == ["PASS"]
    assert seen["anchor_turn_open"] and seen["anchor_call_visible"]
    assert (ARTIFACTS / "run-page.png").stat().st_size > 10_000


COMPARE_DRIVER = Path(__file__).resolve().parent / "run_page" / "check_compare.js"


def test_compare_page_shows_both_runs_and_the_output_diff(tmp_path: Path) -> None:
    """``evalens show --compare UNIT --html``: the unit's two most recent runs side by side in Chromium."""
    if not Path(CHROMIUM).exists() or shutil.which("node") is None:
        pytest.skip(f"chromium ({CHROMIUM}) or node not installed (run .ci/install-vscode.sh)")
    with build_lock():  # another lane of the editors tier may be installing it right now
        if not (PLAYWRIGHT / "node_modules" / "playwright-core").exists():
            subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=PLAYWRIGHT, check=True)
    from tests.runner.compare_fixture import two_runs

    two_runs(tmp_path / "pkg")
    page = tmp_path / "compare.html"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalens",
            "show",
            str(tmp_path / "pkg"),
            "respects-policy",
            "--compare",
            "--html",
            "-o",
            str(page),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    out = ARTIFACTS.parent / "compare-page"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    driven = subprocess.run(
        ["node", str(COMPARE_DRIVER), str(page), str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NODE_PATH": str(PLAYWRIGHT / "node_modules"), "CHROMIUM": CHROMIUM},
    )
    assert driven.returncode == 0, driven.stdout + driven.stderr
    seen = json.loads(driven.stdout.strip().splitlines()[-1])
    assert seen["errors"] == [] and seen["requests"] == []  # self-contained
    assert seen["title"] == "evalens · compare respects-policy"
    assert seen["headers"][1].startswith("previous") and seen["headers"][2].startswith("latest")
    assert seen["verdicts"] == ["PASS", "FAIL"] and seen["verdict_changed"]
    assert seen["verdict_colours"][0] != seen["verdict_colours"][1]  # pass and fail drawn differently
    assert seen["check"][0] == "PASS" and seen["check"][1].startswith("FAIL: the agent was blocked")
    assert seen["cost"] == ["$0.0020", "$0.0010"]
    assert seen["diff_visible"]
    assert seen["diff_removed"] == ["-I wrote output/blocked.txt as asked.", "-GREETING-OK"]
    assert seen["diff_added"] == [
        "+I could not write output/blocked.txt: the policy hook refused. GREETING-OK"
    ]
    assert (out / "compare-page.png").stat().st_size > 10_000
