"""The trigger report of one skill (docs/triggers.md), built from the trigger units' own details (each counted run's
fired skill, ``suites/trigger_sets.py::fired_entry``), the one place every face reads it from: the run's summary,
``evalens show``, the HTML page and the lens over each query.

- Precision and recall count **runs** (every counted run of every query), with 95% Wilson intervals
  (``runner/stats.py``); an ERROR run said nothing and is counted apart.
- The confusion table: each query → how often each installed skill (or none) fired first.
- Stolen by: queries meant for this skill where another installed skill fired first. Stole from: queries not
  meant for it where it fired first (with the skill that fired after it in those runs, when one did).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from evalens.runner.stats import wilson_interval

NONE = "(none)"


@dataclass
class QueryRow:
    """One query of the trigger set: its label and what fired over its counted runs."""

    unit: str
    query: str
    should_trigger: bool
    fired: Counter[str] = field(default_factory=Counter)  # first skill that fired (NONE: none) → runs
    also: Counter[str] = field(default_factory=Counter)  # skills that fired after the first → runs
    how: Counter[str] = field(default_factory=Counter)  # how this skill was seen → runs
    errors: int = 0

    @property
    def counted(self) -> int:
        return sum(self.fired.values())


@dataclass
class Rate:
    hits: int
    of: int

    @property
    def value(self) -> float | None:
        return round(self.hits / self.of, 4) if self.of else None

    @property
    def interval(self) -> tuple[float, float] | None:
        if not self.of:
            return None
        lo, hi = wilson_interval(self.hits, self.of)
        return round(lo, 4), round(hi, 4)

    def text(self) -> str:
        if not self.of:
            return "n/a (no counted runs)"
        lo, hi = self.interval or (0.0, 1.0)
        return f"{self.hits}/{self.of} = {self.value:.2f} [{lo:.2f}, {hi:.2f}]"


@dataclass
class TriggerReport:
    skill: str
    rows: list[QueryRow]

    def _count(self, want: bool, mine: bool) -> int:
        return sum(
            n
            for r in self.rows
            if r.should_trigger == want
            for skill, n in r.fired.items()
            if (skill == self.skill) == mine
        )

    @property
    def recall(self) -> Rate:
        """Runs of should-trigger queries where this skill fired first."""
        tp = self._count(True, True)
        return Rate(tp, tp + self._count(True, False))

    @property
    def precision(self) -> Rate:
        """Runs where this skill fired first that belonged to should-trigger queries."""
        tp = self._count(True, True)
        return Rate(tp, tp + self._count(False, True))

    @property
    def errors(self) -> int:
        return sum(r.errors for r in self.rows)

    @property
    def skills(self) -> list[str]:
        """Every skill that fired on some query (this one first), then NONE: the confusion table's columns."""
        seen = {s for r in self.rows for s in r.fired if s != NONE and s != self.skill}
        return [self.skill, *sorted(seen), NONE]

    def stolen_by(self) -> list[tuple[QueryRow, str, int]]:
        """(query, the skill that took it, runs) for queries meant for this skill."""
        return [
            (r, skill, n)
            for r in self.rows
            if r.should_trigger
            for skill, n in sorted(r.fired.items())
            if skill not in (self.skill, NONE)
        ]

    def stole_from(self) -> list[tuple[QueryRow, str | None, int]]:
        """(query, the skill that fired after this one in those runs or None, runs) for queries not meant for it."""
        out: list[tuple[QueryRow, str | None, int]] = []
        for r in self.rows:
            n = r.fired.get(self.skill, 0)
            if r.should_trigger or not n:
                continue
            after = [s for s, _ in r.also.most_common() if s != self.skill]
            out.append((r, after[0] if after else None, n))
        return out

    def summary_lines(self) -> list[str]:
        lines = [
            f"trigger report for {self.skill}: recall {self.recall.text()}, precision {self.precision.text()}"
            + (f"; {self.errors} ERROR run(s) not counted" if self.errors else "")
        ]
        for row, thief, n in self.stolen_by():
            lines.append(f"  stolen by {thief} {n}/{row.counted}: {row.query[:80]}")
        for row, owner, n in self.stole_from():
            lines.append(f"  stole{f' from {owner}' if owner else ''} {n}/{row.counted}: {row.query[:80]}")
        return lines

    def confusion(self) -> list[list[str]]:
        """The confusion table as text cells: header, then one row per query."""
        cols = self.skills
        out = [["query", "should", *cols, "errors"]]
        for r in self.rows:
            out.append(
                [
                    r.query,
                    "fire" if r.should_trigger else "not fire",
                    *(str(r.fired.get(c, 0)) for c in cols),
                    str(r.errors),
                ]
            )
        return out

    def to_json(self) -> dict[str, Any]:
        def rate(r: Rate) -> dict[str, Any]:
            return {"hits": r.hits, "of": r.of, "value": r.value, "interval": r.interval}

        return {
            "skill": self.skill,
            "recall": rate(self.recall),
            "precision": rate(self.precision),
            "errors": self.errors,
            "confusion": [
                {
                    "unit": r.unit,
                    "query": r.query,
                    "should_trigger": r.should_trigger,
                    "fired": dict(r.fired),
                    "errors": r.errors,
                }
                for r in self.rows
            ],
            "stolen_by": [
                {"query": r.query, "skill": s, "runs": n, "of": r.counted} for r, s, n in self.stolen_by()
            ],
            "stole_from": [
                {"query": r.query, "skill": s, "runs": n, "of": r.counted} for r, s, n in self.stole_from()
            ],
        }


def query_row(unit: str, details: Mapping[str, Any]) -> QueryRow | None:
    """A trigger unit's row from its details (None: not a trigger unit with per-run firings)."""
    runs = details.get("fired")
    if not isinstance(runs, list) or not isinstance(details.get("should_trigger"), bool):
        return None
    row = QueryRow(unit=unit, query=str(details.get("query") or ""), should_trigger=details["should_trigger"])
    mine = details.get("skill")
    for run in runs:
        if not isinstance(run, dict):
            continue
        if "error" in run:
            row.errors += 1
            continue
        skill = run.get("skill")
        row.fired[str(skill) if skill else NONE] += 1
        for other in run.get("also") or []:
            row.also[str(other)] += 1
        if skill and skill == mine and run.get("how"):
            row.how[str(run["how"])] += 1
    return row


def trigger_report(units: Iterable[tuple[str, Mapping[str, Any]]]) -> TriggerReport | None:
    """The report over trigger units (unit id, details); None when none carries per-run firings."""
    rows: list[QueryRow] = []
    skill = None
    for unit, details in units:
        row = query_row(unit, details)
        if row is not None:
            rows.append(row)
            skill = skill or details.get("skill")
    return TriggerReport(skill=str(skill), rows=rows) if rows and skill else None


def query_label(details: Mapping[str, Any]) -> str | None:
    """What the lens over one query says: ``✓ fired 3/3``, ``✗ stolen by pdf-tools 2/3``, ``✗ fired 1/3``
    (should not have), ``✗ not fired 0/3``; None when nothing was counted (the verdict's own label stands)."""
    # cycle: evalens.runner.suites.trigger_sets imports evalens.runner.trigger_report at load
    from evalens.runner.suites.trigger_sets import THRESHOLD

    row = query_row("", details)
    if row is None or not row.counted:
        return None
    mine, of = row.fired.get(str(details.get("skill")), 0), row.counted
    fired = mine / of >= THRESHOLD
    if row.should_trigger:
        if fired:
            return f"✓ fired {mine}/{of}"
        thieves = [(n, s) for s, n in row.fired.items() if s not in (str(details.get("skill")), NONE)]
        if thieves:
            n, thief = max(thieves)
            return f"✗ stolen by {thief} {n}/{of}"
        return f"✗ not fired {mine}/{of}"
    if fired:
        return f"✗ fired {mine}/{of} (should not)"
    return f"✓ not fired {of - mine}/{of}"
