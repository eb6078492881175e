"""The regression gate of ``evalens eval diff BASE NEW --fail-on regression``.

A regression is a unit that passed in BASE and now fails (FAIL, FLAKY or ERROR: an ERROR is not a pass, and
a gate that let it through would pass a PR whose agent no longer starts), or a pass-rate drop larger than
the threshold. A unit that passed in BASE and is absent from NEW, or now skipped, is listed but is not a
regression: it did not fail, and the pass rates compared leave it out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evalens.runner.ci.paired import changes
from evalens.runner.ci.units import pass_rate, units_of
from evalens.runner.verdicts import passed

#: Exit codes of ``evalens eval diff`` (docs/ci.md).
EXIT_OK = 0
EXIT_REGRESSION = 1
EXIT_USAGE = 2
FAILING = frozenset({"FAIL", "FLAKY", "ERROR"})


@dataclass(slots=True)
class GateResult:
    regressions: list[tuple[str, str, str]] = field(default_factory=list)  # (unit, before, after)
    vanished: list[str] = field(default_factory=list)  # passed in BASE, absent or skipped in NEW
    rate_before: float = 0.0
    rate_after: float = 0.0
    threshold: float = 0.0

    @property
    def rate_drop(self) -> float:
        return round(self.rate_before - self.rate_after, 4)

    @property
    def rate_regressed(self) -> bool:
        return self.rate_drop > self.threshold + 1e-9

    @property
    def failed(self) -> bool:
        return bool(self.regressions) or self.rate_regressed

    def lines(self) -> list[str]:
        out = [f"regression: {name}: {before} → {after}" for name, before, after in self.regressions]
        if self.rate_regressed:
            out.append(
                f"regression: pass rate dropped {self.rate_drop:.1%} ({self.rate_before:.1%} → "
                f"{self.rate_after:.1%}), more than the threshold {self.threshold:.1%}"
            )
        out += [f"note: {name} passed in BASE and did not run to a verdict in NEW" for name in self.vanished]
        return out


def gate(base: Any, new: Any, *, threshold: float = 0.0) -> GateResult:
    """Compare two reports, unit by unit as the paired gate pairs them (by identity: file, name, content)."""
    result = GateResult(threshold=threshold)
    gone_base: set[str] = set()
    gone_new: set[str] = set()
    for change in changes(base, new):
        if change.before is None or not passed(change.before):
            continue
        if change.after in FAILING:
            result.regressions.append((change.name, "PASS", change.after))
        elif not passed(change.after):
            result.vanished.append(change.name)
            gone_base.add(change.base_name or "")
            gone_new.add(change.new_name or "")
    # the rates leave out the vanished units: a passing unit removed or skipped is a note, never a rate drop
    result.rate_before = pass_rate([u for u in units_of(base) if u.name not in gone_base])
    result.rate_after = pass_rate([u for u in units_of(new) if u.name not in gone_new])
    return result
