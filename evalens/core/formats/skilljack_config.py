"""skilljack-evals ``eval.config.yaml`` (formats.md §3.5): models, score weights, thresholds, runner, output, CI;
messages follow skilljack's ``config.ts``.
"""

from __future__ import annotations

from typing import Any

from evalens.core.documents import ParsedDocument, Path, sub_dict
from evalens.core.formats import registry
from evalens.core.formats._shared import problem, replace_fix
from evalens.core.formats.base import Format, Match, RuleContext, ValueChoice
from evalens.core.formats.skilljack import _value_at
from evalens.core.models import skilljack as m
from evalens.core.models.catalog import SchemaSpec, register
from evalens.core.problems import Problem, Severity
from evalens.core.schema_check import suggest

register(
    SchemaSpec(
        "skilljack-eval-config.schema.json",
        m.EvalConfigFile,
        "skilljack eval.config.yaml",
        "skilljack-evals run settings: models, score weights, thresholds, runner, output, CI.",
    )
)


class SkilljackConfig(Format):
    id = "skilljack-config"
    title = "skilljack eval.config.yaml"
    language = "yaml"
    globs = ("**/eval.config.yaml", "**/eval.config.yml")
    schema_file = "skilljack-eval-config.schema.json"
    _SPECIFIC = {
        "models": {"agent", "judge"},
        "scoring": {"weights"},
        "thresholds": {"discovery_rate", "avg_score"},
        "runner": {"timeout_ms", "allowed_write_dirs", "concurrency"},
        "output": {"judge_truncation", "report_truncation"},
        "ci": {"exit_on_failure", "github_summary", "html_report"},
        "cache": {"ttl_hours"},
    }

    def detect(self, path: str, data: Any) -> Match:
        """Claimed on a setting only skilljack has (``thresholds.discovery_rate``, ``scoring.weights``,
        ``runner.timeout_ms`` …), not on a generic section name such as ``thresholds`` or ``output``."""
        if data is None or data == {}:
            return Match.YES
        if not isinstance(data, dict):
            return Match.NO
        if data.get("nudge") in m.NUDGE_VALUES:
            return Match.YES
        for section, keys in self._SPECIFIC.items():
            value = data.get(section)
            if isinstance(value, dict) and keys & set(value):
                return Match.YES
        return Match.NO

    def refine(self, doc: ParsedDocument, problems: list[Problem], ctx: RuleContext) -> list[Problem]:
        for p in problems:
            path = tuple((p.data or {}).get("path", ()))
            value = _value_at(doc.data, path)
            if path == ("runner", "concurrency"):
                p.message = (
                    f'Invalid runner.concurrency "{value}" in config file. Must be a non-negative integer.'
                )
            elif path == ("nudge",) and p.code == "schema-enum":
                p.message = f'Invalid nudge "{value}" in config file. Valid: {", ".join(m.NUDGE_VALUES)}'
        return problems

    def rules(self, doc: ParsedDocument, ctx: RuleContext) -> list[Problem]:
        data = doc.data if isinstance(doc.data, dict) else {}
        out: list[Problem] = []
        runner = sub_dict(data, "runner")
        rtype = runner.get("type")
        if isinstance(rtype, str) and rtype not in m.RUNNER_TYPES:
            near = suggest(rtype, list(m.RUNNER_TYPES))
            out.append(
                problem(
                    doc,
                    ("runner", "type"),
                    Severity.WARNING,
                    "unknown-runner-type",
                    f'Invalid runner type "{rtype}" in config file. Valid: '
                    f"{', '.join(m.RUNNER_TYPES)} (the set depends on the skilljack version)",
                    fixes=[replace_fix(doc, ("runner", "type"), near)] if near else [],
                )
            )
        scoring = sub_dict(data, "scoring")
        weights = scoring.get("weights")
        if isinstance(weights, dict) and weights:
            given = {
                k: v for k, v in weights.items() if isinstance(v, int | float) and not isinstance(v, bool)
            }
            total = sum(
                given.get(d, default) for d, default in zip(m.DIMENSIONS, (0.3, 0.4, 0.3), strict=True)
            )
            if abs(total - 1) > 0.1:
                out.append(
                    problem(
                        doc,
                        ("scoring", "weights"),
                        Severity.WARNING,
                        "weights-sum",
                        f"Score weights sum to {total:.2f}, expected ~1.0 (missing ones count as "
                        "their defaults 0.3 / 0.4 / 0.3).",
                        on_key=True,
                    )
                )
        return out

    def value_choices(self, path: Path, ctx: RuleContext) -> list[ValueChoice]:
        if path == ("runner", "type"):
            return [ValueChoice(t, "runner") for t in m.RUNNER_TYPES]
        if path == ("nudge",):
            return [ValueChoice(v) for v in m.NUDGE_VALUES]
        if path in (("models", "agent"), ("models", "judge")):
            return [ValueChoice(v, "model alias") for v in ("sonnet", "haiku", "opus")]
        return []

    def skeleton(self, snippets: bool) -> str | None:
        return (
            "models:\n  agent: sonnet\n  judge: haiku\n\nscoring:\n  weights:\n    discovery: 0.3\n"
            "    adherence: 0.4\n    output: 0.3\n\nthresholds:\n  discovery_rate: 0.8\n  avg_score: 4.0\n\n"
            "runner:\n  timeout_ms: 300000\n  allowed_write_dirs:\n    - ./results/\n\noutput:\n"
            "  dir: ./results\n\nci:\n  exit_on_failure: true\n  github_summary: false\n"
        )


registry.register(SkilljackConfig())
