import { strict as assert } from "node:assert";
import { test } from "node:test";
import * as vscode from "vscode";
import { comparisonQuestion, compareEnginesAndArms } from "../src/comparison";
import { Commands } from "../src/protocol";
import { DEFAULT_SETTINGS } from "../src/settings";
import { EvalTestController } from "../src/testController";
import { FakeServer, range } from "./support/fakeServer";
import { window as fakeWindow } from "./support/vscode-mock";

const URI = "file:///ws/pkg/evals/cases/a.yaml";
const log = { info() {}, warn() {}, error() {}, show() {} } as unknown as vscode.LogOutputChannel;

test("the question counts every case once per engine and per arm", () => {
  const q = comparisonQuestion(3, ["claude-code", "codex"], ["skill", "no-skill"]);
  assert.equal(q.run, "Run 12 evals");
  assert.match(q.message, /^Compare claude-code, codex × skill, no-skill: 12 agent runs\?/);
  assert.equal(comparisonQuestion(2, ["codex"], []).run, "Run 2 evals");
});

test("the question counts what the server planned: the file's own units, each unit's runs", () => {
  const q = comparisonQuestion(9, ["claude-code", "codex"], ["skill", "no-skill"], { batches: 4, units: 2, runs: 3, agentRuns: 24 });
  assert.equal(q.run, "Run 24 evals");
  assert.match(q.message, /: 24 agent runs\?/);
  assert.equal(q.detail, "2 evals × 3 runs × 4 batches (one per engine and arm).");
});

test("the palette asks the server's count, and a comparison the server cannot plan does not start", async () => {
  let planned: Record<string, unknown> | Error = { batches: 2, units: 1, runs: 3, agentRuns: 6 };
  const server = new FakeServer({
    "evalens.discoverCases": () => [
      { uri: URI, name: "first", format: "skilljack-tasks", range: range(0), packageRoot: "/ws/pkg" },
      { uri: "file:///ws/pkg/other.yaml", name: "second", format: "skilljack-tasks", range: range(0), packageRoot: "/ws/pkg" },
    ],
    "evalens.planComparison": () => {
      if (planned instanceof Error) {
        throw planned;
      }
      return planned;
    },
    "evalens.runComparison": () => ({ batch: "b", columns: ["x", "y"], rows: [], reportPaths: [], table: "TABLE", unread: [] }),
  });
  const tests = new EvalTestController(server, () => DEFAULT_SETTINGS, log);
  const w = fakeWindow as unknown as Record<string, unknown>;
  const inputs = ["claude-code,codex", ""];
  const inputBox = w.showInputBox;
  w.showInputBox = async () => inputs.shift();
  fakeWindow.activeTextEditor = { document: { uri: vscode.Uri.parse(URI) } };
  fakeWindow.warningAnswers.push(undefined);
  try {
    assert.equal(await compareEnginesAndArms(server, tests), undefined); // declined
    const [plan] = server.calls.filter((c) => c.command === Commands.planComparison);
    assert.deepEqual(plan.argument, { uri: URI, engines: "claude-code,codex", arms: undefined });
    assert.ok(fakeWindow.messages.some((m) => m.startsWith("Compare claude-code, codex: 6 agent runs?")), fakeWindow.messages.join("\n"));
    planned = new Error("evalens.planComparison: unknown arm 'nope'");
    inputs.push("codex", "nope");
    assert.equal(await compareEnginesAndArms(server, tests), undefined);
    assert.equal(server.calls.filter((c) => c.command === Commands.runComparison).length, 0);
    assert.ok(fakeWindow.messages.some((m) => m.includes("unknown arm 'nope'")), fakeWindow.messages.join("\n"));
  } finally {
    w.showInputBox = inputBox;
    fakeWindow.activeTextEditor = undefined;
    fakeWindow.messages.length = 0;
    fakeWindow.warningAnswers.length = 0;
    fakeWindow.warningOptions.length = 0;
    tests.dispose();
  }
});

test("the palette's comparison asks, confirms, starts the server's comparison and opens its table", async () => {
  const server = new FakeServer({
    "evalens.discoverCases": () => [
      { uri: URI, name: "first", format: "uaaps-case", range: range(0), packageRoot: "/ws/pkg" },
      { uri: URI, name: "second", format: "uaaps-case", range: range(9), packageRoot: "/ws/pkg" },
      { uri: "file:///ws/other/evals/cases/b.yaml", name: "elsewhere", format: "uaaps-case", range: range(0), packageRoot: "/ws/other" },
    ],
    "evalens.runComparison": () => ({ batch: "b", columns: ["x", "y"], rows: [], reportPaths: [], table: "TABLE", unread: [] }),
  });
  const tests = new EvalTestController(server, () => DEFAULT_SETTINGS, log);
  const w = fakeWindow as unknown as Record<string, unknown>;
  const inputs = ["claude-code,codex", "skill,no-skill"];
  const shown: string[] = [];
  const inputBox = w.showInputBox;
  w.showInputBox = async () => inputs.shift();
  fakeWindow.activeTextEditor = { document: { uri: vscode.Uri.parse(URI) } };
  fakeWindow.warningAnswers.push("Run 8 evals");
  const opened = (vscode.workspace as unknown as Record<string, unknown>).openTextDocument;
  (vscode.workspace as unknown as Record<string, unknown>).openTextDocument = async (o: { content: string }) => {
    shown.push(o.content);
    return { uri: vscode.Uri.parse("untitled:table") };
  };
  try {
    const answer = await compareEnginesAndArms(server, tests);
    assert.equal(answer?.table, "TABLE");
    const [call] = server.calls.filter((c) => c.command === Commands.runComparison);
    assert.deepEqual(call.argument, { uri: URI, engines: "claude-code,codex", arms: "skill,no-skill" });
    assert.ok(fakeWindow.messages.some((m) => m.startsWith("Compare claude-code, codex × skill, no-skill: 8 agent runs?")), fakeWindow.messages.join("\n"));
    assert.deepEqual(shown, ["TABLE"]);
    // declined: nothing starts
    inputs.push("codex", "");
    fakeWindow.warningAnswers.push(undefined);
    assert.equal(await compareEnginesAndArms(server, tests), undefined);
    assert.equal(server.calls.filter((c) => c.command === Commands.runComparison).length, 1);
  } finally {
    w.showInputBox = inputBox;
    (vscode.workspace as unknown as Record<string, unknown>).openTextDocument = opened;
    fakeWindow.activeTextEditor = undefined;
    fakeWindow.messages.length = 0;
    fakeWindow.warningAnswers.length = 0;
    fakeWindow.warningOptions.length = 0;
    tests.dispose();
  }
});
