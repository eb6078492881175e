"""Compare a unit's two most recent runs: which reports are picked, what differs, the page and the Markdown."""

from __future__ import annotations

import subprocess
from pathlib import Path

from evalens.runner.run_compare import compare, render_compare_html, render_compare_markdown, rows
from tests.in_process import evalens as evalens_cli
from tests.runner.compare_fixture import EARLIER, EARLIER_OUTPUT, LATEST, two_runs


def test_the_two_newest_runs_side_by_side(tmp_path: Path) -> None:
    reports = two_runs(tmp_path / "pkg")
    case = tmp_path / "pkg" / "evals" / "cases" / "01-respects-policy.yaml"
    cmp = compare(case, "respects-policy", str(case))
    assert cmp is not None and cmp.previous is not None
    assert (cmp.latest.report_path.name, cmp.previous.report_path.name) == (
        f"{LATEST}.json",
        f"{EARLIER}.json",
    )
    table = {label: (before, now) for label, before, now in rows(cmp)}
    assert table["verdict"] == ("PASS", "FAIL")
    assert table["check agent-blocked false"][0] == "PASS"
    assert table["check agent-blocked false"][1].startswith("FAIL: the agent was blocked")
    assert table["cost"] == ("$0.0020", "$0.0010")
    assert "judge" not in table  # no judge ruled on this unit in either run: no row
    diff = cmp.output_diff()
    assert "-I wrote output/blocked.txt as asked." in diff and "+I could not write output/blocked.txt" in diff
    assert f"previous ({cmp.previous.timestamp})" in diff

    page = render_compare_html(cmp)
    assert "http://" not in page and "https://" not in page and "<script" not in page
    assert 'class="changed"><th>verdict</th><td class="v-PASS">PASS</td><td class="v-FAIL">FAIL</td>' in page
    assert 'id="output-diff"' in page and "I wrote output/blocked.txt as asked." in page
    md = render_compare_markdown(cmp)
    assert "| verdict **≠** | PASS | FAIL |" in md and "```diff" in md

    # a report given: it is the latest side; the one before it the previous
    older = compare(reports / f"{EARLIER}.json", "respects-policy")
    assert older is not None and older.previous is None and older.latest.output == EARLIER_OUTPUT
    assert "Only one run of this unit so far" in render_compare_html(older)
    same = compare(reports, "judge-disagrees")
    assert same is not None and same.output_diff() == ""
    [(_, before, now)] = [r for r in rows(same) if r[0] == "judge"]
    assert before == now and now.startswith("FAIL (")  # the same ruling both times: shown, not marked
    assert "the final outputs are the same" in render_compare_html(same)
    assert (
        compare(reports, "never-ran") is None and compare(tmp_path / "elsewhere", "respects-policy") is None
    )


def test_cli_compare(tmp_path: Path) -> None:
    two_runs(tmp_path / "pkg")
    out = tmp_path / "cmp.html"

    def show(*args: str) -> subprocess.CompletedProcess:
        return evalens_cli(["show", *args], cwd=tmp_path / "pkg")

    page = show("respects-policy", "--compare", "--html", "-o", str(out))
    assert page.returncode == 0, page.stderr
    assert "<h1>evalens · compare respects-policy</h1>" in out.read_text()
    terminal = show("respects-policy", "--compare")
    assert terminal.returncode == 0, terminal.stderr
    assert (
        "PASS" in terminal.stdout
        and "FAIL" in terminal.stdout
        and "I wrote output/blocked.txt" in terminal.stdout
    )
    md = show("--compare", "--markdown", "respects-policy")
    assert md.returncode == 0 and md.stdout.startswith("# Compare respects-policy")
    missing = show("--compare", "nobody")
    assert missing.returncode == 2 and "no run of nobody" in missing.stderr
    assert show("--compare").returncode == 2  # a unit is needed
