"""The comparison tables of issue #25 on the HTML page and in ``evalens show``: an ``--arms`` reference report
as units × arms (k/N, cost, uplift with its interval, pooled lines) and a matrix run's cell report as units ×
cells (k/N, Wilson interval, cost). Pages are parsed, never grepped; every user text is escaped."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from evalens.cli.main import main
from evalens.core.models.baseline import ArmSource, ReportArms
from evalens.core.models.uaaps import ReportAgent, Usage
from evalens.runner.arms import comparison
from evalens.runner.matrix import batch_reports, cell_report_name
from evalens.runner.report_html import render_html
from evalens.runner.run_view import load_view
from evalens.runner.uplift_words import arms_table
from tests.ci_helpers import make_case, make_report, write

EVIL = '<img src=x onerror="alert(1)">'


class Tables(HTMLParser):
    """Every ``<table>`` of a page by its class: rows of cell texts; and every ``<img>`` seen (none may be)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.lists: dict[str, list[str]] = {}
        self.images = 0
        self._table: list[list[str]] | None = None
        self._list: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        cls = dict(attrs).get("class") or ""
        if tag == "img":
            self.images += 1
        elif tag == "table":
            self._table = self.tables.setdefault(cls, [])
        elif tag == "ul" and cls:
            self._list = self.lists.setdefault(cls, [])
        elif tag == "tr" and self._table is not None:
            self._table.append([])
        elif tag in ("td", "th", "li"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._table is not None and self._cell is not None:
            self._table[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "li" and self._list is not None and self._cell is not None:
            self._list.append("".join(self._cell))
            self._cell = None
        elif tag == "table":
            self._table = None
        elif tag == "ul":
            self._list = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _parse(page: str) -> Tables:
    parser = Tables()
    parser.feed(page)
    return parser


def _arms_report(tmp: Path) -> Path:
    """A reference arm (skill) that passed both units and a no-skill arm that passed one."""
    ref = make_report(
        [
            make_case(EVIL, "PASS", file="evals/cases/a.yaml", usage=Usage(cost_usd=0.01)),
            make_case("wave", "PASS", file="evals/cases/b.yaml"),
        ]
    )
    other = make_report(
        [
            make_case(EVIL, "FAIL", file="evals/cases/a.yaml", usage=Usage(cost_usd=0.004)),
            make_case("wave", "PASS", file="evals/cases/b.yaml"),
        ]
    )
    skill = ArmSource(name="skill", label="skill", kind="skill")
    ref_arm = ArmSource(name="ref:<b>v1</b>", label="<b>v1</b> (abc1234)", kind="ref", ref="<b>v1</b>")
    none = ArmSource(name="no-skill", label="no skill", kind="no-skill")
    ref.arm = skill
    ref.arms = ReportArms(
        reference=skill,
        comparisons=[
            comparison(ref, other, none, "x-arm-1.json"),
            comparison(ref, ref, ref_arm, "x-arm-2.json"),
        ],
    )
    return write(ref, tmp / "evals" / "reports" / "2026-02-22T14-30-00Z-arms.json")


def test_arms_page_is_units_by_arms_with_uplift_and_pooled_lines(tmp_path: Path) -> None:
    path = _arms_report(tmp_path)
    view = load_view(path)
    page = _parse(render_html(view))
    assert page.images == 0  # the unit name's markup is text, not an element
    head, *rows = page.tables["arms-table"]
    assert head == ["unit", "skill (reference)", "no skill", "<b>v1</b> (abc1234)"]
    by_unit = {r[0]: r[1:] for r in rows}
    ref, none, same = by_unit[EVIL]
    assert ref == "1/1 $0.0100"
    # by hand: 1/1 against 0/1 is a +100 point difference; Newcombe's interval from the two Wilson intervals
    assert none.startswith("0/1 $0.0040 · ▲ +100 pts vs no skill [") and none.endswith("]")
    assert same.startswith("1/1 $0.0100 · = 0 pts vs <b>v1</b> (abc1234) [")
    assert by_unit["wave"][1].startswith("1/1 · = 0 pts vs no skill [")
    pooled = page.lists["pooled"]
    assert pooled[0].startswith("skill vs no skill (all units): ▲ +50 pts vs no skill [")  # 2/2 against 1/2
    assert pooled[0].endswith(" · Newcombe paired over 2 units")
    shaped = arms_table(view.report)
    assert shaped is not None and pooled == shaped[2]  # the page says what `evalens show` says


def test_show_prints_the_same_arms_table(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    path = _arms_report(tmp_path)
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "arms (reference: skill)" in out and "skill vs no skill (all units): ▲ +50 pts" in out
    assert "<b>v1</b> (abc1234)" in out and EVIL in out  # rich markup escaped: shown as written


def _cell(engine: str, model: str, cases: list) -> object:
    report = make_report(cases, agent=ReportAgent(model=model))
    return report.model_copy(update={"config": report.config.model_copy(update={"engine": engine})})


def _matrix_batch(tmp: Path) -> list[Path]:
    folder = tmp / "evals" / "reports"
    claude = _cell(
        "claude-code",
        "sonnet",
        [
            make_case(
                "greet",
                "FAIL",
                file="evals/cases/greet.yaml",
                run_verdicts=["PASS", "FAIL", "PASS"],
                runs=3,
                usage=Usage(cost_usd=0.0123),
            ),
            make_case(EVIL, "PASS", file="evals/cases/only.yaml"),
        ],
    )
    codex = _cell(
        "codex",
        "gpt-<5>",
        [make_case("greet", "PASS", file="evals/cases/greet.yaml", run_verdicts=["PASS"] * 3, runs=3)],
    )
    paths = [
        write(claude, folder / cell_report_name("2026-02-22T14-30-00Z", 1)),
        write(codex, folder / cell_report_name("2026-02-22T14-30-00Z", 2)),
    ]
    write(
        codex, folder / cell_report_name("2026-02-22T15-00-00Z", 1)
    )  # another batch: not a cell of this one
    write(codex, folder / "2026-02-22T14-30-00Z.json")  # an ordinary report: not a cell
    return paths


def test_matrix_page_is_units_by_cells_with_wilson_interval_and_cost(tmp_path: Path) -> None:
    first, second = _matrix_batch(tmp_path)
    assert batch_reports(second) == [first, second]
    assert batch_reports(first.with_name("2026-02-22T14-30-00Z.json")) == []
    page = _parse(render_html(load_view(second)))
    assert page.images == 0
    head, greet, only = page.tables["matrix-table"]
    assert head == ["unit", "claude-code · sonnet", "codex · gpt-<5> (this report)"]
    # by hand: Wilson of 2/3 is 20.8%–93.9%, of 3/3 43.9%–100%, of 1/1 20.7%–100%
    assert greet == ["greet", "FLAKY2/3 [21%–94%] $0.0123", "PASS3/3 [44%–100%]"]
    assert only == [EVIL, "PASS1/1 [21%–100%]", "—"]  # a unit the cell did not run is empty, not a failure
    plain = _parse(render_html(load_view(first.with_name("2026-02-22T14-30-00Z.json"))))
    assert "matrix-table" not in plain.tables


def test_matrix_page_names_a_cell_report_it_cannot_read(tmp_path: Path) -> None:
    first, second = _matrix_batch(tmp_path)
    first.write_text("{not json")
    html = render_html(load_view(second))
    head, greet = _parse(html).tables["matrix-table"]
    assert head == ["unit", "codex · gpt-<5> (this report)"] and greet[0] == "greet"
    assert f"not read: {first.name}" in html


def test_show_prints_the_matrix_of_a_cell_report(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    first, _second = _matrix_batch(tmp_path)
    assert main(["show", str(first)]) == 0
    out = capsys.readouterr().out
    assert "matrix (2 cells)" in out and "claude-code · sonnet (this report)" in out
    assert "FLAKY 2/3 [21%–94%] $0.0123" in out and "PASS 3/3 [44%–100%]" in out and "codex · gpt-<5>" in out


def test_markdown_run_view_has_the_matrix_table(tmp_path: Path) -> None:
    """Neovim's run view (``evalens.runView`` as Markdown) shows the batch's matrix as the CLI's table."""
    from evalens.runner.report_markdown import render_markdown

    first, _second = _matrix_batch(tmp_path)
    text = render_markdown(load_view(first))
    assert "## Matrix (2 cells)" in text
    table = text.split("## Matrix (2 cells)")[1].split("```text\n")[1].split("\n```")[0].splitlines()
    assert table[0].split("  ")[0] == "unit" and "claude-code · sonnet (this report)" in table[0]
    assert table[2].startswith("greet") and "FLAKY 2/3 [21%–94%] $0.0123" in table[2]
    assert "PASS 3/3 [44%–100%]" in table[2] and table[3].rstrip().endswith("—")
    plain = render_markdown(load_view(first.with_name("2026-02-22T14-30-00Z.json")))
    assert "## Matrix" not in plain
