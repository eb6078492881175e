import { strict as assert } from "node:assert";
import { test } from "node:test";
import * as vscode from "vscode";
import { newCaseThenReveal } from "../src/newCase";

test("New eval case: the server is told not to reveal, and the editor opens the file at the prompt", async () => {
  const mock = vscode.window as unknown as { shown: { uri: string; selection: vscode.Range; preview: boolean }[] };
  mock.shown.length = 0;
  const sent: unknown[][] = [];
  const answer = {
    uri: "file:///w/pkg/evals/cases/04-pdf-new-case.yaml",
    position: { line: 3, character: 11 },
    format: "uaaps-case",
  };
  const result = await newCaseThenReveal("evalens.newCase", [{ uri: "file:///w/pkg/skills/pdf/SKILL.md" }], (command, args) => {
    sent.push([command, ...args]);
    return answer;
  });
  assert.deepEqual(sent, [["evalens.newCase", { uri: "file:///w/pkg/skills/pdf/SKILL.md", reveal: false }]]);
  assert.equal(result, answer);
  assert.equal(mock.shown.length, 1);
  assert.equal(mock.shown[0].uri, answer.uri);
  assert.deepEqual([mock.shown[0].selection.start.line, mock.shown[0].selection.start.character], [3, 11]);
  assert.equal(mock.shown[0].preview, false);
});

test("New eval case: a refused or empty answer opens nothing", async () => {
  const mock = vscode.window as unknown as { shown: unknown[] };
  mock.shown.length = 0;
  await newCaseThenReveal("evalens.newCase", [], () => undefined);
  assert.equal(mock.shown.length, 0);
});
