"""runner/comparison.py: the plan every face of a comparison run drives (issue 41): which batches, in which
order, under which report names and labels. The CLI's matrix and arms tests and the server's
``evalens.runComparison`` test run it with real agents; this holds the plan itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalens.runner.comparison import ComparisonError, plan_comparison


def test_a_matrix_with_arms_runs_each_cells_reference_last_and_names_reports_by_column(
    tmp_path: Path,
) -> None:
    plan = plan_comparison(tmp_path, "claude-code,codex", "codex=gpt-5", "no-skill,skill", batch="B")
    assert plan.cells == [("claude-code", None), ("codex", "gpt-5")] and plan.is_matrix
    runs = plan.runs()
    assert [(r.cell, r.arm, r.index, r.report.name) for r in runs] == [
        (1, "no-skill", 1, "B-cell-1.json"),
        (1, "skill", 2, "B-cell-2.json"),  # the reference last within its cell
        (2, "no-skill", 3, "B-cell-3.json"),
        (2, "skill", 4, "B-cell-4.json"),
    ]
    assert runs[2].label == "codex · gpt-5 · no skill"
    assert all(r.report.parent == tmp_path / "evals" / "reports" for r in runs)


def test_one_cell_with_arms_names_reports_by_arm_as_the_cli_always_has(tmp_path: Path) -> None:
    plan = plan_comparison(tmp_path, "claude-code", None, "skill,no-skill,without:hooks", batch="B")
    assert not plan.is_matrix
    assert [(r.arm, r.report.name) for r in plan.runs()] == [
        ("no-skill", "B-arm-1.json"),
        ("without:hooks", "B-arm-2.json"),
        ("skill", "B-arms.json"),
    ]
    # one cell asked for as a matrix (`--model ENGINE=MODEL`): named by column, --arms order, reference last
    asked = plan_comparison(tmp_path, "claude-code", "gpt-5", "skill,no-skill", batch="B", matrix=True)
    assert [(r.arm, r.report.name) for r in asked.runs()] == [
        ("no-skill", "B-cell-2.json"),
        ("skill", "B-cell-1.json"),
    ]


def test_a_matrix_without_arms_is_one_batch_per_cell(tmp_path: Path) -> None:
    plan = plan_comparison(tmp_path, "claude-code,codex", None, batch="B")
    assert [(r.arm, r.label, r.report.name) for r in plan.runs()] == [
        (None, "claude-code · default model", "B-cell-1.json"),
        (None, "codex · default model", "B-cell-2.json"),
    ]


@pytest.mark.parametrize(
    ("engines", "models", "arms", "reference", "said"),
    [
        ("claude-code", "codex=gpt-5", None, None, "codex is not one of --engine claude-code"),
        ("claude-code", None, "skill,no-skill", "plugin", "--arms-reference plugin is not one of --arms"),
        ("claude-code", None, "skill,nonsense", None, "nonsense"),
    ],
)
def test_what_cannot_be_planned_is_refused_before_any_agent(
    tmp_path: Path, engines: str, models: str | None, arms: str | None, reference: str | None, said: str
) -> None:
    with pytest.raises(ComparisonError, match=said):
        plan_comparison(tmp_path, engines, models, arms, reference)


def test_the_count_is_each_batchs_own_units_times_its_runs(tmp_path: Path) -> None:
    """``planned_runs``: each batch's dry run (a file's selected units, never its folder's other files) times
    the runs, over every cell × arm; nothing runs, no report is written."""
    from evalens.runner.api import request_for
    from evalens.runner.comparison import planned_runs

    suite = tmp_path / "suite"
    (suite / "skills" / "greeter").mkdir(parents=True)
    (suite / "skills" / "greeter" / "SKILL.md").write_text(
        "---\nname: greeter\ndescription: Greets.\n---\nHi.\n"
    )
    tasks = "skill: greeter\ntasks:\n" + "".join(f'  - id: t{i}\n    prompt: "hi {i}"\n' for i in range(3))
    (suite / "tasks.yaml").write_text(tasks)
    (suite / "other.tasks.yaml").write_text(tasks.replace("id: t", "id: u"))
    base = request_for("skilljack-tasks", suite / "tasks.yaml", [], {"runs": 3})
    plan = plan_comparison(suite, "claude-code,codex", None, "skill,no-skill", None, matrix=True)
    counted = planned_runs(base, plan, "skilljack-tasks")
    assert (counted.batches, counted.units, counted.runs, counted.agent_runs) == (4, 3, 3, 36)
    picked = planned_runs(base.model_copy(update={"units": ["t1"]}), plan, "skilljack-tasks")
    assert picked.agent_runs == 12  # the selected unit only
    assert not (suite / "evals" / "reports").exists() or not any((suite / "evals" / "reports").iterdir())
