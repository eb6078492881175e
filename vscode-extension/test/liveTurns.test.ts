import { strict as assert } from "node:assert";
import { test } from "node:test";
import * as vscode from "vscode";
import { turnOutput, TURN_LINES } from "../src/liveTurns";
import type { DiscoveredCase, RunTurnParams } from "../src/protocol";
import { DEFAULT_SETTINGS } from "../src/settings";
import { EvalTestController } from "../src/testController";
import { FakeServer, range } from "./support/fakeServer";
import type { FakeTestController, FakeTestRun } from "./support/vscode-mock";

const URI = "file:///ws/pkg/evals/cases/basic.yaml";
const log = { info() {}, warn() {}, error() {}, debug() {}, trace() {} } as unknown as vscode.LogOutputChannel;
const cases: DiscoveredCase[] = [
  { uri: URI, name: "greet", format: "uaaps", range: range(1), packageRoot: "/ws/pkg" },
  { uri: URI, name: "other", format: "uaaps", range: range(9), packageRoot: "/ws/pkg" },
];

function turn(seq: number, kind: RunTurnParams["kind"], text: string, extra: Partial<RunTurnParams> = {}): RunTurnParams {
  return { uri: URI, name: "greet", run: 1, seq, kind, text, ...extra };
}

test("a turn reads as one terminal line: tool and summary, failed results, blocks in red", () => {
  assert.equal(turnOutput(turn(0, "tool", "output/result.txt", { tool: "Write" })), "▸ Write output/result.txt\r\n");
  assert.equal(turnOutput(turn(1, "result", "EDITED\n")), "\x1b[2m  ↳ EDITED\x1b[0m\r\n");
  assert.equal(turnOutput(turn(2, "result", "no such file", { isError: true })), "\x1b[31m  ↳ failed: no such file\x1b[0m\r\n");
  assert.equal(
    turnOutput(turn(3, "hook", "BLOCKED_BY_POLICY", { tool: "PreToolUse:Write", blocked: true })),
    "\x1b[31m⛔ PreToolUse:Write blocked: BLOCKED_BY_POLICY\x1b[0m\r\n",
  );
  const long = turnOutput(turn(4, "text", Array.from({ length: 10 }, (_, i) => `line ${i}`).join("\n"), { run: 2 }));
  assert.ok(long.startsWith("#2 💬 line 0\r\n    line 1"));
  assert.ok(long.includes(`… ${10 - TURN_LINES} more lines`) && !long.includes("line 9"));
});

test("turns stream into the Test Results terminal of the running case, before its verdict", async () => {
  let answer: (value: unknown) => void = () => undefined;
  const server = new FakeServer({
    "evalens.discoverCases": () => cases,
    "evalens.runCase": () => new Promise((resolve) => (answer = resolve)),
  });
  const tc = new EvalTestController(server, () => ({ ...DEFAULT_SETTINGS, maxParallelRuns: 1 }), log);
  const controller = tc.controller as unknown as FakeTestController;
  await tc.refreshAll();
  const item = tc.caseItem(URI, "greet")!;
  server.runTurnEmitter.fire(turn(0, "text", "before the run")); // no run yet: dropped
  const running = tc.runItems([item], false);
  await new Promise((r) => setTimeout(r, 0));
  server.runTurnEmitter.fire(turn(0, "tool", "output/result.txt", { tool: "Write" }));
  server.runTurnEmitter.fire(turn(1, "text", "DONE GREETING-OK"));
  server.runTurnEmitter.fire({ ...turn(0, "text", "another case"), name: "other" }); // not running here: dropped
  answer({ uri: URI, name: "greet", verdict: "PASS", durationSeconds: 1 });
  await running;
  const run = controller.runs.at(-1) as FakeTestRun;
  const events = run.events.filter((e) => e.kind !== "enqueued");
  assert.deepEqual(
    events.map((e) => [e.kind, e.id, e.text]),
    [
      ["started", item.id, undefined],
      ["output", item.id, "── greet: the agent's turns ──\r\n▸ Write output/result.txt\r\n"],
      ["output", item.id, "💬 DONE GREETING-OK\r\n"],
      ["output", item.id, "PASS greet (1.0s)\r\n"],
      ["passed", item.id, undefined],
      ["end", undefined, undefined],
    ],
  );
  server.runTurnEmitter.fire(turn(2, "text", "late")); // the run is over: nowhere to go, no error
  tc.dispose();
});

test("turns of a code lens run go to that run", async () => {
  const server = new FakeServer({ "evalens.discoverCases": () => cases });
  const tc = new EvalTestController(server, () => DEFAULT_SETTINGS, log);
  const controller = tc.controller as unknown as FakeTestController;
  await tc.refreshAll();
  tc.lensRunStarted(URI, "greet");
  server.runTurnEmitter.fire(turn(0, "hook", "BLOCKED", { tool: "PreToolUse:Write", blocked: true }));
  const run = controller.runs.at(-1) as FakeTestRun;
  assert.ok(run.events.some((e) => e.kind === "output" && e.text!.includes("PreToolUse:Write blocked: BLOCKED")));
  tc.lensRunFinished(URI, "greet", { uri: URI, name: "greet", verdict: "FAIL", reason: "blocked" });
  tc.dispose();
});

test("the Run 5× lens heads each run's turns with run k/5 too", async () => {
  const server = new FakeServer({ "evalens.discoverCases": () => cases });
  const tc = new EvalTestController(server, () => DEFAULT_SETTINGS, log);
  const controller = tc.controller as unknown as FakeTestController;
  await tc.refreshAll();
  tc.lensRunStarted(URI, "greet", 5);
  server.runTurnEmitter.fire(turn(0, "text", "second", { run: 2 }));
  const texts = (controller.runs.at(-1) as FakeTestRun).events.filter((e) => e.kind === "output").map((e) => e.text!);
  assert.ok(texts.some((t) => t.startsWith("── greet (run 2/5): the agent's turns ──")), texts.join(""));
  tc.lensRunFinished(URI, "greet", { uri: URI, name: "greet", verdict: "PASS" });
  tc.dispose();
});

test("Run N× heads each run's turns with run k/N", async () => {
  let answer: (value: unknown) => void = () => undefined;
  const server = new FakeServer({
    "evalens.discoverCases": () => cases,
    "evalens.runCase": () => new Promise((resolve) => (answer = resolve)),
  });
  const tc = new EvalTestController(server, () => ({ ...DEFAULT_SETTINGS, run: { ...DEFAULT_SETTINGS.run, repeats: 3 } }), log);
  const controller = tc.controller as unknown as FakeTestController;
  await tc.refreshAll();
  const item = tc.caseItem(URI, "greet")!;
  const running = tc.runItems([item], { repeat: true });
  await new Promise((r) => setTimeout(r, 0));
  server.runTurnEmitter.fire(turn(0, "text", "first"));
  server.runTurnEmitter.fire(turn(0, "text", "second", { run: 2 }));
  answer({ uri: URI, name: "greet", verdict: "PASS", durationSeconds: 1 });
  await running;
  const texts = (controller.runs.at(-1) as FakeTestRun).events.filter((e) => e.kind === "output").map((e) => e.text!);
  assert.ok(texts.some((t) => t.startsWith("── greet (run 1/3): the agent's turns ──")), texts.join(""));
  assert.ok(texts.some((t) => t.startsWith("── greet (run 2/3): the agent's turns ──")), texts.join(""));
  tc.dispose();
});

test("the live run page escapes the agent's text and keeps its turns in order", () => {
  const { livePage, turnHtml } = require("../src/runView") as typeof import("../src/runView");
  const page = livePage("a<b", [
    { uri: "file:///x", name: "a<b", run: 1, seq: 0, kind: "tool", tool: "Write", text: "<script>x</script>" },
    { uri: "file:///x", name: "a<b", run: 1, seq: 1, kind: "hook", tool: "Write", blocked: true, text: "no" },
  ]);
  assert.ok(page.includes("a&lt;b") && !page.includes("<script>x"), page);
  assert.ok(page.indexOf("Write &lt;script&gt;") < page.indexOf("Write blocked: no"));
  assert.ok(turnHtml({ uri: "", name: "", run: 1, seq: 2, kind: "error", text: "boom" }).startsWith('<pre class="turn trouble">'));
});

test("lens commands that run many units are batches; a dry run or one case is not", () => {
  const { isLensBatch } = require("../src/protocol") as typeof import("../src/protocol");
  assert.equal(isLensBatch("evalens.runAll", [{ uri: "u" }]), true);
  assert.equal(isLensBatch("evalens.runCase", [{ uri: "u", name: "*" }]), true);
  assert.equal(isLensBatch("evalens.runCase", [{ uri: "u", name: "*", dryRun: true }]), false);
  assert.equal(isLensBatch("evalens.runCase", [{ uri: "u", name: "a" }]), false);
});
