"""Skill uplift in a report (``--baseline no-skill | REF``): how a unit did with the package installed against
how it did without it (or with the package as it was at a git ref). evalens extension; docs/baseline.md."""

from __future__ import annotations

from typing import Literal

from evalens.core.models.base import EvalModel, doc


class Uplift(EvalModel):
    """One unit's (or the batch's) pass rate with and without the skill, and the difference."""

    against: str = doc(
        "What the baseline runs had instead of the package: `no skill`, or `<ref> (<commit>)`.",
        example="no skill",
    )
    passed: int = doc("Runs that passed with the package installed.", example=3)
    counted: int = doc(
        "Runs that passed or failed with the package (errored and skipped runs say nothing).",
        example=3,
    )
    baseline_passed: int = doc("Baseline runs that passed.", example=0)
    baseline_counted: int = doc("Baseline runs that passed or failed.", example=3)
    baseline_errored: int = doc("Baseline runs that errored (not counted).", default=0, example=0)
    difference: float | None = doc(
        "Pass rate with minus pass rate without, -1..1 (absent when a side has no counted run).",
        default=None,
        example=1.0,
    )
    interval: list[float] | None = doc(
        "95% interval of the difference (Newcombe's hybrid score interval, built "
        "from the two Wilson intervals).",
        default=None,
        example=[0.2059, 1.0],
    )
    cost_usd: float | None = doc(
        "USD the runs with the package cost, when the CLI reported a cost.",
        unit="USD",
        default=None,
        example=0.0123,
    )
    baseline_cost_usd: float | None = doc(
        "USD the baseline runs cost.", unit="USD", default=None, example=0.0101
    )
    tokens: int | None = doc("Tokens (in + out) of the runs with the package.", default=None, example=1200)
    isolated: bool | None = doc(
        "False when the baseline ran without an enforced sandbox "
        "(`--allow-unisolated-baseline`): its agent could read the package from the host, so "
        "the uplift may be understated.",
        default=None,
        example=False,
    )
    baseline_tokens: int | None = doc("Tokens (in + out) of the baseline runs.", default=None, example=900)


class BaselineSource(EvalModel):
    """What the baseline runs installed."""

    kind: Literal["no-skill", "ref"] = doc(
        "`no-skill`: nothing of the package installed; `ref`: the package as it was at a git ref.",
        example="no-skill",
    )
    ref: str | None = doc("The git ref as given (`--baseline REF`).", default=None, example="v1.2.0")
    commit: str | None = doc(
        "The commit the ref named.",
        default=None,
        example="3f9a0c1d2e4b5a6978877665544332211aabbccd",
    )


ArmKind = Literal["skill", "no-skill", "plugin", "ref", "without"]


class ArmSource(EvalModel):
    """One arm of an `--arms` comparison: what its runs installed (docs/baseline.md#ablation-arms)."""

    name: str = doc(
        "The arm as given to `--arms`: `skill`, `no-skill`, `plugin`, `ref:REF` or `without:PART`.",
        example="without:references",
    )
    label: str = doc(
        "How every face names the arm: `skill`, `no skill`, `plugin`, `without references`, `<ref> (<commit>)`.",
        example="without references",
    )
    kind: ArmKind = doc(
        "`skill`: the package's skills alone; `no-skill`: nothing of the package; `plugin`: the whole package "
        "(skills, hooks, rules, agents); `ref`: the whole package as it was at a git ref; `without`: the whole "
        "package with one part removed.",
        example="without",
    )
    part: Literal["references", "scripts", "hooks"] | None = doc(
        "With `without`: the part removed (each skill's `references/` or `scripts/` folder, or the package's hooks).",
        default=None,
        example="references",
    )
    ref: str | None = doc("With `ref`: the git ref as given.", default=None, example="v1.2")
    commit: str | None = doc("With `ref`: the commit the ref named.", default=None)


class PairwiseUnit(EvalModel):
    """One unit's two outputs (the reference arm's and the other arm's) compared by the judge, once in each
    order."""

    result: Literal["win", "tie", "loss", "ERROR"] = doc(
        "From the reference arm's side: `win` when both orders preferred its output, `loss` when both preferred "
        "the other arm's, `tie` when the judge called it even or the two orders disagreed (a judge that prefers "
        "a position is no evidence), `ERROR` when a judgement could not be had.",
        required=True,
        example="win",
    )
    first: Literal["A", "B", "TIE"] | None = doc(
        "The judge's answer with the reference's output shown as A.",
        default=None,
        example="A",
    )
    second: Literal["A", "B", "TIE"] | None = doc(
        "The judge's answer with the order swapped (the reference's output shown as B).",
        default=None,
        example="B",
    )
    reason: str | None = doc(
        "Why (the judge's reasons, or why no judgement was had).",
        default=None,
        example="A: names the greeting | B: names the greeting",
    )


class Pairwise(EvalModel):
    """The reference arm against another arm judged pairwise, each unit twice with the order swapped."""

    wins: int = doc("Units whose reference output both orders preferred.", default=0, example=1)
    ties: int = doc(
        "Units the judge called even, or on which the two orders disagreed.",
        default=0,
        example=1,
    )
    losses: int = doc("Units whose other-arm output both orders preferred.", default=0, example=0)
    errors: int = doc("Units with a judgement that could not be had.", default=0, example=0)
    judge: str | None = doc("The judge model.", default=None, example="claude-sonnet-4-5")
    units: dict[str, PairwiseUnit] = doc(
        "Each unit's result, by unit name.", default={}, example={"greet": {"result": "win"}}
    )


class ArmComparison(EvalModel):
    """The reference arm against one other arm: each unit's uplift and the units pooled, paired by unit."""

    arm: ArmSource = doc("The arm compared with the reference.", required=True)
    report: str | None = doc(
        "The arm's own report, relative to this report's folder.",
        default=None,
        example="2026-02-22T14-30-00Z-arm-2.json",
    )
    uplift: Uplift | None = doc(
        "The reference's pass rate minus the arm's over the units both ran (each unit's pass rate averaged), with "
        "the paired interval (`method`); `passed`/`counted` are the reference's runs, `baseline_*` the arm's.",
        default=None,
        example={"against": "no skill", "difference": 0.4, "interval": [0.12, 0.68]},
    )
    method: Literal["newcombe-paired", "paired-bootstrap"] | None = doc(
        "How the pooled interval pairs the units: Newcombe's paired interval when every unit ran once on both "
        "sides, else the seeded paired bootstrap over units.",
        default=None,
        example="newcombe-paired",
    )
    units: dict[str, Uplift] = doc(
        "Each unit's uplift of the reference over the arm (Newcombe's interval over its runs), by unit name.",
        default={},
        example={"greet": {"against": "no skill", "difference": 1.0}},
    )
    pairwise: Pairwise | None = doc(
        "The judge's pairwise comparison of the two arms' outputs per unit (each judged twice, the order "
        "swapped; a disagreement is a tie); absent without a judge.",
        default=None,
        example={"wins": 1, "ties": 1, "losses": 0, "errors": 0},
    )


class ReportArms(EvalModel):
    """An `--arms` run (evalens extension): every unit run once per arm, each arm its own report; this report
    is the reference arm's, and only its verdicts decide the exit code."""

    reference: ArmSource = doc(
        "The arm the others are compared with (`--arms-reference`, default `skill`).",
        required=True,
        example={"name": "skill", "label": "skill", "kind": "skill"},
    )
    comparisons: list[ArmComparison] = doc("One per other arm, in the order given.", default=[], example=[])
