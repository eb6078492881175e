"""``evalens.core.models.verdict`` declares the verdict words once (issue #23) so that no face has a word another
lacks. Held here against the faces a reader of our files sees: every verdict-like enum in the committed JSON
Schemas is exactly one of the module's word sets, the report model refuses a fifth word, and the words nest as
they must (a unit's state adds FLAKY and BUDGET to a run's verdict; a check is PASS or FAIL)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

import pytest
from pydantic import ValidationError

from evalens.core.models.uaaps import ReportCase
from evalens.core.models.verdict import CheckStatus, JudgeRuling, State, Verdict

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
WORD_SETS = {frozenset(get_args(t)) for t in (Verdict, State, CheckStatus, JudgeRuling)}


def test_the_word_sets_nest() -> None:
    verdict, state = set(get_args(Verdict)), set(get_args(State))
    assert verdict == {"PASS", "FAIL", "SKIP", "ERROR"}
    assert state - verdict == {"FLAKY", "BUDGET"} and verdict < state
    assert set(get_args(CheckStatus)) == {"PASS", "FAIL"}
    assert set(get_args(JudgeRuling)) == {"PASS", "FAIL", "ERROR"}  # a judge never skips silently
    assert all(word.isupper() for word in state)


def _verdict_enums(node: Any, where: str = "") -> list[tuple[str, list[str]]]:
    out = []
    if isinstance(node, dict):
        enum = node.get("enum")
        if isinstance(enum, list) and "PASS" in enum:
            out.append((where, enum))
        for key, value in node.items():
            out += _verdict_enums(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += _verdict_enums(value, f"{where}/{i}")
    return out


def test_every_verdict_enum_of_the_committed_schemas_is_one_of_the_word_sets() -> None:
    found = []
    for schema in sorted(SCHEMAS.glob("*.schema.json")):
        for where, enum in _verdict_enums(json.loads(schema.read_text(encoding="utf-8"))):
            found.append(schema.name)
            assert len(enum) == len(set(enum)), (schema.name, where)
            assert frozenset(enum) in WORD_SETS, (schema.name, where, enum)
    # the report, the run record and the run log all carry verdicts
    assert {
        "uaaps-eval-report.schema.json",
        "evalens-run-record.schema.json",
        "evalens-run-log.schema.json",
    } <= set(found)


def _case(**fields: Any) -> dict[str, Any]:
    return {"name": "c", "verdict": "PASS", "duration_seconds": 1.0, **fields}


@pytest.mark.parametrize("word", get_args(Verdict))
def test_a_report_case_takes_every_verdict(word: str) -> None:
    assert ReportCase.model_validate(_case(verdict=word)).verdict == word


@pytest.mark.parametrize("word", ["FLAKY", "BUDGET", "pass", "TIMEOUT", ""])
def test_a_report_case_refuses_a_word_that_is_no_verdict(word: str) -> None:
    with pytest.raises(ValidationError):
        ReportCase.model_validate(_case(verdict=word))


def test_a_report_cases_state_takes_the_state_words() -> None:
    for word in get_args(State):
        assert ReportCase.model_validate(_case(state=word)).state == word
    with pytest.raises(ValidationError):
        ReportCase.model_validate(_case(state="WOBBLY"))
