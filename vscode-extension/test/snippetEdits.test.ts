import { strict as assert } from "node:assert";
import { test } from "node:test";
import * as vscode from "vscode";
import { provideCodeActionsWithSnippets, withSnippetEdits } from "../src/snippetEdits";

const SNIPPET = "\n  criteria: >\n    ${1:The output <names a concrete, checkable fact>.}";

test("a quick fix with data.snippets becomes snippet edits: the placeholder is a tab stop (issue 45 #5)", async () => {
  const fix = new vscode.CodeAction("Add a `judge.criteria` skeleton") as vscode.CodeAction & { data?: unknown };
  fix.data = {
    snippets: [
      { uri: "file:///w/evals/cases/a.yaml", range: { start: { line: 4, character: 6 }, end: { line: 4, character: 6 } }, snippet: SNIPPET },
    ],
  };
  const plain = new vscode.CodeAction("Ignore `vague-criteria` on this line");
  const [converted, untouched] = (await provideCodeActionsWithSnippets(() => [fix, plain]))!;
  const entries = (converted as vscode.CodeAction).edit as unknown as { entries: [vscode.Uri, vscode.SnippetTextEdit[]][] };
  assert.equal(entries.entries.length, 1);
  const [uri, [edit]] = entries.entries[0];
  assert.equal(uri.toString(), "file:///w/evals/cases/a.yaml");
  assert.ok(edit instanceof vscode.SnippetTextEdit);
  assert.equal(edit.snippet.value, SNIPPET);
  assert.deepEqual([edit.range.start.line, edit.range.start.character], [4, 6]);
  assert.equal(untouched, plain);
  assert.equal((untouched as vscode.CodeAction).edit, undefined, "an action without snippets keeps its own edit");
});

test("a command or an action whose data is not snippets is left alone", () => {
  const command = { title: "x", command: "evalens.runCase" };
  assert.equal(withSnippetEdits(command), command);
  const other = new vscode.CodeAction("y") as vscode.CodeAction & { data?: unknown };
  other.data = { snippets: [] };
  assert.equal(withSnippetEdits(other).edit, undefined);
});
