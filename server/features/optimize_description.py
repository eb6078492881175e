""" "Optimize description with the trigger set…": a code action on a SKILL.md's ``description`` when the skill has
one trigger set (``evals/trigger*.json``), running ``evalens.optimizeDescription``: the description optimizer of
``evalens triggers optimize`` (``runner/trigger_optimize.py``, docs/triggers.md) in a worker thread with its own
event loop, so the server keeps answering while the agents run.

Nothing is written by the server. The winner comes back as a ``WorkspaceEdit`` of the SKILL.md in the answer; a
client that supports change annotations is also sent it through ``workspace/applyEdit`` with an annotation that
needs confirmation, which VS Code shows as a refactor preview the user accepts or discards. Without a judge key
(the judge proposes the rewrites) the command refuses before any agent starts.
"""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path
from typing import Any

from lsprotocol import types
from lsprotocol.converters import get_converter

from evalens.core.engines import default_engine
from evalens.server import wire
from evalens.server.features.new_case import skill_md
from evalens.server.features.run_state import CommandRefused, typed_command, uri_action
from evalens.server.features.workspace_scope import require_inside
from evalens.server.server import EvalensServer

log = logging.getLogger("evalens.server.optimize_description")

COMMAND = wire.COMMANDS["optimizeDescription"]
TITLE = "Optimize description with the trigger set…"
ANNOTATION = "evalens.optimizedDescription"


def _skill(ls: EvalensServer, uri: str) -> tuple[Path, Path] | None:
    """(SKILL.md, its trigger set) when ``uri`` is a SKILL.md whose skill has exactly one trigger set."""
    # lazy: it imports PyYAML (~45 ms), which the server's initialize answer does not wait for (issue 43)
    from evalens.runner.trigger_optimize import find_trigger_set

    skill = skill_md(ls, uri)
    found = find_trigger_set(skill.parent) if skill is not None else None
    return (skill, found) if skill is not None and found is not None else None


def description_lines(lines: list[str]) -> tuple[int, int] | None:
    """The frontmatter lines the ``description`` spans (first, last), a folded or block value included."""
    if not lines or lines[0].rstrip() != "---":
        return None
    start = None
    for i, line in enumerate(lines[1:], 1):
        if line.rstrip() == "---":
            return (start, i - 1) if start is not None else None
        if start is None:
            if re.match(r"description\s*:", line):
                start = i
        elif not line.startswith((" ", "\t")) and line.strip():
            return start, i - 1
    return None


def code_actions(ls: EvalensServer, uri: str, wanted: types.Range) -> list[types.CodeAction]:
    """Offered where the range touches the description, when the skill has a trigger set to measure with."""
    validation = ls.validation_for(uri)
    if validation is None or validation.doc is None or _skill(ls, uri) is None:
        return []
    span = description_lines(validation.doc.lines)
    if span is None or wanted.end.line < span[0] or wanted.start.line > span[1]:
        return []
    return [uri_action(TITLE, types.CodeActionKind.RefactorRewrite, COMMAND, uri)]


def _judge_refusal(engine: str, judge: str | None) -> str | None:
    """Why the judge cannot be asked (no key, no SDK, unknown provider), in preflight's words; None: it can."""
    # lazy: evalens.runner.preflight ~0.2 s to import; the server starts without it, and without the engines
    # (~0.07 s with their trace models, issue 43)
    from evalens.runner.engines import get_engine
    from evalens.runner.preflight import Preflight, judge_checks

    checks, _spec = judge_checks(judge, default_provider=get_engine(engine).default_provider)
    found = Preflight(checks)
    return None if found.ok else found.message()


def review_edit(uri: str, text: str, new_text: str, annotated: bool) -> types.WorkspaceEdit:
    """The changed lines of the SKILL.md as one edit (annotated: the client asks the user before applying)."""
    old, new = text.split("\n"), new_text.split("\n")
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    rng = types.Range(
        start=types.Position(line=head, character=0), end=types.Position(line=len(old) - tail, character=0)
    )
    replacement = "".join(line + "\n" for line in new[head : len(new) - tail])
    if not annotated:
        return types.WorkspaceEdit(changes={uri: [types.TextEdit(range=rng, new_text=replacement)]})
    return types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                edits=[types.AnnotatedTextEdit(range=rng, new_text=replacement, annotation_id=ANNOTATION)],
            )
        ],
        change_annotations={
            ANNOTATION: types.ChangeAnnotation(
                label="Optimized description",
                needs_confirmation=True,
                description="measured on the trigger set's held-out queries; review before applying",
            )
        },
    )


async def optimize_description(ls: EvalensServer, a: wire.OptimizeArgs) -> wire.OptimizeAnswer:
    """Run the optimizer; answer the winner as an edit to review (``edit``), or why there is none."""
    # lazy: evalens.runner.session ~0.4 s to import; the server starts without it, and without the optimizer
    # (it imports PyYAML, issue 43)
    from evalens.runner.session import UsageError
    from evalens.runner.trigger_optimize import OptimizeRequest, optimize, with_description

    found = _skill(ls, a.uri)
    if found is None:
        raise CommandRefused(f"{COMMAND} needs the uri of a SKILL.md whose skill has one evals/trigger*.json")
    skill, trigger_set = found
    require_inside(ls, skill, COMMAND)
    settings = ls.settings
    engine = settings.engine or default_engine()
    loop = asyncio.get_running_loop()
    refusal = await loop.run_in_executor(ls.thread_pool, _judge_refusal, engine, settings.judge or None)
    if refusal:
        raise CommandRefused(f"the optimizer's judge proposes the rewrites; {refusal}")
    # the package's other skills stand beside it, as they will for its users (co_installed leaves it out)
    beside = [skill.parent.parent] if skill.parent.parent.name == "skills" else []
    request = OptimizeRequest(
        skill_dir=skill.parent,
        trigger_set=trigger_set,
        with_installed=beside,
        engine=engine,
        agent_model=settings.model,
        judge=settings.judge or None,
        runs=a.runs,
        candidates=a.candidates,
        holdout=a.holdout,
        seed=a.seed,
        timeout=float(settings.timeout) if settings.timeout else 60,
        max_cost=settings.run.max_cost,
    )
    said: list[str] = []

    def say(message: str) -> None:
        said.append(message)
        loop.call_soon_threadsafe(
            ls.window_log_message,
            types.LogMessageParams(type=types.MessageType.Info, message=f"optimize description: {message}"),
        )

    def work() -> Any:  # its own event loop: the runs' subprocess waits never hold the server's
        return asyncio.run(optimize(request, say))

    try:
        result = await asyncio.to_thread(work)
    except UsageError as exc:
        raise CommandRefused(str(exc)) from None
    answer = wire.OptimizeAnswer(
        uri=a.uri,
        log=said,
        cost=result.to_json()["cost"],
        error=result.error,
        stopped=result.stopped,
        winner=None,
        edit=None,
        applied=False,
    )
    if result.error or result.winner is None:
        message = f"evalens: {result.error}" if result.error else "evalens: no rewrite accepted"
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))
        return answer
    text = ls.read_text(skill) or ""
    new_text = with_description(text, result.winner.description)
    annotated = bool(ls.cap("workspace.workspace_edit.change_annotation_support", None)) and bool(
        ls.cap("workspace.apply_edit", False)
    )
    edit = review_edit(a.uri, text, new_text, annotated)
    answer.winner = wire.OptimizeWinner(
        label=result.winner.label,
        description=result.winner.description,
        difference=list(result.winner.difference) if result.winner.difference else None,
    )
    answer.edit = get_converter().unstructure(edit, unstructure_as=types.WorkspaceEdit)
    if annotated:  # the client asks the user (VS Code: the refactor preview); never applied unasked
        applied = await ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=edit, label="Optimized description (review)")
        )
        answer.applied = bool(applied.applied)
    return answer


def register(server: EvalensServer) -> None:
    typed_command(server, COMMAND, wire.OptimizeArgs, optimize_description)
