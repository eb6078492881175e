"""Quick fixes: every problem that carries a fix becomes a code action on its diagnostic, followed by
"Ignore `code` on this line / in this file" (inline suppression). A problem about a referenced file that does
not exist (``data["create_file"]``: ``fixture-missing``, ``file-missing``) also offers to create it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types

from evalens.core.suppress import suppression_fixes
from evalens.server.convert import fix_snippets, fix_to_edit, to_diagnostic, to_range
from evalens.server.features import diagnostics, file_edits, new_case, optimize_description
from evalens.server.features.run_state import CommandRefused, typed_command
from evalens.server.features.workspace_scope import require_inside
from evalens.server.server import EvalensServer
from evalens.server.wire import CodeActionData, CreateFileArgs, CreateFileResult

CREATE_FILE = "evalens.createFile"


def _create_action(
    ls: EvalensServer, uri: str, problem: Any, diagnostic: types.Diagnostic
) -> types.CodeAction | None:
    """ "Create `fixtures/x.pdf`": a ``CreateFile`` edit, or (clients without resource operations) the server's
    ``evalens.createFile`` command."""
    target = (problem.data or {}).get("create_file")
    if not isinstance(target, str):
        return None
    text = file_edits.placeholder(target)
    title = f"Create {'empty ' if not text else ''}`{Path(target).name}`"
    action = types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic])
    if file_edits.can_create(ls):
        action.edit = file_edits.create_edit(target, text)
    else:
        action.command = types.Command(
            title=title, command=CREATE_FILE, arguments=[{"uri": uri, "path": target}]
        )
    return action


def _overlaps(a: types.Range, b: types.Range) -> bool:
    return not (
        (a.end.line, a.end.character) < (b.start.line, b.start.character)
        or (b.end.line, b.end.character) < (a.start.line, a.start.character)
    )


def register(server: EvalensServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.Refactor]
        ),
    )
    def code_actions(ls: EvalensServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        result = ls.validate_uri(uri)
        if result.doc is None:
            return None
        lines = result.doc.lines
        snippets = bool(ls.cap("workspace.workspace_edit.snippet_edit_support", False))
        fixes: list[types.CodeAction] = []
        ignores: list[types.CodeAction] = []  # after every real fix, as eslint and ruff order them
        for problem in result.problems:
            prange = to_range(problem.span, lines, ls.encoding)
            if not _overlaps(prange, params.range):
                continue
            diagnostic = to_diagnostic(problem, lines, ls.encoding, uri)
            for out, found in ((fixes, problem.fixes), (ignores, suppression_fixes(problem, result.doc))):
                for fix in found:
                    action = types.CodeAction(
                        title=fix.title,
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[diagnostic],
                        is_preferred=fix.preferred,
                        edit=fix_to_edit(fix, uri, lines, ls.encoding, snippets),
                    )
                    spare = None if snippets else fix_snippets(fix, uri, lines, ls.encoding)
                    if (
                        spare is not None
                    ):  # VS Code's client has no snippet edits: its middleware applies these
                        action.data = CodeActionData(snippets=spare).wire()
                    out.append(action)
            create = _create_action(ls, uri, problem, diagnostic)
            if create is not None:  # after "Change to `<nearest>`": a typo is likelier than a new file
                fixes.append(create)
        optimize = optimize_description.code_actions(ls, uri, params.range)
        return [*fixes, *ignores, *new_case.code_actions(ls, uri), *optimize] or None

    typed_command(server, CREATE_FILE, CreateFileArgs, create_file)


async def create_file(ls: EvalensServer, a: CreateFileArgs) -> CreateFileResult:
    """The fallback of "Create `x`": only a file a current problem of ``uri`` names, never any path."""
    result = ls.validate_uri(a.uri)
    if not any((p.data or {}).get("create_file") == a.path for p in result.problems):
        raise CommandRefused(f"no missing file {a.path!r} is referenced by {a.uri}")
    require_inside(ls, a.path, CREATE_FILE)
    created = file_edits.write_new(a.path, file_edits.placeholder(a.path))
    if created:  # the client may not watch files: every open document looks again
        diagnostics.revalidate_open(ls)
    return CreateFileResult(created=created, path=a.path)
