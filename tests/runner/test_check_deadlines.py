"""Issue 28 B4: eval-file regexes run under a time bound, checks have a deadline, validation warns about nested
repeats. A regex that backtracks forever on hostile output is ERROR "check timed out", never a hung run."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from evalens.core.js_regex import RegexTimeout, js_regex_error, nested_quantifier, search_js
from tests.core.test_formats_skilljack import TASKS, suite, write  # noqa: F401 - suite is a fixture
from tests.format_helpers import check, only


def test_catastrophic_regex_is_stopped_at_its_bound() -> None:
    started = time.monotonic()
    with pytest.raises(RegexTimeout, match=r"\^\(a\|aa\)\+\$"):
        search_js("^(a|aa)+$", "a" * 40 + "!", timeout=0.5)
    assert time.monotonic() - started < 5


def test_the_issue_pattern_answers_at_once_and_matching_is_unchanged() -> None:
    started = time.monotonic()
    assert search_js("^(a+)+$", "a" * 34 + "!") is False  # 2**34 steps in Python's re
    assert time.monotonic() - started < 2
    assert search_js("(?<y>\\d{4})-\\k<y>", "in 2024-2024 ok") is True
    assert search_js("GREETING_\\w+", "say GREETING_OK") is True and search_js("^x$", "y") is False


@pytest.mark.parametrize(
    ("pattern", "nested"),
    [
        ("^(a+)+$", True),
        ("(\\w*x)*", True),
        ("(?:a{1,3})+", True),
        ("((a+))+", True),
        ("(x+x+)+y", True),
        ("(ab)+", False),
        ("a+b+", False),
        ("[(a+)]+", False),
        ("\\(a+\\)+", False),
        ("^(\\d{3})-(\\d+)$", False),
    ],
)
def test_nested_quantifiers_are_recognised(pattern: str, nested: bool) -> None:
    assert nested_quantifier(pattern) is nested


def test_validation_warns_about_nested_repeats(suite: Path) -> None:  # noqa: F811 - the fixture
    text = TASKS.replace(
        "      expect_marker: GREETING_SUCCESS\n", "      expect_regex: ['^(a+)+$', '^a+$']\n"
    )
    problem = only(check(write(suite, "tasks.yaml", text)), "slow-regex")
    assert problem.severity.name == "WARNING" and "/^(a+)+$/" in problem.message
    assert "check timed out" in problem.message
    assert js_regex_error("^(a+)+$") is None  # still a valid pattern


def test_a_check_past_its_deadline_is_error_check_timed_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """The session's check runner: a check that never returns in time leaves the run ERROR, promptly."""
    from evalens.runner.session import AgentResult, AgentSession, agent_error

    monkeypatch.setenv("EVALENS_CHECK_TIMEOUT", "0.5")
    session = AgentSession.__new__(AgentSession)
    session.timeout = 60
    result = AgentResult()

    async def timed() -> float:
        started = time.monotonic()
        await session._check(lambda _res: time.sleep(3), result)
        return time.monotonic() - started

    assert asyncio.run(timed()) < 2  # the loop goes on; only the abandoned thread finishes its sleep
    assert agent_error(result) == "check timed out: the checks ran longer than 0.5 s"


def test_a_regex_check_that_times_out_names_the_entry() -> None:
    from evalens.runner.checks import CheckTimedOut
    from evalens.runner.session import AgentResult, AgentSession

    def regex_check(_res: AgentResult) -> None:
        try:
            search_js("^(a|aa)+$", "a" * 40 + "!", timeout=0.2)
        except RegexTimeout as exc:
            raise CheckTimedOut(f"expect_regex[0] {exc}") from None

    session = AgentSession.__new__(AgentSession)
    session.timeout = 60
    result = AgentResult()
    asyncio.run(session._check(regex_check, result))
    assert result.error == "check timed out: expect_regex[0] /^(a|aa)+$/ ran longer than 0.2 s"
