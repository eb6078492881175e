"""``evalens.server.features.run_dry`` in process, through the runner's real dry run (no agent starts, no report is
written): a package case's plan as a message and a SKIP answer marked ``dryRun`` with the plan attached, a trigger
set's plan in its suite's own lines under the engine and judge the settings give, and a plan the runner refuses
as an ERROR answer and an error message. Only the client's side of ``window/showMessage`` is recorded."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from lsprotocol import types

from evalens.core.engines import default_engine
from evalens.server.features import run_dry
from evalens.server.server import EvalensServer
from tests.conftest import EXAMPLE
from tests.server.server_in_process import make_server, uri_of

SKILL = "---\nname: sk\ndescription: Does sk things. Use for sk.\n---\nBody\n"


@pytest.fixture
def ls(tmp_path: Path) -> EvalensServer:
    shutil.copytree(EXAMPLE, tmp_path / "pdf-tools")
    return make_server(tmp_path)


def shown_by(ls: EvalensServer) -> list[tuple[types.MessageType, str]]:
    shown: list[tuple[types.MessageType, str]] = []
    ls.window_show_message = lambda p: shown.append((p.type, p.message))  # type: ignore[method-assign]
    return shown


def trigger_set(root: Path) -> Path:
    (root / "sk" / "evals").mkdir(parents=True)
    (root / "sk" / "SKILL.md").write_text(SKILL, encoding="utf-8")
    path = root / "sk" / "evals" / "trigger-eval.json"
    queries = [
        {"query": "do the sk thing", "should_trigger": True},
        {"query": "weather?", "should_trigger": False},
    ]
    path.write_text(json.dumps(queries), encoding="utf-8")
    return path


CHECKS = "checks: contains 'EXTRACTED', not-contains 'ERROR', files-created output/extracted.txt"


def test_a_package_case_is_planned_not_run(ls: EvalensServer, tmp_path: Path) -> None:
    shown = shown_by(ls)
    case = tmp_path / "pdf-tools" / "evals" / "cases" / "01-extract-text.yaml"
    before = sorted((tmp_path / "pdf-tools").rglob("*"))
    target = ls.runs.target(uri_of(case), None)  # type: ignore[union-attr]
    answer = asyncio.run(run_dry.dry_run(ls.runs, target))  # type: ignore[arg-type]
    assert (answer.verdict, answer.dry_run, answer.name, answer.uri) == (
        "SKIP",
        True,
        "extract-text",
        target.uri,
    )
    assert answer.duration_seconds == 0.0 and answer.failed_checks == [] and answer.error is None
    plan = answer.plan
    assert plan is not None and plan["package_root"] == str(tmp_path / "pdf-tools")
    assert [c["name"] for c in plan["cases"] if c["name"] == "extract-text"] == ["extract-text"]
    ((kind, message),) = shown
    assert kind == types.MessageType.Info
    head, *rest = message.split("\n")
    assert head.startswith(f"Dry run of extract-text: {plan['engine']} (")
    assert f"judge {plan['judge']}, timeout {plan['timeout']:g}s, sandbox " in head
    assert head.endswith("(network off)") == (not plan["sandbox"].get("network"))
    assert rest == [CHECKS, *(f"warning: {w}" for w in plan["warnings"])]
    assert answer.reason == "dry run: " + "; ".join(rest)
    assert sorted((tmp_path / "pdf-tools").rglob("*")) == before  # no report, no workspace written


def test_a_trigger_set_is_planned_in_its_suite_s_lines(ls: EvalensServer, tmp_path: Path) -> None:
    shown = shown_by(ls)
    target = ls.runs.target(uri_of(trigger_set(tmp_path)), None)  # type: ignore[union-attr]
    assert (target.name, target.format_id) == ("*", "trigger-evals")
    answer = asyncio.run(run_dry.dry_run(ls.runs, target))  # type: ignore[arg-type]
    engine = ls.settings.engine or default_engine()
    assert shown == [
        (
            types.MessageType.Info,
            f"Dry run of all of trigger-eval.json: engine {engine}, judge {ls.settings.judge or 'default'}\n"
            "+ do the sk thing\n- weather?",
        )
    ]
    assert (answer.verdict, answer.dry_run, answer.plan) == ("SKIP", True, None)
    assert answer.reason == "dry run: + do the sk thing; - weather?"
    shown.clear()
    given = ls.settings.model_copy(update={"engine": "codex", "judge": "openai:gpt-5"})
    asyncio.run(run_dry.dry_run(ls.runs, target, given))  # type: ignore[arg-type]
    assert shown[0][1].startswith("Dry run of all of trigger-eval.json: engine codex, judge openai:gpt-5\n")


def test_a_refused_plan_is_an_error_answer(ls: EvalensServer, tmp_path: Path) -> None:
    shown = shown_by(ls)
    case = tmp_path / "pdf-tools" / "evals" / "cases" / "01-extract-text.yaml"
    target = ls.runs.target(uri_of(case), None)  # type: ignore[union-attr]
    given = ls.settings.model_copy(update={"engine": "nope"})
    answer = asyncio.run(run_dry.dry_run(ls.runs, target, given))  # type: ignore[arg-type]
    assert (answer.verdict, answer.dry_run, answer.plan) == ("ERROR", True, None)
    assert answer.error == answer.reason and "unsupported engine 'nope'" in (answer.error or "")
    assert shown == [(types.MessageType.Error, f"evalens dry run: {answer.error}")]


def test_show_plan_of_a_single_line_says_ok(ls: EvalensServer, tmp_path: Path) -> None:
    shown = shown_by(ls)
    target = SimpleNamespace(name="greet", case_file=tmp_path / "a.yaml", case=None, validation=None)
    base = run_dry.CaseResult(
        uri="file:///a.yaml", name="greet", verdict="SKIP", duration_seconds=0.0, failed_checks=[]
    )
    answer = run_dry._show_plan(ls.runs, base, target, ["engine x"])  # type: ignore[arg-type]
    assert answer is base and answer.reason == "dry run: ok"
    assert shown == [(types.MessageType.Info, "Dry run of greet: engine x")]
