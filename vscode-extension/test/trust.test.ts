import { strict as assert } from "node:assert";
import { test } from "node:test";
import * as vscode from "vscode";
import { Commands } from "../src/protocol";
import { DEFAULT_SETTINGS } from "../src/settings";
import { EvalTestController } from "../src/testController";
import { AGENT_COMMANDS, RESTRICTED_MODE_COMMANDS, refusedUntrusted, restrictLenses, TRUST_COMMAND } from "../src/trust";
import { FakeServer, range } from "./support/fakeServer";
import { FakeTestController, window as fakeWindow, workspace as fakeWorkspace } from "./support/vscode-mock";

const URI = "file:///ws/pkg/evals/cases/a.yaml";
const log = { info() {}, warn() {}, error() {}, show() {} } as unknown as vscode.LogOutputChannel;

test("every server command is classed: it starts an agent, or it may run in Restricted Mode", () => {
  const all = new Set<string>(Object.values(Commands));
  const classed = new Set<string>([...AGENT_COMMANDS, ...RESTRICTED_MODE_COMMANDS]);
  assert.deepEqual([...all].filter((c) => !classed.has(c)), [], "a new command needs a class in trust.ts");
  assert.deepEqual([...AGENT_COMMANDS].filter((c) => RESTRICTED_MODE_COMMANDS.has(c)), []);
});

test("an untrusted workspace refuses what starts an agent, and allows a dry run and every reading command", () => {
  assert.equal(refusedUntrusted(Commands.runCase, [{ uri: URI, name: "a" }], false), true);
  assert.equal(refusedUntrusted(Commands.runComparison, [{ uri: URI, engines: "claude-code,codex" }], false), true);
  assert.equal(refusedUntrusted(Commands.matrix, [{ uri: URI }], false), false); // reads the newest matrix run
  assert.equal(refusedUntrusted(Commands.runCase, [{ uri: URI, name: "a", dryRun: true }], false), false);
  assert.equal(refusedUntrusted(Commands.showResult, [{ uri: URI, name: "a" }], false), false);
  assert.equal(refusedUntrusted(Commands.runCase, [{ uri: URI, name: "a" }], true), false);
});

test("in Restricted Mode a run lens is locked and opens the trust editor; other lenses stay", () => {
  const r = new vscode.Range(new vscode.Position(0, 0), new vscode.Position(0, 1));
  const run = new vscode.CodeLens(r, { title: "▶ Run eval", command: Commands.runCase, arguments: [{ uri: URI, name: "a" }] });
  const shown = new vscode.CodeLens(r, { title: "✓ PASS", command: Commands.showResult, arguments: [{ uri: URI, name: "a" }] });
  const out = restrictLenses([run, shown], false)!;
  assert.equal(out[0].command?.command, TRUST_COMMAND);
  assert.equal(out[0].command?.title, "$(lock) ▶ Run eval (Restricted Mode)");
  assert.equal(out[1], shown);
  assert.equal(restrictLenses([run], true)![0], run);
});

test("the Test Explorer starts no run in Restricted Mode and says why; a dry run still plans", async () => {
  const server = new FakeServer({
    "evalens.discoverCases": () => [{ uri: URI, name: "first", format: "uaaps-case", range: range(0), packageRoot: "/ws/pkg" }],
    "evalens.runCase": (arg) => ({ uri: URI, name: arg.name, verdict: arg.dryRun ? "SKIP" : "PASS", durationSeconds: 0 }),
  });
  const tests = new EvalTestController(server, () => DEFAULT_SETTINGS, log);
  const controller = tests.controller as unknown as FakeTestController;
  fakeWorkspace.isTrusted = false;
  try {
    await controller.resolveHandler?.();
    const cases: vscode.TestItem[] = [];
    controller.items.forEach((pkg) => pkg.children.forEach((file) => file.children.forEach((c) => void cases.push(c as unknown as vscode.TestItem))));
    const item = cases[0];
    assert.ok(item, "the case is listed in Restricted Mode too");
    await tests.runHandler(new vscode.TestRunRequest([item]), new vscode.CancellationTokenSource().token, false);
    assert.deepEqual(server.calls.filter((c) => c.command === Commands.runCase), []);
    assert.ok(fakeWindow.messages.some((m) => m.includes("Restricted Mode")), fakeWindow.messages.join("\n"));
    await tests.runHandler(new vscode.TestRunRequest([item]), new vscode.CancellationTokenSource().token, true);
    assert.equal(server.calls.filter((c) => c.command === Commands.runCase).length, 1);
  } finally {
    fakeWorkspace.isTrusted = true;
    fakeWindow.messages.length = 0;
    tests.dispose();
  }
});
