"""The matrix of a scripted two-engine, three-arm run in code-server (issue #25): the real ``claude`` and ``codex``
against the scripted model ran ``--arms skill,no-skill,without:references`` on each engine, then one matrix run
``--engine claude-code,codex`` (tests/editors/matrix_package.py). The case's hover shows its row (one column per
cell: k/N, interval, cost), the Test Explorer one item per cell under the case, and Show Run the page's matrix
table. Screenshots land in build/e2e/vscode-matrix/ (and docs/img/ with EVALENS_DOCS_IMG set, with the CLI's
table as text)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.editors.code_server import REPO, code_server_session, step
from tests.editors.doc_images import DOCS_IMG, ENV
from tests.editors.matrix_package import CODEX_MODEL, run_matrix

pytestmark = pytest.mark.editors

ARTIFACTS = REPO / "build" / "e2e" / "vscode-matrix"
CODEX = f"codex · {CODEX_MODEL}"
# the scripted model's answers: tables passes in both cells (2 of 2 runs), strict-marker fails in both
TABLES, STRICT = "PASS 2/2 [34%–100%]", "FAIL 0/2 [0%–66%]"


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
    assert "claude-code · " in lines[head] and CODEX in lines[head], lines
    tables = next(line for line in lines[head:] if line.startswith("tables "))
    strict = next(line for line in lines[head:] if line.startswith("strict-marker "))
    assert tables.count(TABLES) == 2 and strict.count(STRICT) == 2, lines


def test_hover_shows_the_case_row_one_column_per_cell(session):
    step(session, "matrix-hover")
    hover = session["hover"]
    assert "Matrix (2 cells" in hover, hover
    heads, cells = session["hoverHeads"], session["hoverCells"]
    assert len(heads) == 2 and heads[0].startswith("claude-code · ") and heads[1] == CODEX, heads
    # k/N and the Wilson interval per cell; the cost where the CLI reported one (the fake bills claude only)
    assert cells[0].startswith(TABLES + " $") and cells[1] == TABLES, cells
    assert (ARTIFACTS / "matrix-hover.png").exists()


def test_test_explorer_has_one_item_per_cell_under_the_case(session):
    step(session, "matrix-test-explorer")
    rows = session["testExplorerRows"]
    texts = [r["text"] for r in rows]
    case = next(i for i, r in enumerate(rows) if r["text"].startswith("tables"))
    cells = [r for r in rows[case + 1 :] if r["level"] == rows[case]["level"] + 1]
    assert len(cells) == 2, texts
    assert cells[0]["text"].startswith("claude-code · ") and TABLES in cells[0]["text"], texts
    assert cells[1]["text"].startswith(CODEX) and TABLES in cells[1]["text"], texts
    after = rows[case + 1 + len(cells)]  # then the next case file, a sibling of the case's file
    assert (
        after["text"] == "evals/cases/21-strict-marker.yaml" and after["level"] == rows[case]["level"] - 1
    ), texts
    assert (ARTIFACTS / "matrix-test-explorer.png").exists()


def test_show_run_has_the_matrix_table(session):
    step(session, "matrix-show-run")
    head, *body = session["pageMatrix"]
    assert head[0] == "unit" and head[1].startswith("claude-code · ") and head[2].startswith(CODEX), head
    rows = {r[0]: r[1:] for r in body}
    assert set(rows) >= {"tables", "strict-marker"}, rows
    assert all(c.startswith("PASS2/2 [34%–100%]") for c in rows["tables"]), rows
    assert all(c.startswith("FAIL0/2 [0%–66%]") for c in rows["strict-marker"]), rows
    assert (ARTIFACTS / "matrix-show-run.png").exists() and (ARTIFACTS / "matrix-page.png").exists()
