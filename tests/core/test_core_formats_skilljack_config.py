"""``evalens.core.formats.skilljack_config``: skilljack's ``eval.config.yaml`` is claimed only on a setting
skilljack alone has (a generic ``thresholds:`` or ``output:`` section is someone else's), an unknown runner type
warns with the near one as a fix, score weights must sum to about 1 (missing ones at their defaults), the
messages follow skilljack's ``config.ts``, and the skeleton is clean."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalens.core.documents import parse
from evalens.core.formats.base import Match, RuleContext
from evalens.core.formats.skilljack_config import SkilljackConfig
from evalens.core.models import skilljack as m
from tests.format_helpers import apply, check

CONFIG = SkilljackConfig()


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (None, Match.YES),
        ({}, Match.YES),
        ({"nudge": "full"}, Match.YES),
        ({"thresholds": {"discovery_rate": 0.8}}, Match.YES),
        ({"scoring": {"weights": {}}}, Match.YES),
        ({"runner": {"timeout_ms": 1000}}, Match.YES),
        ({"cache": {"ttl_hours": 1}}, Match.YES),
        ({"thresholds": {"p95": 3}, "output": {"dir": "x"}}, Match.NO),  # generic sections only
        ({"nudge": "loud"}, Match.NO),
        ({"runner": "claude-code"}, Match.NO),
        (["models"], Match.NO),
    ],
)
def test_detect_on_skilljack_only_settings(data: object, match: Match) -> None:
    assert CONFIG.detect("eval.config.yaml", data) is match


def _rules(text: str) -> list:
    return CONFIG.rules(parse(text, "yaml"), RuleContext("eval.config.yaml", None))


def test_an_unknown_runner_type_warns_with_the_near_one() -> None:
    text = "runner:\n  type: claude-cod\n"
    (p,) = _rules(text)
    assert p.code == "unknown-runner-type"
    assert p.message.startswith('Invalid runner type "claude-cod" in config file. Valid: ')
    (fix,) = p.fixes
    assert apply(text, fix.edits) == "runner:\n  type: claude-code\n"
    (far,) = _rules("runner:\n  type: zzzzzzzz\n")
    assert far.fixes == []
    assert _rules("runner:\n  type: codex\n") == []


@pytest.mark.parametrize(
    ("weights", "total"),
    [
        ("{discovery: 0.5, adherence: 0.5, output: 0.5}", "1.50"),
        ("{discovery: 0.1}", "0.80"),  # adherence and output count as 0.4 and 0.3
        ("{discovery: 0, adherence: 0, output: 0}", "0.00"),
    ],
)
def test_weights_must_sum_to_about_one(weights: str, total: str) -> None:
    (p,) = _rules(f"scoring:\n  weights: {weights}\n")
    assert p.code == "weights-sum" and p.message.startswith(f"Score weights sum to {total}, expected ~1.0")


def test_weights_near_one_or_not_numbers_pass() -> None:
    assert _rules("scoring:\n  weights: {discovery: 0.35, adherence: 0.35, output: 0.35}\n") == []
    assert _rules("scoring:\n  weights: {adherence: 0.4}\n") == []
    assert _rules("scoring:\n  weights: {}\n") == []
    # booleans and text are not weights: the defaults stand for them (the schema reports their type)
    assert _rules("scoring:\n  weights: {discovery: true, output: high}\n") == []


def test_messages_follow_skilljacks_config_ts(tmp_path: Path) -> None:
    target = tmp_path / "eval.config.yaml"
    v = check(target, "nudge: loud\nrunner:\n  concurrency: -2\n")
    assert v.format is not None and v.format.id == "skilljack-config"
    messages = {tuple((p.data or {}).get("path", ())): p.message for p in v.problems}
    assert messages[("nudge",)] == f'Invalid nudge "loud" in config file. Valid: {", ".join(m.NUDGE_VALUES)}'
    assert messages[("runner", "concurrency")] == (
        'Invalid runner.concurrency "-2" in config file. Must be a non-negative integer.'
    )


def test_value_choices() -> None:
    ctx = RuleContext("eval.config.yaml", None)
    assert [c.value for c in CONFIG.value_choices(("runner", "type"), ctx)] == list(m.RUNNER_TYPES)
    assert [c.value for c in CONFIG.value_choices(("nudge",), ctx)] == list(m.NUDGE_VALUES)
    assert [c.value for c in CONFIG.value_choices(("models", "judge"), ctx)] == ["sonnet", "haiku", "opus"]
    assert CONFIG.value_choices(("output", "dir"), ctx) == []


def test_the_skeleton_is_clean_and_claimed(tmp_path: Path) -> None:
    text = CONFIG.skeleton(False)
    assert text is not None
    v = check(tmp_path / "eval.config.yaml", text)
    assert v.format is not None and v.format.id == "skilljack-config"
    assert v.problems == []
