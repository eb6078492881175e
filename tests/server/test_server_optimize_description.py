"""``evalens.server.features.optimize_description`` in process: the frontmatter lines a description spans (folded
and block values too), the smallest edit between two SKILL.md texts (annotated for review or plain), where the
code action is offered, and the command: refused off a SKILL.md with one trigger set, outside the workspace or
without a judge key (before any agent starts), and with the optimizer's agent and judge runs stubbed, the winner
answered as an edit of the description, sent for review only to a client that can confirm it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from evalens.runner import trigger_optimize
from evalens.server import wire
from evalens.server.features import optimize_description as od
from evalens.server.features.run_state import CommandRefused
from evalens.server.server import EvalensServer
from tests.server.server_in_process import make_server, open_doc

SKILL = "---\nname: greeter\ndescription: >\n  Writes greetings.\n  Use when asked to greet.\nlicense: MIT\n---\nGreet.\n"
QUERIES = [{"query": "say hi to Ann", "should_trigger": True}, {"query": "weather?", "should_trigger": False}]


def greeter(root: Path, trigger_set: bool = True) -> Path:
    skill = root / "skills" / "greeter"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL, encoding="utf-8")
    if trigger_set:
        (skill / "evals" / "trigger-eval.json").write_text(json.dumps(QUERIES), encoding="utf-8")
    return skill / "SKILL.md"


def lines_range(first: int, last: int) -> types.Range:
    return types.Range(
        start=types.Position(line=first, character=0), end=types.Position(line=last, character=0)
    )


class Client:
    """The client side of the wire: what the server sent it, and its answer to ``workspace/applyEdit``."""

    def __init__(self, ls: EvalensServer, applied: bool = True) -> None:
        self.shown: list[str] = []
        self.logged: list[str] = []
        self.edits: list[types.ApplyWorkspaceEditParams] = []
        self.applied = applied
        ls.window_show_message = lambda p: self.shown.append(p.message)  # type: ignore[method-assign]
        ls.window_log_message = lambda p: self.logged.append(p.message)  # type: ignore[method-assign]

        async def apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            self.edits.append(params)
            return types.ApplyWorkspaceEditResult(applied=self.applied)

        ls.workspace_apply_edit_async = apply  # type: ignore[method-assign]


@pytest.mark.parametrize(
    ("text", "span"),
    [
        (SKILL, (2, 4)),
        ("---\nname: a\ndescription: One line.\n---\nBody\n", (2, 2)),
        ("---\ndescription: |\n  a\n\n  b\n---\n", (1, 4)),  # a blank line inside the block value
        ("---\nname: a\ndescription:   \n  Indented.\nname2: b\n---\n", (2, 3)),
        ("---\nname: a\n---\ndescription: in the body\n", None),
        ("name: a\ndescription: no frontmatter\n", None),
        ("---\ndescription: never closed\n", None),
        ("", None),
    ],
)
def test_description_lines(text: str, span: tuple[int, int] | None) -> None:
    assert od.description_lines(text.split("\n")) == span


def test_review_edit_replaces_only_the_changed_lines() -> None:
    new = SKILL.replace(
        "  Writes greetings.\n  Use when asked to greet.\n", '  "Greets people. Use to greet."\n'
    )
    edit = od.review_edit("file:///s/SKILL.md", SKILL, new, annotated=False)
    assert edit.changes is not None and edit.document_changes is None
    (change,) = edit.changes["file:///s/SKILL.md"]
    start, end = change.range.start, change.range.end
    assert (start.line, start.character, end.line, end.character) == (3, 0, 5, 0)
    assert change.new_text == '  "Greets people. Use to greet."\n'
    lines = SKILL.split("\n")
    lines[3:5] = change.new_text.rstrip("\n").split("\n")
    assert "\n".join(lines) == new


def test_review_edit_annotated_needs_confirmation() -> None:
    edit = od.review_edit("file:///s/SKILL.md", "a\nb\n", "a\nc\n", annotated=True)
    assert edit.changes is None and edit.change_annotations is not None
    note = edit.change_annotations[od.ANNOTATION]
    assert note.needs_confirmation is True and note.label == "Optimized description"
    (doc_edit,) = edit.document_changes  # type: ignore[misc]
    (text_edit,) = doc_edit.edits  # type: ignore[union-attr]
    assert isinstance(text_edit, types.AnnotatedTextEdit) and text_edit.annotation_id == od.ANNOTATION
    assert (text_edit.range.start.line, text_edit.range.end.line, text_edit.new_text) == (1, 2, "c\n")
    same = od.review_edit("u", "a\nb", "a\nb", annotated=False)
    (empty,) = same.changes["u"]  # type: ignore[index]
    assert empty.new_text == "" and empty.range.start == empty.range.end


def test_code_action_on_the_description_of_a_skill_with_a_trigger_set(tmp_path: Path) -> None:
    ls = make_server(tmp_path)
    skill = greeter(tmp_path)
    uri = open_doc(ls, skill, SKILL, write=False)
    (action,) = od.code_actions(ls, uri, lines_range(3, 3))
    assert (action.title, action.kind) == (od.TITLE, types.CodeActionKind.RefactorRewrite)
    assert action.command is not None and action.command.command == "evalens.optimizeDescription"
    assert action.command.arguments == [{"uri": uri}]
    assert od.code_actions(ls, uri, lines_range(1, 1)) == []  # `name`
    assert od.code_actions(ls, uri, lines_range(5, 7)) == []  # below the description
    assert len(od.code_actions(ls, uri, lines_range(0, 2))) == 1  # a range that reaches into it
    other = greeter(tmp_path / "other", trigger_set=False)
    assert od.code_actions(ls, open_doc(ls, other, SKILL, write=False), lines_range(3, 3)) == []
    (other.parent / "evals" / "trigger-a.json").write_text("[]")
    (other.parent / "evals" / "trigger-b.json").write_text("[]")  # two sets: the user names one
    assert od.code_actions(ls, open_doc(ls, other, SKILL, write=False), lines_range(3, 3)) == []
    case = open_doc(ls, tmp_path / "evals" / "cases" / "a.yaml", "name: a\ninput:\n  prompt: p\n")
    assert od.code_actions(ls, case, lines_range(0, 3)) == []


def _run(ls: EvalensServer, uri: str) -> wire.OptimizeAnswer:
    return asyncio.run(od.optimize_description(ls, wire.OptimizeArgs(uri=uri, runs=2, candidates=1, seed=7)))


def test_refused_off_a_skill_with_one_trigger_set(tmp_path: Path) -> None:
    ls = make_server(tmp_path)
    lone = greeter(tmp_path, trigger_set=False)
    with pytest.raises(CommandRefused, match="needs the uri of a SKILL.md whose skill has one evals/trigger"):
        _run(ls, open_doc(ls, lone, SKILL, write=False))


def test_refused_outside_the_workspace(tmp_path: Path) -> None:
    ls = make_server(tmp_path / "workspace")
    skill = greeter(tmp_path / "elsewhere")
    with pytest.raises(CommandRefused, match="refused: .*evalens runs agents and writes files only inside"):
        _run(ls, open_doc(ls, skill, SKILL, write=False))


def test_refused_without_a_judge_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    started: list[Any] = []
    monkeypatch.setattr(trigger_optimize, "optimize", lambda *a: started.append(a))
    ls = make_server(tmp_path)
    uri = open_doc(ls, greeter(tmp_path), SKILL, write=False)
    with pytest.raises(
        CommandRefused, match="the optimizer's judge proposes the rewrites; .*ANTHROPIC_API_KEY"
    ):
        _run(ls, uri)
    assert started == []  # no agent was started


def _optimizer(monkeypatch: pytest.MonkeyPatch, result: trigger_optimize.OptimizeResult) -> list[Any]:
    """The optimizer's agent and judge runs replaced by ``result``; the requests it was given."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-used")
    requests: list[Any] = []

    async def optimize(
        request: trigger_optimize.OptimizeRequest, say: Any
    ) -> trigger_optimize.OptimizeResult:
        requests.append(request)
        say("measuring the current description")
        return result

    monkeypatch.setattr(trigger_optimize, "optimize", optimize)
    return requests


def _result(
    winner: trigger_optimize.Candidate | None, error: str | None = None
) -> trigger_optimize.OptimizeResult:
    current = trigger_optimize.Candidate("current", "Writes greetings. Use when asked to greet.")
    return trigger_optimize.OptimizeResult(
        skill="greeter", train=[], held=[], current=current, winner=winner, error=error, cost_usd=0.25
    )


def test_the_winner_is_an_edit_to_review(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    winner = trigger_optimize.Candidate(
        "rewrite 1", "Greets people by name. Use to greet.", difference=(0.5, 0.1, 0.9)
    )
    requests = _optimizer(monkeypatch, _result(winner))
    ls = make_server(tmp_path)
    client = Client(ls)
    skill = greeter(tmp_path)
    uri = open_doc(ls, skill, SKILL, write=False)
    answer = _run(ls, uri)
    (request,) = requests
    assert (request.skill_dir, request.trigger_set) == (
        skill.parent,
        skill.parent / "evals" / "trigger-eval.json",
    )
    assert request.with_installed == [tmp_path / "skills"]  # the package's other skills stand beside it
    assert (request.runs, request.candidates, request.seed, request.holdout) == (2, 1, 7, 0.5)
    assert answer.log == ["measuring the current description"]
    assert answer.winner is not None and answer.winner.label == "rewrite 1"
    assert answer.winner.difference == [0.5, 0.1, 0.9]
    assert answer.applied is False and client.edits == []  # no change annotations: never sent unasked
    assert answer.edit is not None
    (change,) = answer.edit["changes"][uri]
    assert (change["range"]["start"]["line"], change["range"]["end"]["line"]) == (2, 5)
    assert "Greets people by name. Use to greet." in change["newText"]
    assert skill.read_text(encoding="utf-8") == SKILL  # nothing written by the server


def test_a_client_that_confirms_edits_is_sent_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    winner = trigger_optimize.Candidate("rewrite 1", "Greets people by name. Use to greet.")
    _optimizer(monkeypatch, _result(winner))
    caps = types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=True,
            workspace_edit=types.WorkspaceEditClientCapabilities(
                change_annotation_support=types.ChangeAnnotationsSupportOptions(groups_on_label=True)
            ),
        )
    )
    ls = make_server(tmp_path, caps)
    client = Client(ls, applied=False)  # the user discarded the preview
    uri = open_doc(ls, greeter(tmp_path), SKILL, write=False)
    answer = _run(ls, uri)
    (sent,) = client.edits
    assert sent.label == "Optimized description (review)"
    assert sent.edit.change_annotations is not None and od.ANNOTATION in sent.edit.change_annotations
    assert answer.applied is False and answer.edit is not None and "documentChanges" in answer.edit
    assert answer.winner is not None and answer.winner.difference is None


@pytest.mark.parametrize(
    ("error", "said"), [(None, "evalens: no rewrite accepted"), ("budget spent", "evalens: budget spent")]
)
def test_no_winner_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: str | None, said: str
) -> None:
    _optimizer(monkeypatch, _result(None, error))
    ls = make_server(tmp_path)
    client = Client(ls)
    answer = _run(ls, open_doc(ls, greeter(tmp_path), SKILL, write=False))
    assert client.shown == [said]
    assert (answer.winner, answer.edit, answer.error) == (None, None, error)
    assert answer.cost == _result(None).to_json()["cost"]
