"""Judges you can trust (issue #25): agreement figures against a published worked example, the flip rate by
hand, how repeated judgements combine, and which quotes count as evidence."""

from __future__ import annotations

import pytest

from evalens.runner import stats
from evalens.runner.judge import build_prompt
from evalens.runner.judge_material import material_of, unquoted
from evalens.runner.verdicts import combine_judgements


def test_krippendorff_alpha_matches_the_published_example() -> None:
    # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the worked example with missing values:
    # 4 observers, 12 units, nominal α = 0.743
    rows = [
        "1 2 3 3 2 1 4 1 2 . . .",
        "1 2 3 3 2 2 4 1 2 5 . 3",
        ". 3 3 3 2 3 4 2 2 5 1 .",
        "1 2 3 3 2 4 4 1 2 5 1 .",
    ]
    table = [r.split() for r in rows]
    units = [[row[i] for row in table if row[i] != "."] for i in range(12)]
    alpha = stats.krippendorff_alpha_nominal(units)
    assert alpha is not None and round(alpha, 3) == 0.743
    # by hand: two units judged PASS,FAIL and PASS,PASS → o(P,F) = o(F,P) = 1, n = 4, n_P = 3, n_F = 1:
    # α = 1 − 3 · 2 / (3·1 + 1·3) = 0
    assert stats.krippendorff_alpha_nominal([["PASS", "FAIL"], ["PASS", "PASS"]]) == pytest.approx(0.0)
    assert stats.krippendorff_alpha_nominal([["PASS", "PASS"], ["FAIL", "FAIL"]]) == pytest.approx(1.0)
    assert stats.krippendorff_alpha_nominal([["PASS", "PASS"], ["PASS"]]) is None  # no variation
    assert stats.krippendorff_alpha_nominal([["PASS"]]) is None


def test_flip_rate_by_hand() -> None:
    assert stats.flip_rate(["PASS", "PASS", "PASS"]) == 0.0
    assert stats.flip_rate(["PASS", "FAIL"]) == 1.0
    assert stats.flip_rate(["PASS", "FAIL", "PASS"]) == pytest.approx(2 / 3)  # 2 of the 3 pairs differ
    assert stats.flip_rate(["PASS"]) is None


def test_repeated_judgements_combine_strictly() -> None:
    assert combine_judgements(["PASS", "PASS"]) == "PASS"
    assert combine_judgements(["PASS", "FAIL", "PASS"]) == "FAIL"
    assert combine_judgements(["FAIL", "ERROR"]) == "ERROR"
    assert combine_judgements([]) == "ERROR"


def test_evidence_must_be_in_the_material() -> None:
    prompt = build_prompt(
        "Say BANANA.",
        "the task",
        "I wrote   BANANA\non two lines",
        {"out.txt": "file body"},
        [],
    )
    material = material_of(prompt)
    assert material is not None and "I wrote   BANANA" in material and "file body" in material
    assert "the agent's final output" not in material  # evalens's own label is no quote of the agent
    assert unquoted(["wrote BANANA on two", "file body", "I wrote … two lines"], material) == []
    assert unquoted(["a flawless report", "", "lines … I wrote"], material) == [
        "a flawless report",
        "",
        "lines … I wrote",
    ]
    assert material_of("verdict please") is None
