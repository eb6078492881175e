"""``evalens show``: the terminal view and the HTML page of a real report with its run records (no agent runs:
the fixture was captured from the `claude` CLI against the fake model)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evalens.cli.main import main
from tests.conftest import REPO

FIXTURE = REPO / "tests" / "runner" / "fixtures" / "run-report"
STAMP = "2026-11-26T11-58-59Z"


@pytest.fixture
def package(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "evals" / "reports")
    return tmp_path


def test_terminal_view_failures_first_with_checks_judge_turns_diffs_and_cost(
    package: Path, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["show", str(package)]) == 0
    out = capsys.readouterr().out
    order = [
        out.index(name) for name in ("respects-policy", "judge-disagrees", "model-down", "writes-greeting")
    ]
    assert order == sorted(order)  # FAIL, FAIL, ERROR, PASS
    assert "agent_blocked" in out and "BLOCKED_BY_POLICY" in out  # the failed check with its reason
    assert "judge FAIL (claude-judge): fake judge: the criteria are not met" in out  # the judge's reasoning
    assert "Write output/blocked.txt BLOCKED" in out and "Skill greeter" in out  # tool calls, the block
    assert "+Signed: the team" in out and "+# Welcome, Ada!" in out  # diffs
    assert "170 in / 70 out · $0.0026" in out  # the batch total
    assert "68 in / 28 out · $0.0010" in out  # one unit


def test_one_unit_by_name_with_or_without_report(package: Path, capsys, monkeypatch) -> None:
    report = package / "evals" / "reports" / f"{STAMP}.json"
    assert main(["show", str(report), "writes-greeting"]) == 0
    out = capsys.readouterr().out
    assert "writes-greeting" in out and "respects-policy" not in out
    monkeypatch.chdir(package / "evals")
    assert (
        main(["show", "model-down"]) == 0
    )  # a first argument that is no path is a unit of the newest report
    out = capsys.readouterr().out
    assert "model-down" in out and "API status 500" in out and "writes-greeting" not in out


def test_unknown_unit_and_missing_report_are_one_line_exit_2(
    package: Path, tmp_path: Path, capsys, monkeypatch, tmp_path_factory
) -> None:
    assert main(["show", str(package), "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no unit named 'nope'" in err and "writes-greeting" in err
    empty = tmp_path_factory.mktemp("no-package")
    monkeypatch.chdir(empty)
    assert main(["show"]) == 2
    assert "no report found" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert main(["show", str(bad)]) == 2
    assert "is not an evalens eval report" in capsys.readouterr().err


def test_html_is_self_contained_escaped_and_survives_a_broken_record(
    package: Path, tmp_path: Path, capsys
) -> None:
    folder = package / "evals" / "reports" / STAMP
    record = json.loads((folder / "writes-greeting" / "record.json").read_text())
    record["turns"][1]["tool_calls"][0]["result"] = "<script>alert(1)</script>"
    (folder / "writes-greeting" / "record.json").write_text(json.dumps(record))
    (folder / "model-down" / "record.json").write_text("{not json")
    page = tmp_path / "out" / "run.html"
    assert main(["show", str(package), "--html", "-o", str(page)]) == 0
    assert capsys.readouterr().out.strip() == str(page)
    html = page.read_text()
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.count("<script>") == 1 and "src=" not in html and "<link" not in html
    assert 'data-verdict="ERROR"' in html and "not a readable run record" in html
    assert html.index('id="u-respects-policy"') < html.index('id="u-writes-greeting"')
    assert 'id="u-respects-policy-check-0"' in html and 'id="u-respects-policy-r1-t2" open' in html


def test_summary_table_has_tokens_cost_and_a_batch_total() -> None:
    import io
    from types import SimpleNamespace

    from evalens.cli.progress import print_summary
    from evalens.core.models.run_record import Usage

    def result(name: str, usage: Usage | None) -> SimpleNamespace:
        return SimpleNamespace(
            name=name, verdict="PASS", pass_rate=None, duration_seconds=1.0, reason="", usage=usage
        )

    out = io.StringIO()
    print_summary(
        [
            result("a", Usage(input_tokens=1200, output_tokens=30, cost_usd=0.012)),
            result("b", Usage(input_tokens=800, output_tokens=20, cost_usd=0.008)),
            result("not-run", None),
        ],
        None,
        stream=out,
    )
    text = out.getvalue()
    assert "1,200 in / 30 out" in text and "$0.0120" in text
    assert "total: 2,000 in / 50 out tokens · $0.0200" in text
    out = io.StringIO()
    print_summary([result("codex", Usage(input_tokens=5, output_tokens=1))], None, stream=out)
    assert "total: 5 in / 1 out tokens · no cost reported by the CLI" in out.getvalue()


def test_markdown_folds_per_turn_and_fences_what_the_agent_wrote(package: Path, capsys) -> None:
    folder = package / "evals" / "reports" / STAMP
    record = json.loads((folder / "respects-policy" / "record.json").read_text())
    record["turns"][1]["tool_calls"][0]["result"] = "```\n# not a heading\n```"
    (folder / "respects-policy" / "record.json").write_text(json.dumps(record))
    assert main(["show", str(package), "respects-policy", "--markdown"]) == 0
    text = capsys.readouterr().out
    assert [line for line in text.splitlines() if line.startswith("#### Turn")] == [
        "#### Turn 1: Skill greeter",
        "#### Turn 2: Bash printf 'fixture data\\nSigned: the team\\n' > fixtures/data.txt && echo EDITED",
        "#### Turn 3: Write output/blocked.txt — BLOCKED",
        "#### Turn 4: I could not write output/blocked.txt: the policy hook refused. GREETING-OK",
    ]
    assert "````text\n```\n# not a heading\n```\n````" in text
    assert (
        "- FAIL `agent-blocked` `false` — the agent was blocked" in text and "+Signed: the team" in text
    )  # as YAML writes it


def test_hover_shows_tokens_and_cost_also_for_a_verdict_restored_from_a_report(package: Path) -> None:
    from types import SimpleNamespace

    from evalens.server.features.run_memory import read_reports
    from evalens.server.features.run_present import hover_markdown

    records = read_reports(package)
    text = hover_markdown(records["respects-policy"])
    assert "68 in / 28 out tokens · $0.0010" in text.splitlines()[0]
    plain = SimpleNamespace(
        result=records["model-down"].result.model_copy(update={"usage": None}), report_path=None
    )
    assert "tokens" not in hover_markdown(plain)
