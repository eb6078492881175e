"""The matrix of a scripted two-engine, three-arm run in code-server (issue #25): the real ``claude`` and ``codex``
against the scripted model ran one ``--engine claude-code,codex --model codex=gpt-fake --arms
skill,no-skill,without:references`` run (tests/editors/matrix_package.py). The case's hover shows its row (one
line per engine · model · arm cell: k/N, interval, cost; then each engine's uplift per arm), the Test Explorer
one item per cell under the case with its state's icon, Show Run the page's matrix table, and running a cell item
runs the case on that cell's engine and model as its arm. Screenshots land in build/e2e/vscode-matrix/ (and
docs/img/ with EVALENS_DOCS_IMG set, with the CLI's table as text)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.editors.code_server import REPO, code_server_session, step
from tests.editors.doc_images import DOCS_IMG, ENV
from tests.editors.matrix_package import CODEX_MODEL, run_matrix

pytestmark = pytest.mark.editors

ARTIFACTS = REPO / "build" / "e2e" / "vscode-matrix"
CODEX = f"codex · {CODEX_MODEL}"
ARMS = ("skill", "no skill", "without references")
# the scripted model's answers: tables passes with the skill (2 of 2 runs) and fails without it; strict-marker
# fails in every cell
PASSED, FAILED = "PASS 2/2 [34%–100%]", "FAIL 0/2 [0%–66%]"
TABLES = {"skill": PASSED, "no skill": FAILED, "without references": PASSED}
ICONS = {PASSED: "codicon-pass", FAILED: "codicon-error"}


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory):
    run = tmp_path_factory.mktemp("vscode-matrix")
    cli: list[str] = []

    def prepare(ws: Path) -> None:
        cli.append(run_matrix(ws, run / "matrix-model-log"))

    with code_server_session(run / "cs", ARTIFACTS, "drive_matrix.js", {}, prepare=prepare) as result:
        (ARTIFACTS / "matrix-cli.txt").write_text(cli[0])
        if os.environ.get(ENV):
            (DOCS_IMG / "cli-matrix.txt").write_text(cli[0])
        result["cli"] = cli[0]
        yield result


def test_cli_prints_the_matrix(session):
    lines = session["cli"].splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("unit "))
    for arm in ARMS:
        assert f"· {arm}" in lines[head] and f"{CODEX} · {arm}" in lines[head], lines[head]
    assert (
        "Δ vs no skill · claude-code · " in lines[head]
        and f"Δ vs without references · {CODEX}" in lines[head]
    )
    tables = next(line for line in lines[head:] if line.startswith("tables "))
    strict = next(line for line in lines[head:] if line.startswith("strict-marker "))
    assert tables.count(PASSED) == 4 and tables.count(FAILED) == 2 and strict.count(FAILED) == 6, lines
    # each engine's uplift of the skill over no skill, 2/2 against 0/2: Newcombe's lower bound by hand is
    # 1 − √((1 − 0.3424)² + 0.6576²) = +0.07 (the Wilson bounds of 2/2 and 0/2 are 0.3424 and 0.6576)
    assert tables.count("▲ +100 pts [+7, +100]") == 2, tables
    pooled = [line for line in lines if "(all units)" in line]
    assert len(pooled) == 4 and all("paired bootstrap over 2 units" in p for p in pooled), lines  # repeats


def test_hover_shows_the_case_row_one_line_per_cell(session):
    step(session, "matrix-hover")
    hover = session["hover"]
    assert "Matrix (6 cells" in hover, hover
    heads, cells = session["hoverHeads"], session["hoverCells"]
    assert heads == ["cell", "this case"], heads
    pairs = dict(zip(cells[0::2], cells[1::2], strict=True))
    claude = next(k for k in pairs if k.startswith("claude-code · ") and k.endswith(" · skill")).rsplit(
        " · ", 1
    )[0]
    for arm, value in TABLES.items():
        # k/N and the Wilson interval per cell; the cost where the CLI reported one (the fake bills claude only)
        assert pairs[f"{claude} · {arm}"].startswith(value + " $"), pairs
        assert pairs[f"{CODEX} · {arm}"] == value, pairs
    assert pairs[f"Δ vs no skill · {CODEX}"].startswith("▲ +100 pts ["), pairs
    assert (ARTIFACTS / "matrix-hover.png").exists()


def test_test_explorer_has_one_item_per_cell_with_its_state_icon(session):
    step(session, "matrix-test-explorer")
    rows = session["testExplorerRows"]
    texts = [r["text"] for r in rows]
    case = next(i for i, r in enumerate(rows) if r["text"].startswith("tables"))
    cells = [r for r in rows[case + 1 :] if r["level"] == rows[case]["level"] + 1]
    assert len(cells) == 6, texts
    for row, (engine, arm) in zip(
        cells, [(e, a) for e in ("claude-code · ", CODEX) for a in ARMS], strict=True
    ):
        assert row["text"].startswith(engine) and f" · {arm}" in row["text"], texts
        assert TABLES[arm] in row["text"] and ICONS[TABLES[arm]] in row["icons"], (row, texts)
    assert session["sidebarWidth"] and session["sidebarWidth"] >= 700, session["sidebarWidth"]
    after = rows[case + 1 + len(cells)]  # then the next case file, a sibling of the case's file
    assert (  # a file row with a restored result shows its duration after the name
        after["text"].startswith("evals/cases/21-strict-marker.yaml")
        and after["level"] == rows[case]["level"] - 1
    ), texts
    assert (ARTIFACTS / "matrix-test-explorer.png").exists()


def test_show_run_has_the_matrix_table(session):
    step(session, "matrix-show-run")
    head, *body = session["pageMatrix"]
    assert head[0] == "unit" and head[1].startswith("claude-code · ") and head[4].startswith(CODEX), head
    assert head[-1] == f"Δ vs without references · {CODEX}", head
    rows = {r[0]: r[1:] for r in body}
    assert set(rows) >= {"tables", "strict-marker"}, rows
    states = [c.split(" ")[0][:4] for c in rows["tables"][:6]]
    assert states == ["PASS", "FAIL", "PASS"] * 2, rows
    assert all(c.startswith("FAIL0/2 [0%–66%]") for c in rows["strict-marker"][:6]), rows
    assert (ARTIFACTS / "matrix-show-run.png").exists() and (ARTIFACTS / "matrix-page.png").exists()


def test_running_a_cell_item_runs_its_engine_model_and_arm(session):
    """The claude · no skill cell item: its report says the engine, the model and the arm, and the case fails as
    it does without the skill (run as the workspace's default, the whole package, it passes)."""
    step(session, "matrix-run-cell")
    ran = session["ranCell"]
    report = json.loads(Path(session["cellRunReport"]).read_text())
    model = ran.split(" · ")[1]
    assert report["config"]["engine"] == "claude-code" and report["agent"]["model"] == model, (
        ran,
        report["agent"],
    )
    assert report["arm"]["name"] == "no-skill", report.get("arm")
    (case,) = report["cases"]
    assert case["name"] == "tables" and case["verdict"] == "FAIL", case
