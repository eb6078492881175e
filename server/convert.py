"""Conversions between evalens' problems/spans (code-point columns) and LSP types (client units)."""

from __future__ import annotations

import re

from lsprotocol import types

from evalens.core.aggregate import related_of
from evalens.core.problems import Fix, Problem, Span
from evalens.core.rules import doc_url
from evalens.server.wire import LspRange, SnippetEdit

SOURCE = "evalens"


def col_to_client(line_text: str, col: int, encoding: str) -> int:
    """Code-point column → the client's unit (UTF-16 by default; Neovim 0.11 may pick UTF-8/32)."""
    col = min(col, len(line_text))
    prefix = line_text[:col]
    if encoding == types.PositionEncodingKind.Utf32 or prefix.isascii():
        return col
    if encoding == types.PositionEncodingKind.Utf8:
        return len(prefix.encode("utf-8", "surrogatepass"))  # a lone surrogate still counts (3 bytes)
    return len(prefix.encode("utf-16-le", "surrogatepass")) // 2


def col_from_client(line_text: str, units: int, encoding: str) -> int:
    if encoding == types.PositionEncodingKind.Utf32 or line_text.isascii():
        return min(units, len(line_text))
    if encoding == types.PositionEncodingKind.Utf8:
        return len(line_text.encode("utf-8", "surrogatepass")[:units].decode("utf-8", errors="ignore"))
    count = 0
    for i, ch in enumerate(line_text):
        if count >= units:
            return i
        count += 2 if ord(ch) > 0xFFFF else 1
    return len(line_text)


def to_position(lines: list[str], line: int, col: int, encoding: str) -> types.Position:
    text = lines[line] if 0 <= line < len(lines) else ""
    return types.Position(line=max(0, line), character=col_to_client(text, max(0, col), encoding))


def to_range(span: Span, lines: list[str], encoding: str) -> types.Range:
    return types.Range(
        start=to_position(lines, span.start_line, span.start_col, encoding),
        end=to_position(lines, span.end_line, span.end_col, encoding),
    )


def from_position(lines: list[str], pos: types.Position, encoding: str) -> tuple[int, int]:
    """A client position in code points, clamped into the document as the LSP spec says (a line past the
    end means the end of the document; a character past the line, the end of the line)."""
    if not lines:
        return 0, 0
    if pos.line >= len(lines):
        return len(lines) - 1, len(lines[-1])
    return pos.line, col_from_client(lines[pos.line], pos.character, encoding)


def code_description(code: str) -> types.CodeDescription | None:
    """The link to the rule's entry in docs/rules.md (editors show the code as a link)."""
    url = doc_url(code)
    return types.CodeDescription(href=url) if url else None


def to_diagnostic(
    problem: Problem, lines: list[str], encoding: str, uri: str | None = None
) -> types.Diagnostic:
    """One problem as an LSP diagnostic; its related locations (repeated findings collapsed into it, the
    first of two duplicates) become ``relatedInformation`` when the document's ``uri`` is given."""
    related = None
    if uri is not None and (items := related_of(problem)):
        related = [
            types.DiagnosticRelatedInformation(
                location=types.Location(uri=uri, range=to_range(Span(*r["span"]), lines, encoding)),
                message=r["message"],
            )
            for r in items
        ]
    return types.Diagnostic(
        range=to_range(problem.span, lines, encoding),
        message=problem.message,
        severity=types.DiagnosticSeverity(int(problem.severity)),
        code=problem.code,
        code_description=code_description(problem.code),
        source=SOURCE,
        related_information=related,
    )


def fix_to_edit(
    fix: Fix, uri: str, lines: list[str], encoding: str, snippets: bool = False
) -> types.WorkspaceEdit:
    """A fix as a workspace edit. ``snippets``: the client applies LSP 3.18 snippet edits
    (``workspace.workspaceEdit.snippetEditSupport``), so an edit with a snippet goes as one and its placeholder
    is a tab stop; other clients get the plain text (and VS Code the snippets beside: :func:`fix_snippets`)."""
    if snippets and any(e.snippet for e in fix.edits):
        by_uri: dict[str, list[types.TextEdit | types.SnippetTextEdit]] = {}
        for edit in fix.edits:
            rng = to_range(edit.span, lines, encoding)
            by_uri.setdefault(edit.uri or uri, []).append(
                types.SnippetTextEdit(range=rng, snippet=types.StringValue(value=edit.snippet))
                if edit.snippet
                else types.TextEdit(range=rng, new_text=edit.text)
            )
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(uri=u, version=None),
                    edits=edits,
                )
                for u, edits in by_uri.items()
            ]
        )
    changes: dict[str, list[types.TextEdit]] = {}
    for edit in fix.edits:
        changes.setdefault(edit.uri or uri, []).append(
            types.TextEdit(range=to_range(edit.span, lines, encoding), new_text=edit.text)
        )
    return types.WorkspaceEdit(changes=changes)


def fix_snippets(fix: Fix, uri: str, lines: list[str], encoding: str) -> list[SnippetEdit] | None:
    """The fix's edits as snippets, for a client that cannot take LSP snippet edits but inserts snippets
    itself (VS Code's client library: ``CodeAction.data.snippets``, applied by the extension's middleware).
    None: the fix has no snippet."""
    if not any(e.snippet for e in fix.edits):
        return None
    return [
        SnippetEdit(
            uri=edit.uri or uri,
            range=LspRange.of(to_range(edit.span, lines, encoding)),
            snippet=edit.snippet or snippet_text(edit.text),
        )
        for edit in fix.edits
    ]


def snippet_text(text: str) -> str:
    """Plain text as a snippet that inserts it unchanged."""
    return re.sub(r"[$}\\]", lambda m: "\\" + m.group(0), text)
