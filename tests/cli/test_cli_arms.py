"""``evalens.cli.arms``: what ``--arms`` refuses before any agent starts (clashing flags, an unknown arm, a
reference not among the arms, a ref outside git), the units × arms table, the comparison written into the
reference arm's report, and ``evalens run FILE --arms``'s loop — the reference arm last, an interrupt stopping
the rest, the reference's exit code — with the file runner replaced by one that writes the report an arm's batch
would (no agent CLI runs here; runner/arms.py's own tests install the arms for real)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from evalens.cli import arms as cli_arms
from evalens.cli.arms import _compare, _refuse, run_arms, run_file_comparison, table
from evalens.cli.eval import parse
from evalens.core.models.baseline import ArmSource
from evalens.runner.comparison import resolve_arms
from evalens.runner.report import load_report
from evalens.runner.suites.base import FileRunRequest
from tests.ci_helpers import make_case, make_report, write

VERDICTS = {"skill": ("PASS", "PASS"), "no-skill": ("PASS", "FAIL"), "without:references": ("FAIL", "FAIL")}
LABELS = {"skill": "skill", "no-skill": "no skill", "without:references": "without references"}


def _arm_report(name: str) -> Any:
    kind = name.split(":")[0]
    report = make_report([make_case(f"c{i}", v) for i, v in enumerate(VERDICTS[name], start=1)])
    report.arm = ArmSource(
        name=name, label=LABELS[name], kind=kind, part=name.split(":")[1] if ":" in name else None
    )
    return report


def test_refuse_names_every_clashing_flag() -> None:
    assert _refuse(argparse.Namespace(arms="skill,no-skill")) is None
    assert _refuse(argparse.Namespace(baseline=None, shard="", resume=None)) is None
    refused = _refuse(argparse.Namespace(baseline="no-skill", dry_run=True, output=Path("x"), shard=None))
    assert refused == "an --arms run takes no --baseline, --output, --dry-run"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["--arms", "skill,no-skill", "--baseline", "no-skill", "--dry-run"],
            "takes no --baseline, --dry-run",
        ),
        (["--arms", "skill,bogus"], "--arms bogus: not an arm"),
        (["--arms", "skill,no-skill", "--arms-reference", "plugin"], "--arms-reference plugin is not one of"),
        (["--arms", "skill,ref:v9"], "is not inside a git repository"),
    ],
)
def test_eval_arms_refusals_are_exit_2_before_any_run(
    argv: list[str], said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    (tmp_path / "evals" / "cases").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    args = parse(argv)
    assert not isinstance(args, int)
    assert run_arms(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("evalens eval: ") and said in err
    assert not (tmp_path / "evals" / "reports").exists()  # nothing ran


def test_table_has_a_column_per_arm_and_marks_the_reference(tmp_path: Path) -> None:
    names, reference, arms = resolve_arms("skill,no-skill", None, tmp_path)
    reports = {n: _arm_report(n) for n in names}
    lines = table(names, reports, arms, reference).splitlines()
    assert lines[0].split() == ["unit", "skill", "(reference)", "no", "skill"]
    assert lines[2].split()[:2] == ["c1", "PASS"] and "FAIL" in lines[3]
    flipped = table(["no-skill", "skill"], reports, arms, "no-skill").splitlines()
    assert flipped[0].split() == ["unit", "no", "skill", "(reference)", "skill"]


def test_compare_writes_the_uplift_into_the_reference_report(tmp_path: Path, capsys) -> None:
    names, reference, arms = resolve_arms("no-skill,skill", None, tmp_path)
    paths = {n: write(_arm_report(n), tmp_path / f"{n}.json") for n in names}
    out = _compare(arms, names, reference, paths, judged=False)
    (comparison,) = out.arms.comparisons
    assert out.arms.reference.name == "skill" and comparison.arm.name == "no-skill"
    assert comparison.uplift.difference == pytest.approx(0.5)
    assert comparison.units["c1"].difference == 0 and comparison.units["c2"].difference == 1
    assert load_report(paths["skill"]).arms == out.arms  # written, not only returned
    err = capsys.readouterr().err
    assert "Δ vs no skill" in err and "+50 pts" in err
    assert "judging" not in err  # not judged: no pairwise judge


class _FakeRun:
    """Stands in for the file runner (evalens/cli/run.py::_run): records each arm's request and writes the report
    that arm's batch would; ``codes`` replaces an arm's outcome by an exit code (a usage error, an interrupt)."""

    def __init__(
        self, tmp: Path, codes: dict[str, int] | None = None, exit_codes: dict[str, int] | None = None
    ):
        self.tmp, self.codes, self.exit_codes = tmp, codes or {}, exit_codes or {}
        self.arms: list[str] = []

    def __call__(self, request: Any, fmt: str | None, args: Any, refusal: list[str] | None = None) -> Any:
        self.arms.append(request.arm)
        if request.arm in self.codes:
            return self.codes[request.arm]
        path = write(_arm_report(request.arm), self.tmp / f"{request.arm.replace(':', '-')}.json")
        return SimpleNamespace(
            summary=[f"arm {request.arm}"],
            results=[],
            report=load_report(path),
            result_file=None,
            report_path=str(path),
            exit_code=self.exit_codes.get(request.arm, 0),
            summary_failed=False,
        )


def _run_args(**over: Any) -> argparse.Namespace:
    values = dict(
        arms="skill,no-skill,without:references",
        arms_reference=None,
        engine="claude-code",
        agent_model=None,
        output=None,
        json=False,
        junit=None,
        changed_since=None,
        baseline=None,
        shard=None,
        resume=None,
        report=None,
        dry_run=False,
        flaky="fail",
        fail_on_error=None,
    )
    return argparse.Namespace(**{**values, **over})


@pytest.fixture
def request_(tmp_path: Path) -> FileRunRequest:
    (tmp_path / "tasks.yaml").write_text("skill: greeting\ntasks: []\n")
    return FileRunRequest(file=tmp_path / "tasks.yaml")


def test_run_file_arms_runs_the_reference_last_and_compares(
    tmp_path: Path, request_: FileRunRequest, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    fake = _FakeRun(tmp_path, exit_codes={"no-skill": 1, "skill": 0})
    monkeypatch.setattr(cli_arms, "_run", fake)
    assert run_file_comparison(_run_args(), request_, "skilljack-tasks") == 0  # the reference's code
    assert fake.arms == ["no-skill", "without:references", "skill"]
    out = capsys.readouterr()
    assert [line for line in out.err.splitlines() if line.startswith("evalens run: arm ")] == [
        "evalens run: arm no skill",
        "evalens run: arm without references",
        "evalens run: arm skill",
    ]
    assert "report: " in out.out
    ref = load_report(tmp_path / "skill.json")
    assert ref.arms is not None
    assert [c.arm.name for c in ref.arms.comparisons] == ["no-skill", "without:references"]


def test_run_file_arms_exit_code_is_the_reference_arms(
    tmp_path: Path, request_: FileRunRequest, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setattr(cli_arms, "_run", _FakeRun(tmp_path, exit_codes={"skill": 1}))
    assert run_file_comparison(_run_args(arms="skill,no-skill"), request_, None) == 1
    monkeypatch.setattr(cli_arms, "_run", _FakeRun(tmp_path, exit_codes={"skill": 1}))
    assert (
        run_file_comparison(_run_args(arms="skill,no-skill", arms_reference="no-skill"), request_, None) == 0
    )


def test_an_interrupt_stops_the_remaining_arms(
    tmp_path: Path, request_: FileRunRequest, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    fake = _FakeRun(tmp_path, codes={"no-skill": 130})
    monkeypatch.setattr(cli_arms, "_run", fake)
    assert run_file_comparison(_run_args(), request_, None) == 130
    assert fake.arms == ["no-skill"]


def test_without_the_reference_report_there_is_no_comparison(
    tmp_path: Path, request_: FileRunRequest, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    fake = _FakeRun(tmp_path, codes={"skill": 2})
    monkeypatch.setattr(cli_arms, "_run", fake)
    assert run_file_comparison(_run_args(arms="skill,no-skill"), request_, None) == 2
    assert fake.arms == ["no-skill", "skill"]
    assert load_report(tmp_path / "no-skill.json").arms is None
    assert "Δ vs" not in capsys.readouterr().err


def test_run_file_arms_refuses_before_running(
    tmp_path: Path, request_: FileRunRequest, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    fake = _FakeRun(tmp_path)
    monkeypatch.setattr(cli_arms, "_run", fake)
    assert run_file_comparison(_run_args(report=Path("r.json"), shard="1/2"), request_, None) == 2
    assert "evalens run: an --arms run takes no --shard, --report" in capsys.readouterr().err
    assert run_file_comparison(_run_args(arms="skill,ref:v1"), request_, None) == 2
    assert "not inside a git repository" in capsys.readouterr().err
    assert fake.arms == []


def test_an_unknown_arm_is_refused_with_its_name(
    tmp_path: Path, request_: FileRunRequest, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    fake = _FakeRun(tmp_path)
    monkeypatch.setattr(cli_arms, "_run", fake)
    assert run_file_comparison(_run_args(arms="skill,nope"), request_, None) == 2
    assert capsys.readouterr().err.startswith("evalens run: --arms nope: not an arm")
    assert fake.arms == []


class _FakeCells:
    """Stands in for the file runner in a matrix: writes the report each (engine, model, arm) batch would, at the
    path the comparison's plan gave it (``request.output``), with that cell's engine and model; ``failing``: the
    cells (engine) whose one case fails."""

    def __init__(self, failing: frozenset[str] = frozenset(), missing: frozenset[str] = frozenset()) -> None:
        self.failing, self.missing = failing, missing
        self.batches: list[tuple[str, str | None, str | None, Path]] = []

    def __call__(self, request: Any, fmt: str | None, args: Any, refusal: list[str] | None = None) -> Any:
        self.batches.append((request.engine, request.agent_model, request.arm, request.output))
        if request.engine in self.missing:  # as run.py's _run says a batch could not start
            assert refusal is not None
            refusal.append(f"{request.engine} CLI not found")
            return 2
        verdict = "FAIL" if request.engine in self.failing or request.arm == "no-skill" else "PASS"
        report = make_report([make_case("c1", verdict)])
        report.config.engine = request.engine
        if request.arm:
            report.arm = ArmSource(name=request.arm, label=LABELS[request.arm], kind=request.arm)
        path = write(report, request.output)
        return SimpleNamespace(
            summary=[],
            results=[],
            report=load_report(path),
            result_file=None,
            report_path=str(path),
            exit_code=1 if verdict == "FAIL" and request.arm != "no-skill" else 0,
            summary_failed=False,
        )


def test_a_file_matrix_runs_one_batch_per_cell_into_the_suites_reports_and_prints_the_matrix(
    tmp_path: Path, request_: FileRunRequest, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """``evalens run tasks.yaml --engine claude-code,codex``: the runner's plan (one batch per cell, reports named
    by cell in the suite's own reports folder), the worst cell's exit code, one JUnit suite per cell."""
    fake = _FakeCells(failing=frozenset({"codex"}))
    monkeypatch.setattr(cli_arms, "_run", fake)
    junit = tmp_path / "junit.xml"
    args = _run_args(arms=None, engine="claude-code,codex", agent_model="codex=gpt-fake", junit=junit)
    assert run_file_comparison(args, request_, "skilljack-tasks") == 1  # codex's cell failed
    assert [(e, m, a) for e, m, a, _ in fake.batches] == [
        ("claude-code", None, None),
        ("codex", "gpt-fake", None),
    ]
    reports = [p for *_rest, p in fake.batches]
    assert {p.parent for p in reports} == {
        tmp_path / "evals" / "reports"
    }  # skilljack's root: the tasks' folder
    assert [p.name.split("-cell-")[1] for p in reports] == ["1.json", "2.json"]
    out = capsys.readouterr()
    assert [line for line in out.err.splitlines() if line.startswith("evalens run: cell ")] == [
        "evalens run: cell claude-code · default model",
        "evalens run: cell codex · gpt-fake",
    ]
    header = next(line for line in out.out.splitlines() if line.startswith("unit"))
    assert "claude-code" in header and "codex" in header
    xml = junit.read_text()
    assert xml.count("<testsuite ") == 2 and "codex · gpt-fake" in xml


def test_a_file_matrix_with_arms_runs_every_arm_in_every_cell_the_reference_last(
    tmp_path: Path, request_: FileRunRequest, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    fake = _FakeCells()
    monkeypatch.setattr(cli_arms, "_run", fake)
    args = _run_args(arms="skill,no-skill", engine="claude-code,codex")
    assert run_file_comparison(args, request_, "skilljack-tasks") == 0  # both references passed
    assert [(e, a) for e, _m, a, _p in fake.batches] == [
        ("claude-code", "no-skill"),
        ("claude-code", "skill"),
        ("codex", "no-skill"),
        ("codex", "skill"),
    ]
    references = [load_report(p) for _e, _m, a, p in fake.batches if a == "skill"]
    assert all(
        r.arms is not None and [c.arm.name for c in r.arms.comparisons] == ["no-skill"] for r in references
    )
    out = capsys.readouterr().out
    assert "skill" in next(line for line in out.splitlines() if line.startswith("unit"))


def test_a_file_matrix_refuses_one_output_for_every_cell(
    tmp_path: Path, request_: FileRunRequest, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    fake = _FakeCells()
    monkeypatch.setattr(cli_arms, "_run", fake)
    args = _run_args(arms=None, engine="claude-code,codex", output=tmp_path / "one.json")
    assert run_file_comparison(args, request_, "skilljack-tasks") == 2
    assert "evalens run: a matrix run takes no --output" in capsys.readouterr().err
    assert fake.batches == []


def test_a_file_matrix_cell_that_cannot_start_is_an_error_column_not_a_missing_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """Issue 44's rule for a file's matrix: a cell whose batch could not start writes its report, every unit of
    the file ERROR with the reason, so the matrix keeps its column; the exit code stays the refusal's."""
    (tmp_path / "tasks.yaml").write_text("tasks:\n  - id: a\n    prompt: hi\n  - id: b\n    prompt: ho\n")
    request = FileRunRequest(file=tmp_path / "tasks.yaml")
    fake = _FakeCells(missing=frozenset({"codex"}))
    monkeypatch.setattr(cli_arms, "_run", fake)
    args = _run_args(arms=None, engine="claude-code,codex", json=True)
    assert run_file_comparison(args, request, "skilljack-tasks") == 2
    unrun = load_report(fake.batches[1][3])
    assert [(c.name, c.verdict) for c in unrun.cases] == [("a", "ERROR"), ("b", "ERROR")]
    assert all(c.error == "the cell did not run: codex CLI not found" for c in unrun.cases)
    assert unrun.config.engine == "codex"
    grid = json.loads(capsys.readouterr().out)  # --json: stdout is the matrix alone
    assert len(grid["columns"]) == 2 and grid["columns"][1].startswith("codex")
