"""The paired gate (issue #25): McNemar and Newcombe's paired interval against published values, the bootstrap's
determinism, pairing by identity, and the three answers with their exit codes through the real CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from evalens.runner import stats
from evalens.runner.ci.paired import paired_gate
from tests.ci_helpers import make_case, make_report, write
from tests.in_process import evalens as evalens_cli


def test_mcnemar_exact_matches_published_and_by_hand_values() -> None:
    # Fagerland, Lydersen & Laake (2017), ch. 8: Cavo et al. 2012 (6 vs 16 discordant) exact conditional
    # McNemar p = 0.052; Bentur et al. 2009 (1 vs 7) p = 0.070. By hand: 2·Σ_{i≤6} C(22,i)/2^22 = 110056/2^21.
    assert stats.mcnemar_exact(6, 16) == pytest.approx(110056 / 2**21)
    assert round(stats.mcnemar_exact(6, 16), 3) == 0.052
    assert stats.mcnemar_exact(1, 7) == pytest.approx(18 / 256)
    assert round(stats.mcnemar_exact(7, 1), 3) == 0.070  # symmetric
    assert stats.mcnemar_exact(0, 0) == 1.0
    assert stats.mcnemar_exact(1, 0) == 1.0  # one flip: 2 · 1/2, capped
    assert stats.mcnemar_exact(0, 5) == pytest.approx(2 / 32)
    with pytest.raises(ValueError):
        stats.mcnemar_exact(-1, 2)


def test_newcombe_paired_interval_matches_published_example() -> None:
    # Fagerland et al. (2017), ch. 8, Cavo et al. 2012, table [[59, 6], [16, 80]]: π1+ − π+1 = −0.0621,
    # Newcombe square-and-add 95% CI −0.1186 to −0.0046. Here "before" is the column margin (59 + 16) and
    # "after" the row margin (59 + 6), so the difference after − before is the published one.
    d, lo, hi = stats.newcombe_paired_difference(59, 16, 6, 80)
    assert (round(d, 4), round(lo, 4), round(hi, 4)) == (-0.0621, -0.1186, -0.0046)
    d, lo, hi = stats.newcombe_paired_difference(59, 6, 16, 80)  # the other way round: mirrored
    assert (round(d, 4), round(lo, 4), round(hi, 4)) == (0.0621, 0.0046, 0.1186)
    # 5/5 both times (φ = 0 as a margin is empty): by hand, ±(1 − Wilson's lower bound of 5/5) = ±0.4345
    d, lo, hi = stats.newcombe_paired_difference(5, 0, 0, 0)
    assert d == 0.0 and round(lo, 4) == -0.4345 and round(hi, 4) == 0.4345


def test_paired_bootstrap_is_seeded_and_sees_within_unit_noise() -> None:
    pairs = [((3, 3), (2, 3)), ((1, 3), (1, 3)), ((3, 3), (3, 3)), ((0, 3), (1, 3))]
    one = stats.paired_bootstrap(pairs, seed=7, resamples=500)
    assert one == stats.paired_bootstrap(pairs, seed=7, resamples=500)
    assert one != stats.paired_bootstrap(pairs, seed=8, resamples=500)
    assert one[0] == pytest.approx(0.0)  # (−1/3 + 0 + 0 + 1/3) / 4
    # identical all-pass units on both sides: no change seen, but 3 runs each cannot prove none
    d, lo, hi = stats.paired_bootstrap([((3, 3), (3, 3))] * 5, resamples=500)
    assert d == 0.0 and lo < -0.05 < 0.05 < hi
    with pytest.raises(ValueError):
        stats.paired_bootstrap([((1, 0), (1, 1))])


def _suite(n: int, failing: set[int], runs: list[str] | None = None, prefix: str = "u") -> list:
    cases = []
    for i in range(n):
        verdict = "FAIL" if i in failing else "PASS"
        extra = {}
        if runs is not None:
            extra = {"run_verdicts": [verdict] * len(runs), "runs": len(runs)}
        cases.append(
            make_case(f"{prefix}{i:03d}", verdict, file=f"evals/cases/{prefix}{i:03d}.yaml", **extra)
        )
    return cases


def test_five_units_one_flip_is_inconclusive() -> None:
    base = make_report(_suite(5, set()))
    new = make_report(_suite(5, {2}))
    result = paired_gate(base, new)
    assert result.answer == "INCONCLUSIVE" and result.method == "mcnemar"
    assert result.p_value == 1.0 and result.worse == ["u002"]
    assert result.difference == pytest.approx(-0.2)
    assert result.interval is not None and result.interval[0] < -0.05


def test_two_hundred_units_real_ten_point_drop_is_regression() -> None:
    # 170/200 → 150/200: 24 units got worse, 4 got better (net −20 = −10 points)
    base_fail = set(range(30))
    new_fail = set(range(4, 30)) | set(range(30, 54))
    result = paired_gate(make_report(_suite(200, base_fail)), make_report(_suite(200, new_fail)))
    assert result.answer == "REGRESSION"
    assert result.difference == pytest.approx(-0.10)
    assert len(result.worse) == 24 and len(result.better) == 4
    assert result.p_value == pytest.approx(stats.mcnemar_exact(24, 4), abs=1e-6) and result.p_value < 0.001
    assert result.interval is not None and result.interval[1] < 0


def test_equal_suites_are_no_regression_and_small_equal_suites_inconclusive() -> None:
    big = make_report(_suite(200, set(range(20))))
    assert paired_gate(big, big).answer == "NO-REGRESSION"
    small = make_report(_suite(5, set()))
    assert paired_gate(small, small).answer == "INCONCLUSIVE"  # 5 units cannot rule out a 5-point drop
    assert paired_gate(small, small, margin=0.6).answer == "NO-REGRESSION"


def test_repeats_use_the_bootstrap() -> None:
    runs = ["PASS", "PASS", "PASS"]
    base = make_report(_suite(200, set(range(20)), runs))
    same = paired_gate(base, base)
    assert same.method == "bootstrap" and same.answer == "NO-REGRESSION"
    drop = paired_gate(base, make_report(_suite(200, set(range(40)), runs)))
    assert drop.answer == "REGRESSION" and drop.difference == pytest.approx(-0.10)
    assert drop.interval is not None and drop.interval[1] < 0


def test_units_pair_by_identity_not_position() -> None:
    base = make_report(
        [
            make_case("a", "PASS", file="evals/cases/a.yaml"),
            make_case("b", "PASS", file="evals/cases/b.yaml", fingerprint={"unit": "h-b"}),
            make_case("gone", "PASS", file="evals/cases/gone.yaml"),
        ]
    )
    new = make_report(
        [  # reordered, b renamed in place (same content), gone removed, fresh added and failing
            make_case("fresh", "FAIL", file="evals/cases/fresh.yaml"),
            make_case("b2", "PASS", file="evals/cases/b.yaml", fingerprint={"unit": "h-b"}),
            make_case("a", "PASS", file="evals/cases/a.yaml"),
        ]
    )
    result = paired_gate(base, new)
    assert result.compared == 2 and result.worse == [] and result.difference == 0.0
    assert result.removed == ["gone"] and result.added == ["fresh"]
    # the same name in another file is another unit
    other = make_report([make_case("a", "FAIL", file="evals/cases/other.yaml")])
    assert paired_gate(base, other).compared == 0


def test_error_in_new_is_never_no_regression() -> None:
    base = make_report(_suite(200, set()))
    cases = _suite(200, set())
    cases[0] = make_case("u000", "ERROR", file="evals/cases/u000.yaml", error="agent crashed")
    result = paired_gate(base, make_report(cases))
    assert result.answer == "INCONCLUSIVE" and result.errored == ["u000"]


def _cli(tmp_path: Path, base, new, *args: str) -> subprocess.CompletedProcess:
    a, b = write(base, tmp_path / "base.json"), write(new, tmp_path / "new.json")
    return evalens_cli(["eval", "diff", str(a), str(b), "--test", "paired", *args])


def test_cli_exit_codes(tmp_path: Path) -> None:
    base200 = make_report(_suite(200, set(range(30))))
    out = _cli(tmp_path, base200, make_report(_suite(200, set(range(4, 54)))))
    assert out.returncode == 1 and out.stdout.startswith("REGRESSION:"), out.stderr
    assert "95% interval" in out.stdout and "exact McNemar" in out.stdout
    out = _cli(tmp_path, base200, base200)
    assert out.returncode == 0 and out.stdout.startswith("NO-REGRESSION:")
    out = _cli(tmp_path, make_report(_suite(5, set())), make_report(_suite(5, set())[:4]))
    # one removed unit and no flip: reported, never a regression
    assert out.returncode == 3 and "removed (in BASE only, not counted): u004" in out.stdout
    out = _cli(tmp_path, make_report(_suite(5, set())), make_report(_suite(5, {2})), "--json")
    data = json.loads(out.stdout)
    assert out.returncode == 3 and data["paired"]["answer"] == "INCONCLUSIVE"
    assert data["paired"]["worse"] == ["u002"] and data["paired"]["p_value"] == 1.0
    assert _cli(tmp_path, base200, base200, "--margin", "2").returncode == 2
    assert _cli(tmp_path, base200, base200, "--fail-on", "regression").returncode == 2


def test_pr_comment_carries_the_paired_answer() -> None:
    from evalens.runner.ci.comment import pr_comment

    text = pr_comment(make_report(_suite(5, {2})), base=make_report(_suite(5, set())))
    assert (
        "**Paired test:** INCONCLUSIVE · change -20.0 pts, 95% interval [-62.4, +26.4] over 5 units "
        "(exact McNemar, p = 1; margin 5 pts)" in text
    )
    nothing = pr_comment(
        make_report([make_case("x", "ERROR", error="boom")]), base=make_report(_suite(1, set()))
    )
    assert "**Paired test:** INCONCLUSIVE: no unit ran to a PASS or FAIL in both reports" in nothing


def test_the_pr_comment_answers_with_the_gates_margin(tmp_path: Path) -> None:
    """The Action gives its `regression-margin` to the gate and to the comment: one answer on both (at 0.01 this
    suite's interval [-1.9, +1.9] pts is INCONCLUSIVE; the comment once said NO-REGRESSION at its own 0.05)."""
    from evalens.runner.ci.comment import pr_comment

    base = make_report(_suite(200, set()))
    for margin, answer in ((0.01, "INCONCLUSIVE"), (0.05, "NO-REGRESSION")):
        assert f"**Paired test:** {answer}" in pr_comment(base, base=base, margin=margin)
    a, b = write(base, tmp_path / "base.json"), write(base, tmp_path / "new.json")
    gate = evalens_cli(["compare", str(a), str(b), "--test", "paired", "--margin", "0.01"])
    comment = evalens_cli(["report", "comment", str(b), "--base", str(a), "--margin", "0.01"])
    assert gate.returncode == 3 and "**Paired test:** INCONCLUSIVE" in comment.stdout, comment.stderr
