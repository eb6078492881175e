"""Statistics of repeated runs, fingerprints and budgets (issue: how sure is the verdict)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from evalens.runner import budget, fingerprint, stats


def test_wilson_interval_matches_published_values() -> None:
    # Newcombe (1998), table I: 81/263 -> 0.2553..0.3662; 15/148 -> 0.0624..0.1605; 0/10 -> 0..0.2775
    lo, hi = stats.wilson_interval(81, 263)
    assert (round(lo, 4), round(hi, 4)) == (0.2553, 0.3662)
    lo, hi = stats.wilson_interval(15, 148)
    assert (round(lo, 4), round(hi, 4)) == (0.0624, 0.1605)
    lo, hi = stats.wilson_interval(0, 10)
    assert lo == 0.0 and round(hi, 4) == 0.2775
    lo, hi = stats.wilson_interval(10, 10)
    assert round(lo, 4) == 0.7225 and hi == 1.0
    assert stats.wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        stats.wilson_interval(3, 2)


def test_newcombe_difference_matches_published_example() -> None:
    # Newcombe (1998), table II example (a): 56/70 vs 48/80 -> d=0.2, method 10 interval 0.0524..0.3339
    d, lo, hi = stats.newcombe_difference(56, 70, 48, 80)
    assert round(d, 4) == 0.2
    assert (round(lo, 4), round(hi, 4)) == (0.0524, 0.3339)


def test_pass_hat_k_is_the_unbiased_estimator() -> None:
    assert stats.pass_hat_k(2, 3, 1) == pytest.approx(2 / 3)
    assert stats.pass_hat_k(2, 3, 2) == pytest.approx(1 / 3)  # C(2,2)/C(3,2)
    assert stats.pass_hat_k(2, 3, 3) == 0.0
    assert stats.pass_hat_k(3, 3, 3) == 1.0
    assert stats.pass_hat_k(1, 2, 3) is None
    units = [stats.Repeats.of(["PASS", "PASS", "FAIL"]), stats.Repeats.of(["PASS"] * 3)]
    assert stats.batch_pass_hat_k(units, 2) == pytest.approx((1 / 3 + 1) / 2)


@pytest.mark.parametrize(
    ("verdicts", "state", "label"),
    [
        (["PASS", "PASS", "PASS"], "PASS", "3/3"),
        (["PASS", "FAIL", "PASS"], "FLAKY", "2/3"),
        (["FAIL", "FAIL"], "FAIL", "0/2"),
        (["PASS", "ERROR", "PASS"], "ERROR", "2/2 +1 error"),
        (["FAIL", "ERROR"], "FAIL", "0/1 +1 error"),
        (["ERROR", "ERROR"], "ERROR", "0/0 +2 errors"),
        (["SKIP"], "SKIP", "0/0"),
        ([], "SKIP", "0/0"),
    ],
)
def test_repeats_state(verdicts: list[str], state: str, label: str) -> None:
    r = stats.Repeats.of(verdicts)
    assert r.state == state
    assert r.label() == label


def test_flaky_two_of_three() -> None:
    r = stats.Repeats.of(["PASS", "FAIL", "PASS"])
    assert r.state == "FLAKY" and r.pass_rate == pytest.approx(2 / 3)
    lo, hi = r.interval or (math.nan, math.nan)
    assert (round(lo, 3), round(hi, 3)) == (0.208, 0.939)
    assert r.pass_hat_k == 0.0
    assert stats.exit_state_fails("FLAKY") and not stats.exit_state_fails("FLAKY", "pass")
    assert stats.exit_state_fails("ERROR") and not stats.exit_state_fails("SKIP")


def test_fingerprint_names_what_changed(tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "pdf"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: pdf\n---\nbody\n")
    hooks = tmp_path / "hooks"
    a = fingerprint.build(
        "prompt: x",
        folders={"skill:pdf": skill, "hooks": hooks},
        values={"engine": "claude-code", "engine-version": "2.0.1", "judge": None},
    )
    assert a.parts["hooks"] == "absent" and "judge" not in a.parts
    same = fingerprint.build(
        "prompt: x\r\n".rstrip("\r\n"),
        folders={"skill:pdf": skill, "hooks": hooks},
        values={"engine": "claude-code", "engine-version": "2.0.1"},
    )
    assert fingerprint.changes(a, same) == []
    (skill / "SKILL.md").write_text("---\nname: pdf\n---\nnew body\n")
    hooks.mkdir()
    (hooks / "hooks.json").write_text("{}")
    b = fingerprint.build(
        "prompt: y",
        folders={"skill:pdf": skill, "hooks": hooks},
        values={"engine": "claude-code", "engine-version": "2.0.3", "judge": "claude-haiku"},
    )
    assert fingerprint.changes(a, b) == [
        "engine version 2.0.1 → 2.0.3",
        "hooks changed",
        "judge model added",
        "skill pdf changed",
        "the unit's own text changed",
    ]
    assert fingerprint.Fingerprint.from_json(b.to_json()) == b
    assert fingerprint.Fingerprint.from_json({"unit": 3}) is None


def test_fingerprint_never_follows_links_out(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret 1")
    skill = tmp_path / "skill"
    skill.mkdir()
    (skill / "link").symlink_to(outside)
    before = fingerprint.tree_hash(skill)
    outside.write_text("secret 2")
    assert fingerprint.tree_hash(skill) == before


def test_budget_stops_new_units_once_spent() -> None:
    b = budget.Budget(max_cost=0.10)
    assert b.admit("a") is None
    b.spend(0.06, 1000)
    assert b.admit("b") is None
    b.spend(0.05, 1000)
    reason = b.admit("c")
    assert reason is not None and "--max-cost" in reason and b.refused == ["c"]
    t = budget.Budget(max_tokens=1500)
    t.spend(None, 1500)
    assert "--max-tokens" in (t.admit("x") or "")
    with pytest.raises(ValueError):
        budget.Budget(max_cost=-1)


def test_estimate_uses_median_history() -> None:
    est = budget.estimate(
        ["a", "b", "c"], {"a": [(0.1, 100), (0.3, 300), (0.2, 200)], "b": [(None, 50)]}, runs=2
    )
    assert est.cost == pytest.approx(0.4) and est.tokens == 500 and est.known == 2 and est.unknown == ["c"]
    assert "1 unit(s) have no history" in est.describe()
    assert budget.estimate(["z"], {}).describe() == "no previous reports of these units: no estimate"


def _package(root: Path) -> Path:
    for name in ("pdf", "docx"):
        (root / "skills" / name).mkdir(parents=True)
        (root / "skills" / name / "SKILL.md").write_text(f"---\nname: {name}\n---\n")
    (root / "evals" / "fixtures").mkdir(parents=True)
    (root / "evals" / "fixtures" / "in.txt").write_text("input\n")
    (root / "evals" / "cases.yaml").write_text("cases: []\n")
    return root


def test_editing_one_skill_makes_exactly_its_dependents_stale(tmp_path: Path) -> None:
    from evalens.runner import depends

    root = _package(tmp_path / "pkg")
    fixture = root / "evals" / "fixtures" / "in.txt"
    a = depends.unit_fingerprint(
        {"prompt": "x"}, package_root=root, fixtures=[fixture], values={"engine": "codex"}
    )
    assert set(a.parts) == {"unit", "skill:pdf", "skill:docx", "fixtures", "engine"}
    # the eval file, reports and other cases live under evals/: none of them is an input
    (root / "evals" / "cases.yaml").write_text("cases: [changed]\n")
    (root / "evals" / "reports").mkdir()
    (root / "evals" / "reports" / "r.json").write_text("{}")
    same = depends.unit_fingerprint(
        {"prompt": "x"}, package_root=root, fixtures=[fixture], values={"engine": "codex"}
    )
    assert depends.stale_reasons(a.to_json(), same) == []
    (root / "skills" / "pdf" / "SKILL.md").write_text("---\nname: pdf\ndescription: new\n---\n")
    fixture.write_text("new input\n")
    b = depends.unit_fingerprint(
        {"prompt": "x"}, package_root=root, fixtures=[fixture], values={"engine": "codex"}
    )
    assert depends.stale_reasons(a.to_json(), b) == ["fixtures changed", "skill pdf changed"]
    assert depends.stale_reasons(None, b) == []  # recorded before fingerprints: unknown, not stale


def test_a_skill_folder_holding_its_evals_is_hashed_without_them(tmp_path: Path) -> None:
    from evalens.runner import depends

    skill = tmp_path / "my-skill"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: my-skill\n---\n")
    (skill / "evals" / "evals.json").write_text('{"evals": []}')
    a = depends.unit_fingerprint({"id": 1}, package_root=skill)
    assert "skill:my-skill" in a.parts
    (skill / "evals" / "evals.json").write_text('{"evals": [{"id": 2}]}')
    assert depends.stale_reasons(a.to_json(), depends.unit_fingerprint({"id": 1}, package_root=skill)) == []
    (skill / "scripts").mkdir()
    (skill / "scripts" / "run.sh").write_text("echo hi\n")
    assert depends.stale_reasons(a.to_json(), depends.unit_fingerprint({"id": 1}, package_root=skill)) == [
        "skill my-skill changed"
    ]
