/** Quick fixes whose text holds a placeholder (the `judge.criteria` skeleton) insert it as a snippet, so the
 * placeholder is selected and the first keystroke replaces it. vscode-languageclient 9 cannot take LSP 3.18
 * snippet edits, so the server sends the plain edit plus `CodeAction.data.snippets` (`CodeActionData`), and this
 * middleware swaps the edit for VS Code's own `SnippetTextEdit`s. The server computes the snippets; this only
 * builds the VS Code objects. */
import * as vscode from "vscode";
import type { CodeActionData } from "./protocol";

function snippetsOf(action: unknown): CodeActionData["snippets"] | undefined {
  const data = (action as { data?: unknown }).data;
  const snippets = data && typeof data === "object" ? (data as Partial<CodeActionData>).snippets : undefined;
  return Array.isArray(snippets) && snippets.length > 0 ? snippets : undefined;
}

/** `action` with its edit made of snippet edits when the server sent them; anything else unchanged. */
export function withSnippetEdits<T extends vscode.Command | vscode.CodeAction>(action: T): T {
  const snippets = snippetsOf(action);
  if (!snippets || !(action instanceof vscode.CodeAction)) {
    return action;
  }
  const edit = new vscode.WorkspaceEdit();
  const byUri = new Map<string, vscode.SnippetTextEdit[]>();
  for (const s of snippets) {
    const range = new vscode.Range(s.range.start.line, s.range.start.character, s.range.end.line, s.range.end.character);
    const list = byUri.get(s.uri) ?? [];
    list.push(vscode.SnippetTextEdit.replace(range, new vscode.SnippetString(s.snippet)));
    byUri.set(s.uri, list);
  }
  for (const [uri, edits] of byUri) {
    edit.set(vscode.Uri.parse(uri), edits);
  }
  action.edit = edit;
  return action;
}

/** The `provideCodeActions` middleware: every action through {@link withSnippetEdits}. */
export async function provideCodeActionsWithSnippets(
  next: () => vscode.ProviderResult<(vscode.Command | vscode.CodeAction)[]>,
): Promise<(vscode.Command | vscode.CodeAction)[] | null | undefined> {
  const actions = await next();
  return actions ? actions.map((a) => withSnippetEdits(a)) : actions;
}
