"""The paired gate of ``evalens eval diff BASE NEW --test paired``: is this drop real, or noise?

Units are paired across the two reports by their stable identity (:mod:`evalens.runner.unit_identity`: file and
name, else a unit renamed in place with the same content), never by position. Only pairs with a counted run
(PASS or FAIL) on both sides enter the statistic:

- every pair ran once on each side: the exact McNemar test on the discordant pairs decides whether the change is
  real, and Newcombe's paired interval (method 10) bounds it;
- some unit ran more than once: a seeded paired bootstrap over units (:func:`stats.paired_bootstrap`) gives the
  interval, and an interval wholly below zero is a real drop.

The answer, with ``margin`` the drop that does not matter (the equivalence margin):

- **NO-REGRESSION** when the interval's lower end is at or above ``-margin`` (any drop is smaller than the margin,
  with 95% confidence), and no compared unit errored in NEW (a unit that did not run proves nothing);
- **REGRESSION** otherwise when the drop is real (McNemar p < alpha with more PASS→FAIL than FAIL→PASS; or, with
  repeats, the interval's upper end below zero);
- **INCONCLUSIVE** otherwise: the data cannot tell.

A unit present on one side only (added, removed) or with no counted run on one side (SKIP) is reported and
never counted as a regression.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from evalens.core.models.run_log import LogUnit
from evalens.runner import stats
from evalens.runner.suites import PACKAGE_FORMAT
from evalens.runner.unit_identity import key, reconcile
from evalens.runner.verdicts import count_passed, counted

Answer = Literal["REGRESSION", "NO-REGRESSION", "INCONCLUSIVE"]

#: Exit codes of ``evalens eval diff --test paired`` (docs/ci.md); 2 stays the usage error.
EXIT_CODES: dict[Answer, int] = {"NO-REGRESSION": 0, "REGRESSION": 1, "INCONCLUSIVE": 3}
DEFAULT_MARGIN = 0.05
ALPHA = 0.05


@dataclass(frozen=True, slots=True)
class Side:
    """One report's unit: its identity and its runs' verdicts."""

    unit: LogUnit
    verdicts: tuple[str, ...]
    shown: str = ""  # the unit's verdict as the report shows it (its state: FLAKY, STALE-free)

    @property
    def passed(self) -> int:
        return count_passed(self.verdicts)

    @property
    def counted(self) -> int:
        return sum(1 for v in self.verdicts if counted(v))

    @property
    def errored(self) -> bool:
        return "ERROR" in self.verdicts


@dataclass(frozen=True, slots=True)
class Pair:
    base: Side
    new: Side

    @property
    def name(self) -> str:
        if self.base.unit.name == self.new.unit.name:
            return self.new.unit.name
        return f"{self.new.unit.name} (was {self.base.unit.name})"

    @property
    def change(self) -> float:
        return self.new.passed / self.new.counted - self.base.passed / self.base.counted


@dataclass(slots=True)
class PairedResult:
    answer: Answer
    method: Literal["mcnemar", "bootstrap", "none"]
    difference: float | None  # NEW pass rate − BASE pass rate, over the compared pairs
    interval: tuple[float, float] | None
    margin: float
    p_value: float | None = None  # McNemar's, for single runs
    worse: list[str] = field(default_factory=list)  # passed in BASE, failed in NEW (single runs) / dropped
    better: list[str] = field(default_factory=list)
    compared: int = 0
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    not_compared: list[str] = field(default_factory=list)  # paired, but no counted run on a side
    errored: list[str] = field(default_factory=list)  # paired, and an ERROR run in NEW
    reason: str = ""

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.answer]

    def lines(self) -> list[str]:
        """What the CLI prints, the answer first."""
        head = f"{self.answer}: {self.reason}"
        out = [head]
        if self.difference is not None and self.interval is not None:
            lo, hi = self.interval
            how = {"mcnemar": "exact McNemar", "bootstrap": "paired bootstrap"}.get(self.method, self.method)
            p = f", p = {self.p_value:.4g}" if self.p_value is not None else ""
            out.append(
                f"  pass-rate change {self.difference * 100:+.1f} pts, 95% interval [{lo * 100:+.1f}, "
                f"{hi * 100:+.1f}] over {self.compared} paired units ({how}{p}); margin {self.margin * 100:.1f} pts"
            )
        out += [f"  worse: {n}" for n in self.worse]
        out += [f"  better: {n}" for n in self.better]
        out += [f"  errored in NEW (not compared): {n}" for n in self.errored]
        out += [f"  no counted run on one side (not compared): {n}" for n in self.not_compared]
        out += [f"  removed (in BASE only, not counted): {n}" for n in self.removed]
        out += [f"  added (in NEW only, not counted): {n}" for n in self.added]
        return out

    def as_json(self) -> dict[str, Any]:
        return {
            "answer": self.answer,
            "method": self.method,
            "difference": None if self.difference is None else round(self.difference, 4),
            "interval": None if self.interval is None else [round(x, 4) for x in self.interval],
            "p_value": self.p_value,
            "margin": self.margin,
            "compared": self.compared,
            "worse": self.worse,
            "better": self.better,
            "errored": self.errored,
            "not_compared": self.not_compared,
            "removed": self.removed,
            "added": self.added,
            "reason": self.reason,
        }


def sides(report: Any) -> list[Side]:
    """A report's units with their identity (file, name, content hash from the fingerprint) and run verdicts."""
    out = []
    for case in report.cases:
        unit = LogUnit(
            file=case.case_file or "",
            name=case.name,
            content=(case.fingerprint or {}).get("unit"),
            location=list(case.location or []),
            format=case.format or PACKAGE_FORMAT,
        )
        verdicts = tuple(case.run_verdicts) if case.run_verdicts else (case.verdict,)
        out.append(Side(unit, verdicts, getattr(case, "state", None) or case.verdict))
    return out


@dataclass(frozen=True, slots=True)
class Change:
    """One unit from BASE to NEW, paired by identity (None: absent on that side)."""

    name: str  # NEW's name, with BASE's when it was renamed in place ("b (was a)")
    base_name: str | None
    new_name: str | None
    before: str | None
    after: str | None


def changes(base: Any, new: Any) -> list[Change]:
    """Every unit of either report with its verdict on each side, paired by identity as the paired gate pairs
    them: the one matching every reader of two reports uses (the gate, ``--fail-on``, the PR comment,
    ``compare``), so two cases whose names were swapped are each compared with themselves, not with the other."""
    pairs, removed, added = pair_units(sides(base), sides(new))
    out = [Change(p.name, p.base.unit.name, p.new.unit.name, p.base.shown, p.new.shown) for p in pairs]
    out += [Change(s.unit.name, s.unit.name, None, s.shown, None) for s in removed]
    out += [Change(s.unit.name, None, s.unit.name, None, s.shown) for s in added]
    return sorted(out, key=lambda c: c.name)


def pair_units(base: list[Side], new: list[Side]) -> tuple[list[Pair], list[Side], list[Side]]:
    """(pairs, removed, added): NEW units matched to BASE units by identity (a rename in place is followed)."""
    by_key = {key(s.unit): s for s in base}
    new_by_key = {key(s.unit): s for s in new}
    match = reconcile([s.unit for s in base], [s.unit for s in new])
    pairs = [Pair(by_key[key(was)], new_by_key[k]) for k, was in match.items()]
    used = {key(p.base.unit) for p in pairs}
    removed = [s for s in base if key(s.unit) not in used]
    added = [s for s in new if key(s.unit) not in match]
    return pairs, removed, added


def paired_gate(
    base: Any, new: Any, *, margin: float = DEFAULT_MARGIN, seed: int = 0, resamples: int = 1000
) -> PairedResult:
    """Compare two reports unit by unit (see the module's docstring for the rule)."""
    pairs, removed, added = pair_units(sides(base), sides(new))
    compared = [p for p in pairs if p.base.counted and p.new.counted]
    result = PairedResult(
        answer="INCONCLUSIVE",
        method="none",
        difference=None,
        interval=None,
        margin=margin,
        compared=len(compared),
        removed=sorted(s.unit.name for s in removed),
        added=sorted(s.unit.name for s in added),
        errored=sorted(p.name for p in pairs if p.new.errored and p.base.counted),
    )
    result.not_compared = sorted(
        p.name for p in pairs if not (p.base.counted and p.new.counted) and p.name not in result.errored
    )
    if not compared:
        result.reason = "no unit ran to a PASS or FAIL in both reports"
        return result
    single = all(p.base.counted == 1 and p.new.counted == 1 for p in compared)
    if single:
        worse = [p for p in compared if p.base.passed and not p.new.passed]
        better = [p for p in compared if not p.base.passed and p.new.passed]
        both = sum(1 for p in compared if p.base.passed and p.new.passed)
        neither = len(compared) - both - len(worse) - len(better)
        d, lo, hi = stats.newcombe_paired_difference(both, len(worse), len(better), neither)
        result.method = "mcnemar"
        result.p_value = round(stats.mcnemar_exact(len(worse), len(better)), 6)
        real_drop = result.p_value < ALPHA and len(worse) > len(better)
    else:
        worse = [p for p in compared if p.change < 0]
        better = [p for p in compared if p.change > 0]
        d, lo, hi = stats.paired_bootstrap(
            [((p.base.passed, p.base.counted), (p.new.passed, p.new.counted)) for p in compared],
            resamples=resamples,
            seed=seed,
        )
        result.method = "bootstrap"
        real_drop = hi < 0
    result.difference, result.interval = d, (lo, hi)
    result.worse = sorted(p.name for p in worse)
    result.better = sorted(p.name for p in better)
    if lo >= -margin - 1e-12 and not result.errored:
        result.answer = "NO-REGRESSION"
        result.reason = f"any drop is within the {margin * 100:.1f}-point margin (95% interval)"
    elif real_drop:
        result.answer = "REGRESSION"
        result.reason = f"the pass rate dropped {-d * 100:.1f} points and the drop is not noise" + (
            f" (p = {result.p_value:.4g} < {ALPHA})" if result.p_value is not None else " (interval below 0)"
        )
    else:
        result.answer = "INCONCLUSIVE"
        result.reason = (
            f"{len(result.errored)} compared unit(s) errored in NEW: no claim of no regression"
            if result.errored and lo >= -margin - 1e-12
            else f"the data cannot tell a drop of more than {margin * 100:.1f} points from noise"
        )
    return result
