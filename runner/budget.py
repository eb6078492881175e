"""Cost guardrails for a batch: once the budget is spent, no new unit starts.

Units already running finish (killing a paid-for run halfway wastes what it cost and yields no verdict); the
units that never started become SKIP with the reason. Spending is what the agent CLIs report (tokens and USD);
a unit whose CLI reports no cost counts its tokens only. ``estimate`` answers ``--dry-run`` from history.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalens.runner.prices import PRICES_ENV, cost_of, price_of
from evalens.runner.report import load_report, reports_dir


def usd(amount: float) -> str:
    """Dollars to four decimals, or to the first significant digits below a hundredth of a cent, so a cap of
    ``0.000001`` is not shown as ``$0.0000`` (which reads as "no budget at all")."""
    if amount == 0 or abs(amount) >= 0.0001:
        return f"{amount:.4f}"
    return f"{amount:.2g}" if "e" not in f"{amount:.2g}" else f"{amount:.12f}".rstrip("0")


@dataclass
class Budget:
    """``max_cost`` in USD and ``max_tokens`` (input + output) for one batch; None = no limit."""

    max_cost: float | None = None
    max_tokens: int | None = None
    cost: float = 0.0
    tokens: int = 0
    started: int = 0
    refused: list[str] = field(default_factory=list)
    unpriced: list[str] = field(default_factory=list)  # models whose runs cost nothing known (no price)
    cost_name: str = "--max-cost"  # what the SKIP reason calls the limit (the editor: its setting's name)
    tokens_name: str = "--max-tokens"

    def __post_init__(self) -> None:
        if self.max_cost is not None and self.max_cost < 0:
            raise ValueError("--max-cost must be zero or more")
        if self.max_tokens is not None and self.max_tokens < 0:
            raise ValueError("--max-tokens must be zero or more")

    def exhausted(self) -> str | None:
        """Why no new unit may start, or None while there is budget left."""
        if self.max_cost is not None and self.cost >= self.max_cost:
            return f"budget spent: ${usd(self.cost)} of {self.cost_name} ${usd(self.max_cost)}"
        if self.max_tokens is not None and self.tokens >= self.max_tokens:
            return f"budget spent: {self.tokens:,} of {self.tokens_name} {self.max_tokens:,} tokens"
        return None

    def admit(self, unit: str) -> str | None:
        """Start ``unit`` (None) or refuse it with the reason its SKIP will carry."""
        reason = self.exhausted()
        if reason is None:
            self.started += 1
        else:
            self.refused.append(unit)
        return reason

    def unpriced_note(self) -> str | None:
        """Why ``--max-cost`` could not count some runs (their CLI reports no cost and their model has no
        price), or None."""
        if self.max_cost is None or not self.unpriced:
            return None
        return (
            f"{self.cost_name}: no price for {', '.join(self.unpriced)}: those runs counted $0 (add the model "
            "to a price table named by $EVALENS_PRICES, or use --max-tokens)"
        )

    def spend(self, cost: float | None, tokens: int | None) -> None:
        self.cost += cost or 0.0
        self.tokens += tokens or 0

    def spend_usage(self, usage: Any, model: str | None = None) -> None:
        """Spend what one run's record reports: tokens in + out, and USD as the CLI reports it, else (Codex
        reports no cost) the tokens at ``model``'s price from the shipped, overridable price table
        (:mod:`evalens.runner.prices`). A run whose cost is unknown is named in :attr:`unpriced`."""
        if usage is None:
            return
        tokens = (getattr(usage, "input_tokens", None) or 0) + (getattr(usage, "output_tokens", None) or 0)
        cost = getattr(usage, "cost_usd", None)
        if cost is None and tokens:
            cost = cost_of(usage, model)
            if cost is None and model not in self.unpriced:
                self.unpriced.append(model or "(model not reported)")
        self.spend(cost, tokens)


COST_REPORTED = frozenset({"claude-code"})  # engines whose CLI reports each run's USD itself


def unpriced_before(engine: str, model: str | None) -> str | None:
    """Why the runs of ``engine`` with agent ``model`` (None: the CLI's default) cannot be priced, known before
    any runs, or None. Claude Code reports each run's cost; Codex reports tokens only, which the price table
    (:mod:`evalens.runner.prices`) turns into USD when it knows the model. Its default model is chosen by the
    CLI at run time (the newest CLIs default to a model the shipped table does not have), so it is unknown
    here. The budget said so only after the batch, when ``--max-cost`` had already counted those runs as $0."""
    if engine in COST_REPORTED:
        return None
    fix = f"name a priced --model, add the model to a price table named by ${PRICES_ENV}, or use --max-tokens"
    if not model:
        return (
            f"{engine} reports no cost and its default model is chosen by the CLI, so its runs cannot be priced "
            f"and count $0 ({fix})"
        )
    if price_of(model) is None:
        return f"no price for {model} ({engine} reports no cost): its runs count $0 ({fix})"
    return None


def refuse_unpriced(engine: str, model: str | None, max_cost: float | None, allowed: bool) -> str | None:
    """The refusal of a batch whose ``--max-cost`` could not count its runs (:func:`unpriced_before`), unless
    ``--allow-unpriced`` (``allowed``) said to run anyway; None when the batch may start."""
    if max_cost is None or max_cost <= 0 or allowed:  # a zero budget starts no run: nothing to price
        return None
    why = unpriced_before(engine, model)
    if why is None:
        return None
    return f"--max-cost cannot hold: {why}; --allow-unpriced runs anyway, counting those runs as $0"


@dataclass(frozen=True)
class Estimate:
    """``--dry-run``'s forecast: median past cost per unit × runs; units with no history are named."""

    cost: float
    tokens: int
    known: int
    unknown: list[str]

    def describe(self) -> str:
        if not self.known:
            return "no previous reports of these units: no estimate"
        text = f"estimated ${self.cost:.2f} and {self.tokens:,} tokens for {self.known} unit(s) with history"
        if self.unknown:
            text += f"; {len(self.unknown)} unit(s) have no history"
        return text


def estimate(
    units: Iterable[str], history: Mapping[str, list[tuple[float | None, int | None]]], runs: int = 1
) -> Estimate:
    """Median cost and tokens of each unit's past runs (``history[unit]`` = [(cost, tokens), ...]) × ``runs``."""
    cost = 0.0
    tokens = 0
    known = 0
    unknown: list[str] = []
    for unit in units:
        past = history.get(unit) or []
        costs = [c for c, _ in past if c is not None]
        toks = [t for _, t in past if t is not None]
        if not costs and not toks:
            unknown.append(unit)
            continue
        known += 1
        cost += (statistics.median(costs) if costs else 0.0) * runs
        tokens += int(statistics.median(toks) if toks else 0) * runs
    return Estimate(cost=cost, tokens=tokens, known=known, unknown=unknown)


def history(package_root: Path, max_reports: int = 50) -> dict[str, list[tuple[float | None, int | None]]]:
    """Unit name → (cost, tokens) of each past run, from the newest ``max_reports`` reports (``--dry-run``).
    A run with more than one repeat counts as its per-run mean."""
    base = reports_dir(package_root)
    out: dict[str, list[tuple[float | None, int | None]]] = {}
    if not base.is_dir():
        return out
    paths = sorted(
        (p for p in base.glob("*.json") if p.is_file()), key=lambda p: p.stat().st_mtime_ns, reverse=True
    )[:max_reports]
    for path in paths:
        try:
            report = load_report(path)
        except Exception:  # noqa: BLE001 - a foreign or half-written file is no history
            continue
        for case in report.cases:
            usage = case.usage
            if usage is None:
                continue
            runs = max(1, case.runs or 1)
            tokens = (usage.input_tokens or 0) + (usage.output_tokens or 0)
            cost = usage.cost_usd / runs if usage.cost_usd is not None else None
            out.setdefault(case.name, []).append((cost, tokens // runs))
    return out
