"""``evalens.cli.limits``: the flags ``evalens eval`` and ``evalens run`` share, parsed by a parser built from the
module's own ``add_*`` functions, and the request fields they turn into. Both commands rely on these spelling,
bounds and defaults alike, so a change here changes both; ``--replay`` also fills a placeholder key, never
overwriting a real one."""

from __future__ import annotations

import argparse
import os

import pytest

from evalens.cli.limits import (
    REPLAY_PLACEHOLDER_KEY,
    add_arms_arguments,
    add_batch_arguments,
    add_judge_timeout_argument,
    add_limit_arguments,
    add_reselect_arguments,
    batch_fields,
    limit_fields,
    non_negative,
    positive,
    replay_fields,
)


class _Refused(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """Raises instead of exiting, with argparse's message."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _Refused(message)


def _parser() -> _Parser:
    p = _Parser(prog="t")
    add_limit_arguments(p)
    add_batch_arguments(p, "unit")
    add_arms_arguments(p, "unit")
    add_judge_timeout_argument(p, "run", "unit")
    add_reselect_arguments(p, "unit", "STALE")
    return p


def test_positive_and_non_negative_bounds() -> None:
    assert positive("1") == 1 and positive("40") == 40
    assert non_negative("0") == 0 and non_negative("3") == 3
    with pytest.raises(argparse.ArgumentTypeError, match="must be 1 or more"):
        positive("0")
    with pytest.raises(argparse.ArgumentTypeError, match="must be 0 or more"):
        non_negative("-1")
    for bad in ("1.5", "ten", ""):
        with pytest.raises(argparse.ArgumentTypeError, match="not an integer"):
            positive(bad)


def test_defaults_make_the_neutral_request() -> None:
    args = _parser().parse_args([])
    assert limit_fields(args) == {
        "max_turns": None,
        "max_tokens_per_run": None,
        "resource_limits": {},
        "agent_retries": None,
    }
    assert batch_fields(args) == {
        "max_cost": None,
        "max_tokens": None,
        "allow_unpriced": False,
        "baseline": None,
        "allow_unisolated_baseline": False,
        "record": False,
        "replay": None,
        "replay_base": None,
    }
    assert args.flaky == "fail" and args.fail_on_error is None
    assert (args.arms, args.arms_reference, args.judge_timeout) == (None, None, None)
    assert (args.failed, args.stale) == (False, False)


def test_limits_parse_into_request_fields() -> None:
    args = _parser().parse_args(
        [
            "--max-turns",
            "12",
            "--max-tokens-per-run",
            "5000",
            "--agent-retries",
            "0",
            "--limit",
            "memory-mb=2048",
            "--limit",
            "pids=64",
            "--limit",
            "memory-mb=1024",
        ]
    )
    assert limit_fields(args) == {
        "max_turns": 12,
        "max_tokens_per_run": 5000,
        "resource_limits": {"memory-mb": 1024, "pids": 64},  # the last of a repeated name wins
        "agent_retries": 0,
    }


@pytest.mark.parametrize(
    "argv",
    [
        ["--max-turns", "0"],
        ["--max-tokens-per-run", "-5"],
        ["--agent-retries", "-1"],
        ["--limit", "memory-mb"],
        ["--limit", "memory-mb=lots"],
        ["--limit", "no-such-limit=3"],
        ["--fail-on-error", "1.5"],
        ["--fail-on-error", "most"],
        ["--flaky", "maybe"],
        ["--replay", "sometimes"],
        ["--record", "--replay"],
        ["--failed", "--stale"],
    ],
)
def test_bad_values_are_refused_by_the_parser(argv: list[str]) -> None:
    with pytest.raises(_Refused):
        _parser().parse_args(argv)


def _unset(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Unset, restored afterwards even when the code under test sets it (delenv alone records nothing when the
    variable was absent, and the placeholder key would leak into later tests)."""
    for name in names:
        monkeypatch.setenv(name, "x")
        monkeypatch.delenv(name)


def test_batch_flags_parse_into_request_fields(monkeypatch: pytest.MonkeyPatch) -> None:
    _unset(monkeypatch, "ANTHROPIC_API_KEY", "OPENAI_API_KEY")
    args = _parser().parse_args(
        [
            "--max-cost",
            "2.5",
            "--max-tokens",
            "100000",
            "--allow-unpriced",
            "--baseline",
            "no-skill",
            "--allow-unisolated-baseline",
            "--fail-on-error",
            "0.05",
            "--flaky",
            "pass",
            "--record",
        ]
    )
    assert batch_fields(args) == {
        "max_cost": 2.5,
        "max_tokens": 100000,
        "allow_unpriced": True,
        "baseline": "no-skill",
        "allow_unisolated_baseline": True,
        "record": True,
        "replay": None,
        "replay_base": None,
    }
    assert (args.fail_on_error, args.flaky) == (0.05, "pass")
    # recording is not replaying: no placeholder key
    assert "ANTHROPIC_API_KEY" not in os.environ


def test_replay_defaults_to_strict_and_fills_only_missing_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "real-key")
    _unset(monkeypatch, "OPENAI_API_KEY")
    args = _parser().parse_args(["--replay", "--replay-base", "origin/main"])
    assert replay_fields(args) == {"record": False, "replay": "strict", "replay_base": "origin/main"}
    assert os.environ["ANTHROPIC_API_KEY"] == "real-key"
    assert os.environ["OPENAI_API_KEY"] == REPLAY_PLACEHOLDER_KEY
    args = _parser().parse_args(["--replay", "new"])
    assert replay_fields(args)["replay"] == "new"


def test_replay_base_counts_only_with_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    _unset(monkeypatch, "ANTHROPIC_API_KEY", "OPENAI_API_KEY")
    args = _parser().parse_args(["--replay-base", "origin/main"])
    assert replay_fields(args) == {"record": False, "replay": None, "replay_base": None}
    # a namespace from a command that never declared --replay-base
    bare = argparse.Namespace(record=False, replay="strict")
    assert replay_fields(bare)["replay_base"] is None


def test_help_words_the_unit_of_each_command() -> None:
    for unit in ("case", "unit"):
        p = argparse.ArgumentParser(prog="t")
        add_batch_arguments(p, unit)
        add_reselect_arguments(p, unit, "STALE")
        add_judge_timeout_argument(p, "case run", unit)
        text = p.format_help()
        assert f"errored {unit}s fail the command" in " ".join(text.split())
        assert f"the {unit} timeout" in " ".join(text.split())


def test_arms_and_reselect_values() -> None:
    args = _parser().parse_args(["--arms", "skill,no-skill", "--arms-reference", "no-skill", "--stale"])
    assert (args.arms, args.arms_reference, args.stale, args.failed) == (
        "skill,no-skill",
        "no-skill",
        True,
        False,
    )
    group = add_reselect_arguments(argparse.ArgumentParser(prog="t"), "unit", "STALE")
    assert [a.dest for a in group._group_actions] == ["failed", "stale"]
