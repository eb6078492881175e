"""Quick fixes: every problem that carries a fix becomes a code action on its diagnostic, followed by
"Ignore `code` on this line / in this file" (inline suppression)."""

from __future__ import annotations

from evalens.server.convert import fix_to_edit, to_diagnostic, to_range
from evalens.server.server import EvalensServer
from lsprotocol import types


def _overlaps(a: types.Range, b: types.Range) -> bool:
    return not ((a.end.line, a.end.character) < (b.start.line, b.start.character)
                or (b.end.line, b.end.character) < (a.start.line, a.start.character))


def register(server: EvalensServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    def code_actions(ls: EvalensServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        from evalens.core.suppress import suppression_fixes

        uri = params.text_document.uri
        result = ls.validate_uri(uri)
        if result.doc is None:
            return None
        lines = result.doc.lines
        fixes: list[types.CodeAction] = []
        ignores: list[types.CodeAction] = []  # after every real fix, as eslint and ruff order them
        for problem in result.problems:
            prange = to_range(problem.span, lines, ls.encoding)
            if not _overlaps(prange, params.range):
                continue
            diagnostic = to_diagnostic(problem, lines, ls.encoding, uri)
            for out, found in ((fixes, problem.fixes), (ignores, suppression_fixes(problem, result.doc))):
                for fix in found:
                    out.append(types.CodeAction(
                        title=fix.title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                        is_preferred=fix.preferred, edit=fix_to_edit(fix, uri, lines, ls.encoding)))
        return [*fixes, *ignores] or None
