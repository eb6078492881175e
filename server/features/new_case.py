""" "New eval case for this skill": a lens and a code action on SKILL.md, both running ``evalens.newCase``.

The command writes the case where ``evalens.core.new_case.plan`` says (the format the skill's package already
uses) with ``workspace/applyEdit``: ``CreateFile`` + a text edit for a new file (only for clients that list
``create`` in ``workspace.workspaceEdit.resourceOperations``; the others get the file written by the server),
a text edit for a new entry in an existing ``evals.json``. It answers ``{uri, position, format}``: the
position of the new prompt. The editors put the cursor there (VS Code's client middleware, Neovim's
``evalens.newCase`` command in the Lua setup, which pass ``reveal: false``); without that, a client that
supports ``window/showDocument`` is asked to show it.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

from evalens.core.new_case import plan
from evalens.core.problems import Span
from evalens.server import uris
from evalens.server.convert import to_range
from evalens.server.features import file_edits
from evalens.server.features.run_state import CommandRefused, typed_command, uri_action, uri_command
from evalens.server.features.workspace_scope import require_inside
from evalens.server.server import EvalensServer
from evalens.server.wire import LspPosition, NewCaseArgs, NewCaseResult

log = logging.getLogger("evalens.server.new_case")

COMMAND = "evalens.newCase"
TITLE = "New eval case for this skill"


def skill_md(ls: EvalensServer, uri: str) -> Path | None:
    """The SKILL.md at ``uri`` (validated as one), else None."""
    validation = ls.validation_for(uri)
    if validation is None or validation.format is None or validation.format.id != "skill-md":
        return None
    path = uris.path_of(uri)
    return Path(path) if path else None


def lenses(ls: EvalensServer, uri: str) -> list[types.CodeLens]:
    """One lens on the SKILL.md's first line."""
    if skill_md(ls, uri) is None:
        return []
    start = types.Position(line=0, character=0)
    return [
        types.CodeLens(
            range=types.Range(start=start, end=start), command=uri_command("＋ New eval case", COMMAND, uri)
        )
    ]


def code_actions(ls: EvalensServer, uri: str) -> list[types.CodeAction]:
    """The same as a code action anywhere in the SKILL.md (kind ``refactor``: VS Code's light bulb lists it)."""
    if skill_md(ls, uri) is None:
        return []
    return [uri_action(TITLE, types.CodeActionKind.Refactor, COMMAND, uri)]


def _position(lines: list[str], line: int, col: int, encoding: str) -> types.Position:
    return to_range(Span(line, col, line, col), lines, encoding).start


async def new_case(ls: EvalensServer, a: NewCaseArgs) -> NewCaseResult:
    """Write the new case (an edit the editor applies, or the file itself) and answer where its prompt is."""
    skill = skill_md(ls, a.uri)
    if skill is None:
        raise CommandRefused("evalens.newCase needs the uri of a SKILL.md")
    require_inside(ls, skill, COMMAND)
    try:
        found = await asyncio.get_running_loop().run_in_executor(ls.thread_pool, plan, skill, ls.read_text)
    except ValueError as exc:
        raise CommandRefused(str(exc)) from None
    require_inside(ls, found.path, COMMAND)
    uri = from_fs_path(str(found.path)) or ""
    if found.insert is None:
        lines = found.text.split("\n")
        if file_edits.can_create(ls) and ls.cap("workspace.apply_edit", False):
            edit = file_edits.create_edit(found.path, found.text)
        else:  # no CreateFile: the server writes it and the editor opens it
            if not await asyncio.get_running_loop().run_in_executor(
                ls.thread_pool, file_edits.write_new, found.path, found.text
            ):
                raise CommandRefused(f"{found.path} exists already")
            edit = None
    else:
        source = ls.read_text(found.path) or ""
        lines = source.split("\n")
        text_edit = types.TextEdit(range=to_range(found.insert, lines, ls.encoding), new_text=found.text)
        edit = types.WorkspaceEdit(changes={uri: [text_edit]})
        if not ls.cap("workspace.apply_edit", False):
            raise CommandRefused("this editor cannot apply workspace edits (workspace.applyEdit)")
        at = found.insert
        here = lines[at.start_line]
        lines = "\n".join(
            [
                *lines[: at.start_line],
                here[: at.start_col] + found.text + here[at.start_col :],
                *lines[at.start_line + 1 :],
            ]
        ).split("\n")
    if edit is not None:
        applied = await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit=edit, label=TITLE))
        if not applied.applied:
            raise CommandRefused(
                f"the editor did not apply the new case: {applied.failure_reason or 'refused'}"
            )
    position = _position(lines, *found.cursor, ls.encoding)
    if a.reveal is not False and ls.cap("window.show_document.support", False):
        rng = types.Range(start=position, end=position)
        try:
            await ls.window_show_document_async(
                types.ShowDocumentParams(uri=uri, take_focus=True, selection=rng)
            )
        except Exception:  # noqa: BLE001 - the answer still carries the position
            log.debug("showDocument failed", exc_info=True)
    return NewCaseResult(
        uri=uri,
        position=LspPosition(line=position.line, character=position.character),
        format=found.format,
        title=found.title,
    )


def register(server: EvalensServer) -> None:
    typed_command(server, COMMAND, NewCaseArgs, new_case)
