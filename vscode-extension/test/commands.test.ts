import { strict as assert } from "node:assert";
import { test } from "node:test";
import * as vscode from "vscode";
import type { ServerManager } from "../src/client";
import { CommandIds, registerCommands } from "../src/commands";
import { DEFAULT_SETTINGS } from "../src/settings";
import { EvalTestController } from "../src/testController";
import { FakeServer, range } from "./support/fakeServer";
import { executedCommands, registeredCommands, window as fakeWindow } from "./support/vscode-mock";

const URI = "file:///ws/pkg/evals/cases/a.yaml";
const log = { info() {}, warn() {}, error() {}, show() {} } as unknown as vscode.LogOutputChannel;

function setup() {
  const server = new FakeServer({
    "evalens.discoverCases": () => [
      { uri: URI, name: "first", format: "uaaps-case", range: range(0), packageRoot: "/ws/pkg" },
      { uri: URI, name: "second", format: "uaaps-case", range: range(12), packageRoot: "/ws/pkg" },
    ],
    "evalens.runCase": (arg) => ({ uri: URI, name: arg.name, verdict: "PASS", durationSeconds: 1 }),
    "evalens.lastReport": () => ({ path: "/ws/pkg/evals/reports/2026-01-01T00-00-00Z.json" }),
  });
  const tests = new EvalTestController(server, () => DEFAULT_SETTINGS, log);
  const disposables = registerCommands(server as unknown as ServerManager, tests, log);
  const run = (id: string, ...args: unknown[]) => registeredCommands.get(id)!(...args) as Promise<void>;
  const editorAt = (line: number) => {
    fakeWindow.activeTextEditor = {
      document: { uri: vscode.Uri.parse(URI) },
      selection: { active: new vscode.Position(line, 0) },
    };
  };
  const dispose = () => {
    disposables.forEach((d) => d.dispose());
    tests.dispose();
    fakeWindow.activeTextEditor = undefined;
    fakeWindow.messages.length = 0;
  };
  return { server, run, editorAt, dispose };
}

const runCalls = (server: FakeServer) => server.calls.filter((c) => c.command === "evalens.runCase").map((c) => c.argument);

test("Run Eval at Cursor runs the case the cursor is in; Dry Run passes dryRun", async () => {
  const { server, run, editorAt, dispose } = setup();
  editorAt(15);
  await run(CommandIds.runAtCursor);
  editorAt(3);
  await run(CommandIds.dryRunAtCursor);
  assert.deepEqual(runCalls(server), [
    { uri: URI, name: "second", dryRun: false },
    { uri: URI, name: "first", dryRun: true },
  ]);
  dispose();
});

test("Run All Evals in File and in Workspace run every case", async () => {
  const { server, run, editorAt, dispose } = setup();
  editorAt(0);
  await run(CommandIds.runFile);
  await run(CommandIds.runWorkspace);
  assert.deepEqual(
    runCalls(server).map((a) => a.name),
    ["first", "second", "first", "second"],
  );
  dispose();
});

test("commands need a running server and say so", async () => {
  const { server, run, editorAt, dispose } = setup();
  server.state = "failed";
  editorAt(0);
  await run(CommandIds.runAtCursor);
  assert.deepEqual(runCalls(server), []);
  assert.match(fakeWindow.messages.at(-1)!, /The evalens server is failed/);
  dispose();
});

test("Open Last Report opens the path the server names", async () => {
  const { run, editorAt, dispose } = setup();
  editorAt(0);
  executedCommands.length = 0;
  await run(CommandIds.openLastReport);
  const [id, uri] = executedCommands.at(-1) as [string, vscode.Uri];
  assert.equal(id, "vscode.open");
  assert.equal(uri.fsPath, "/ws/pkg/evals/reports/2026-01-01T00-00-00Z.json");
  dispose();
});
