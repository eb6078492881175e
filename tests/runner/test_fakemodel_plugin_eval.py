"""The fake model's two answers for `claude plugin eval` (shared/reference/claude-plugin-evals.md §12): a judge vote
gets the bare word its request asks for, chosen by the same ``JUDGE=`` tokens as every other judge, and a plugin's
namespaced skill (``- demo:greet: …``) is found in the CLI's listing like any other."""

from __future__ import annotations

import json

from tests.fakemodel.server import Conversation, FakeState, choose_reply

VOTE = "Criterion:\n{criteria}\n\n\nAgent output (last_message):\nDONE\n\n\nRespond with exactly one word: PASS or FAIL."


def _reply(body: dict) -> str | None:
    return choose_reply(FakeState(), Conversation("anthropic", body), json.dumps(body).encode()).text


def _vote(criteria: str) -> str | None:
    return _reply({"system": "You are a strict, terse evaluation judge.", "messages": [
        {"role": "user", "content": VOTE.format(criteria=criteria)}]})  # fmt: skip


def test_a_plugin_eval_judge_vote_is_one_word() -> None:
    assert _vote("Says done. JUDGE=pass") == "PASS"
    assert _vote("Says done. JUDGE=fail") == "FAIL"
    assert _vote("Says done.") == "PASS"  # the server's default judge
    assert _vote("Says done. JUDGE=garbage") == "Sure! I think it went well overall :) (this is not JSON)"


def test_evalens_judges_keep_their_json() -> None:
    text = _reply(
        {"messages": [{"role": "user", "content": 'Reply with JSON only: {"verdict": ...} JUDGE=fail'}]}
    )
    assert json.loads(text or "")["verdict"] == "FAIL"


def _listing(lines: str) -> dict:
    return {
        "system": "You are Claude Code.",
        "messages": [
            {"role": "system", "content": f"The following skills are available:\n{lines}\n"},
            {"role": "user", "content": "SCENARIO=needs-skill NEEDS=Greets Greet me."},
        ],
        "tools": [{"name": "Skill"}, {"name": "Write"}],
    }


def test_a_namespaced_plugin_skill_is_listed() -> None:
    conv = Conversation("anthropic", _listing("- demo:greet: Greets the team in one line."))
    assert conv.listed_skill("Greets") == "demo:greet"
    plain = Conversation("anthropic", _listing("- greet: Greets the team: one line."))
    assert plain.listed_skill("Greets") == "greet"  # a ": " in the description is not a namespace
    absent = Conversation("anthropic", _listing("- demo:other: Writes poems."))
    assert absent.listed_skill("Greets") is None
