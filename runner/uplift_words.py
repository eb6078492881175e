"""The words for an uplift and the arms table, the same in every face (the CLI, `evalens show`, the HTML page, CI
summaries, the editors).

A module of its own, below the run machinery of ``baseline`` and ``arms``: the read-only faces (`evalens show`,
`evalens report`, the server's hover) print these without loading what runs a batch (measured: ``baseline`` and
``arms`` pull in the package installer and the sandbox, about 0.2-0.3 s of imports).
"""

from __future__ import annotations

from typing import Any

from evalens.core.models.baseline import Uplift
from evalens.runner.pairwise import pairwise_text

MINUS = "\u2212"


def _pts(value: float) -> str:
    n = round(value * 100)
    return f"+{n}" if n > 0 else f"{MINUS}{-n}" if n < 0 else "0"


def uplift_text(u: Uplift | None, *, interval: bool = True, against: bool = True) -> str:
    """``▲ +40 pts vs no skill [−5, +75]``, ``▼ −20 pts vs v1 (3f9a0c1)``, ``= 0 pts vs no skill``; without
    ``against`` the arm is not named (``▲ +40 pts [−5, +75]``: a table whose heading names it)."""
    if u is None:
        return ""
    vs = f" vs {u.against}" if against else ""
    if u.difference is None:
        return f"?{vs} (no run passed or failed on one side)"
    n = round(u.difference * 100)
    text = f"{'▲' if n > 0 else '▼' if n < 0 else '='} {_pts(u.difference)} pts{vs}"
    if interval and u.interval:
        text += f" [{_pts(u.interval[0])}, {_pts(u.interval[1])}]"
    return text


def rates_text(u: Uplift) -> str:
    """``with 3/3, without 0/3`` (errored baseline runs named)."""
    text = f"with {u.passed}/{u.counted}, without {u.baseline_passed}/{u.baseline_counted}"
    if u.baseline_errored:
        text += f" +{u.baseline_errored} error" + ("s" if u.baseline_errored > 1 else "")
    return text


def cost_text(u: Uplift) -> str:
    """The cost difference: USD when both sides reported one, else tokens, else ''; '' when no baseline run
    passed or failed (runs that crashed did no comparable work, so there is nothing to compare against)."""
    if u.baseline_counted == 0 or u.counted == 0:
        return ""
    if u.cost_usd is not None and u.baseline_cost_usd is not None:
        d = u.cost_usd - u.baseline_cost_usd
        sign = "+" if d >= 0 else MINUS
        return f"cost {sign}${abs(d):.4f} (${u.cost_usd:.4f} vs ${u.baseline_cost_usd:.4f})"
    if u.tokens is not None and u.baseline_tokens is not None:
        d = u.tokens - u.baseline_tokens
        sign = "+" if d >= 0 else MINUS
        return f"tokens {sign}{abs(d):,} ({u.tokens:,} vs {u.baseline_tokens:,})"
    return ""


def describe(u: Uplift | None) -> str:
    """One line for hovers, `evalens show` and summaries: uplift, rates, cost (and whether it was isolated)."""
    if u is None:
        return ""
    unisolated = "unisolated: the baseline could read the package" if u.isolated is False else ""
    return " · ".join(p for p in (uplift_text(u), rates_text(u), cost_text(u), unisolated) if p)


# --------------------------------------------------------------------------- the table every face shows


def arm_cell(u: Uplift, theirs: bool) -> str:
    """``0/3 $0.0040``: one arm's runs that passed of those counted, and their cost (``theirs``: the compared
    arm's side of the uplift, else the reference's)."""
    passed, counted = (u.baseline_passed, u.baseline_counted) if theirs else (u.passed, u.counted)
    cost = u.baseline_cost_usd if theirs else u.cost_usd
    return f"{passed}/{counted}" + (f" ${cost:.4f}" if cost is not None else "")


def arms_table(report: Any) -> tuple[list[str], list[list[str]], list[str]] | None:
    """The reference report of an ``--arms`` run as one row per unit and one column per arm: the heading, the
    rows (the reference's k/N and cost; each other arm's k/N, cost and the reference's uplift over it with its
    interval; ``—`` where a unit has no comparison) and one pooled line per arm. None without ``arms``.
    ``evalens show`` and the HTML page both print this."""
    arms = report.arms
    if arms is None:
        return None
    ref = arms.reference.label
    head = ["unit", f"{ref} (reference)", *(c.arm.label for c in arms.comparisons)]
    rows = []
    for case in report.cases:
        ups = [c.units.get(case.name) for c in arms.comparisons]
        first = next((u for u in ups if u is not None), None)
        cells = [f"{arm_cell(u, True)} · {uplift_text(u)}" if u is not None else "—" for u in ups]
        rows.append([case.name, arm_cell(first, False) if first else "—", *cells])
    pooled = []
    for c in arms.comparisons:
        how = {"newcombe-paired": "Newcombe paired", "paired-bootstrap": "paired bootstrap"}.get(
            c.method or ""
        )
        n = len(c.units)
        pooled.append(
            f"{ref} vs {c.arm.label} (all units): {uplift_text(c.uplift) or 'no unit ran on both sides'}"
            + (f" · {how} over {n} unit{'s' if n != 1 else ''}" if how else "")
        )
        if c.pairwise is not None:
            pooled.append(pairwise_text(ref, c.arm.label, c.pairwise))
    return head, rows, pooled
