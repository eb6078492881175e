import { strict as assert } from "node:assert";
import { test } from "node:test";
import * as vscode from "vscode";
import type { CaseResult, DiscoveredCase, MatrixCell } from "../src/protocol";
import { DEFAULT_SETTINGS } from "../src/settings";
import { cellIcon, cellOverrides, EvalTestController } from "../src/testController";
import { FakeServer, range } from "./support/fakeServer";
import type { FakeTestController } from "./support/vscode-mock";

/** The Test Explorer's cell items of an engines × arms matrix run (issue #25): each cell's state as its label's
 * icon, its engine · model · arm as the label, and running one runs its case on that engine and model, as
 * that arm. */

const PKG = "/ws/pdf-tools";
const URI = `file://${PKG}/evals/cases/20-tables.yaml`;
const log = { info() {}, warn() {}, error() {}, debug() {}, trace() {} } as unknown as vscode.LogOutputChannel;

function cell(engine: string, model: string, arm: string, label: string, state?: MatrixCell["state"]): MatrixCell {
  return { column: `${engine} · ${model} · ${label}`, engine, model, arm, ...(state ? { state } : {}), text: state ? `${state} 1/2` : "—" };
}

const CELLS = [
  cell("claude-code", "claude-opus-4-8", "skill", "skill", "PASS"),
  cell("claude-code", "claude-opus-4-8", "no-skill", "no skill", "FAIL"),
  cell("codex", "gpt-fake", "without:references", "without references", "FLAKY"),
  cell("codex", "gpt-fake", "no-skill", "no skill"),
];

test("each state has its own icon, and a cell runs on its engine and model as its arm", () => {
  const icons = (["PASS", "FAIL", "FLAKY", "ERROR", "SKIP", undefined] as const).map((s) => cellIcon(s));
  assert.deepEqual(icons, ["$(pass)", "$(error)", "$(warning)", "$(issues)", "$(debug-step-over)", "$(dash)"]);
  assert.deepEqual(cellOverrides(CELLS[2]), { engine: "codex", model: "gpt-fake", arm: "without:references" });
  assert.deepEqual(cellOverrides({ engine: "codex", model: null, arm: null }), { engine: "codex" });
});

test("the cell items carry their icon and arm, and running one sends the cell's engine, model and arm", async () => {
  const found: DiscoveredCase[] = [{ uri: URI, name: "tables", format: "uaaps", range: range(1), packageRoot: PKG, matrix: CELLS }];
  const result: CaseResult = { uri: URI, name: "tables", verdict: "PASS", durationSeconds: 1, reason: "ok" };
  const server = new FakeServer({ "evalens.discoverCases": () => found, "evalens.runCase": () => result });
  const tc = new EvalTestController(server, () => ({ ...DEFAULT_SETTINGS }), log);
  const controller = tc.controller as unknown as FakeTestController;
  await tc.refreshAll();
  const item = tc.caseItem(URI, "tables")!;
  const labels: string[] = [];
  item.children.forEach((c) => labels.push(c.label));
  assert.deepEqual(labels, [
    "$(pass) claude-code · claude-opus-4-8 · skill",
    "$(error) claude-code · claude-opus-4-8 · no skill",
    "$(warning) codex · gpt-fake · without references",
    "$(dash) codex · gpt-fake · no skill",
  ]);
  const items: vscode.TestItem[] = [];
  item.children.forEach((c) => items.push(c));
  const profile = controller.profiles[0].handler as (r: vscode.TestRunRequest, t: vscode.CancellationToken) => Promise<void>;
  await profile(new vscode.TestRunRequest([items[2]]), new vscode.CancellationTokenSource().token);
  const run = server.calls.find((c) => c.command === "evalens.runCase");
  assert.ok(run, "the cell item ran its case");
  assert.deepEqual({ name: run.argument.name, engine: run.argument.engine, model: run.argument.model, arm: run.argument.arm }, {
    name: "tables",
    engine: "codex",
    model: "gpt-fake",
    arm: "without:references",
  });
  tc.dispose();
});
