import { strict as assert } from "node:assert";
import { test } from "node:test";
import * as vscode from "vscode";
import { confirmLensBatch } from "../src/spendConfirm";
import type { SpendUnit } from "../src/spend";

const mock = vscode.window as unknown as { warningAnswers: (string | undefined)[]; warningOptions: unknown[]; messages: string[] };
const STALE = [{ uri: "file:///w/pkg/evals/cases/basic.yaml", select: "stale" }];

function hooks(units: SpendUnit[] | undefined) {
  const asked: unknown[][] = [];
  return { asked, lensBatchUnits: async (args: unknown[]) => (asked.push(args), units) };
}

test("↻ Run stale (2) asks with the palette's question, naming what will run; declined, nothing runs (issue 45 #10)", async () => {
  mock.messages.length = 0;
  mock.warningOptions.length = 0;
  const units = [
    { label: "summarises-pdf", packageRoot: "/w/pkg" },
    { label: "rejects-empty", packageRoot: "/w/pkg" },
  ];
  const h = hooks(units);
  mock.warningAnswers.push(undefined);
  assert.equal(await confirmLensBatch(h, STALE), false);
  assert.deepEqual(h.asked, [STALE]);
  assert.equal(mock.messages.at(-1), "Run 2 evals (stale in basic.yaml)? Each one is a real agent run and may cost money.");
  assert.deepEqual(mock.warningOptions.at(-1), { modal: true, detail: "• summarises-pdf\n• rejects-empty" });
  mock.warningAnswers.push("Run 2 evals");
  assert.equal(await confirmLensBatch(h, STALE), true);
});

test("a whole-package lens asks too; nothing picked runs without asking; an unknown batch still asks", async () => {
  mock.messages.length = 0;
  mock.warningAnswers.push("Run 1 eval");
  assert.equal(await confirmLensBatch(hooks([{ label: "a", packageRoot: "/w" }]), [{ uri: "file:///w/evals/eval-config.json" }]), true);
  assert.match(mock.messages.at(-1) ?? "", /^Run 1 eval \(every eval of eval-config\.json\)\?/);
  const before = mock.messages.length;
  assert.equal(await confirmLensBatch(hooks([]), STALE), true);
  assert.equal(mock.messages.length, before, "an empty batch spends nothing: no question");
  mock.warningAnswers.push(undefined);
  assert.equal(await confirmLensBatch(hooks(undefined), STALE), false);
  assert.match(mock.messages.at(-1) ?? "", /^Run stale in basic\.yaml\? Each eval is a real agent run/);
});
