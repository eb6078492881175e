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
    fakeWindow.warningAnswers.length = 0;
    fakeWindow.warningOptions.length = 0;
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

test("Run All Evals in File and in Workspace run every case; the workspace one asks first", async () => {
  const { server, run, editorAt, dispose } = setup();
  editorAt(0);
  await run(CommandIds.runFile);
  fakeWindow.warningAnswers.push(undefined); // dismissed: nothing runs
  await run(CommandIds.runWorkspace);
  assert.deepEqual(runCalls(server).map((a) => a.name), ["first", "second"]);
  fakeWindow.warningAnswers.push("Run 2 evals");
  await run(CommandIds.runWorkspace);
  assert.deepEqual(
    runCalls(server).map((a) => a.name),
    ["first", "second", "first", "second"],
  );
  assert.match(fakeWindow.messages.at(-1)!, /^Run 2 evals \(every eval in the workspace\)\? Each one is a real agent run/);
  assert.deepEqual(fakeWindow.warningOptions.at(-1), { modal: true, detail: "• first\n• second" });
  dispose();
});

test("Run Stale Evals in Workspace shows exactly what the server picks, asks once, and runs exactly that", async () => {
  const { server, run, dispose } = setup();
  server.handlers["evalens.pickUnits"] = () => [{ uri: URI, name: "second", reason: "never ran" }];
  fakeWindow.warningAnswers.push("Run 1 eval");
  await run(CommandIds.runStale);
  assert.deepEqual(runCalls(server).map((a) => a.name), ["second"]);
  assert.equal(server.calls.filter((c) => c.command === "evalens.pickUnits").length, 1); // picked once, not again
  assert.equal(fakeWindow.messages.filter((m) => m.startsWith("Run 1 eval (stale in the workspace)?")).length, 1);
  assert.deepEqual(fakeWindow.warningOptions.at(-1), { modal: true, detail: "• second" });
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

test("Open Last Report opens the report rendered (the run view), not its JSON", async () => {
  const { server, run, editorAt, dispose } = setup();
  server.handlers["evalens.runView"] = (arg) => ({
    format: "html",
    text: "<html><head></head><body>report page<script>x()</script></body></html>",
    title: "evalens: 2026-01-01T00-00-00Z.json",
    reportPath: arg.reportPath,
  });
  editorAt(0);
  executedCommands.length = 0;
  fakeWindow.panels.length = 0;
  await run(CommandIds.openLastReport);
  assert.deepEqual(executedCommands, [], "no raw JSON editor");
  const [panel] = fakeWindow.panels;
  assert.equal(panel.title, "evalens: 2026-01-01T00-00-00Z.json");
  assert.match(panel.webview.html, /Content-Security-Policy/);
  assert.match(panel.webview.html, /<script nonce="[A-Za-z0-9]{32}">/);
  const view = server.calls.find((c) => c.command === "evalens.runView")!;
  assert.deepEqual(view.argument, { reportPath: "/ws/pkg/evals/reports/2026-01-01T00-00-00Z.json", format: "html" });
  dispose();
});

test("Compare with Previous Run asks the server for the unit's two runs and opens its own panel", async () => {
  const { server, run, editorAt, dispose } = setup();
  server.handlers["evalens.runView"] = (arg) =>
    arg.compare
      ? { format: "html", text: "<html><head></head><body>compare</body></html>", title: `evalens: compare ${String(arg.name)}`, reportPath: "/r.json" }
      : { format: "html", text: "<html><head></head><body>run</body></html>", title: `evalens: ${String(arg.name)}`, reportPath: "/r.json" };
  fakeWindow.panels.length = 0;
  editorAt(13); // the cursor in "second"
  await run(CommandIds.compareRuns);
  await run(CommandIds.showRun, { uri: URI, name: "second" }); // the hover link's argument
  await run(CommandIds.compareRuns, { uri: URI, name: "second" }); // the same compare panel, refreshed
  const views = server.calls.filter((c) => c.command === "evalens.runView").map((c) => c.argument);
  assert.deepEqual(views, [
    { uri: URI, name: "second", compare: true, format: "html" },
    { uri: URI, name: "second", format: "html" },
    { uri: URI, name: "second", compare: true, format: "html" },
  ]);
  assert.deepEqual(
    fakeWindow.panels.map((p) => [p.title, p.revealed]),
    [
      ["evalens: compare second", 2],
      ["evalens: second", 1],
    ],
  );
  server.handlers["evalens.runView"] = () => null;
  await run(CommandIds.compareRuns, { uri: URI, name: "first" });
  assert.match(fakeWindow.messages.at(-1)!, /No run recorded yet for "first"/);
  dispose();
});
