import { strict as assert } from "node:assert";
import { test } from "node:test";
import * as vscode from "vscode";
import type { CaseResult, DiscoveredCase } from "../src/protocol";
import { DEFAULT_SETTINGS } from "../src/settings";
import { EvalTestController, inPool } from "../src/testController";
import { FakeServer, range } from "./support/fakeServer";
import type { FakeTestController, FakeTestRun } from "./support/vscode-mock";

const PKG = "/ws/examples/pdf-report";
const CASES_URI = `file://${PKG}/evals/cases/basic.yaml`;
const TASKS_URI = "file:///ws/other/tasks.yaml";

const log = { info() {}, warn() {}, error() {}, debug() {}, trace() {} } as unknown as vscode.LogOutputChannel;

function discovered(): DiscoveredCase[] {
  return [
    { uri: CASES_URI, name: "summarises-pdf", format: "uaaps", range: range(1), packageRoot: PKG },
    { uri: CASES_URI, name: "rejects-empty", format: "uaaps", range: range(9), packageRoot: PKG },
    { uri: TASKS_URI, name: "task-1", format: "skilljack", range: range(3), packageRoot: "/ws/other" },
  ];
}

function result(name: string, verdict: CaseResult["verdict"], extra: Partial<CaseResult> = {}): CaseResult {
  return { uri: CASES_URI, name, verdict, durationSeconds: 0.5, reason: `${verdict} reason`, ...extra };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

function setup(handlers: ConstructorParameters<typeof FakeServer>[0] = {}, maxParallelRuns = 2) {
  const server = new FakeServer({ "evalens.discoverCases": () => discovered(), ...handlers });
  const tc = new EvalTestController(server, () => ({ ...DEFAULT_SETTINGS, maxParallelRuns }), log);
  const controller = tc.controller as unknown as FakeTestController;
  return { server, tc, controller };
}

function tree(controller: FakeTestController): string[] {
  const out: string[] = [];
  controller.items.forEach((pkg) => {
    out.push(pkg.label);
    pkg.children.forEach((file) => {
      out.push(`  ${file.label}`);
      file.children.forEach((c) => out.push(`    ${c.label} @${c.range?.start.line}`));
    });
  });
  return out;
}

test("a package inside a workspace folder shows that folder beside its name; a workspace folder itself none", async () => {
  const folders = (vscode.workspace as { workspaceFolders: unknown }).workspaceFolders;
  (vscode.workspace as { workspaceFolders: unknown }).workspaceFolders = [
    { uri: vscode.Uri.file("/ws"), name: "ws", index: 0 },
    { uri: vscode.Uri.file("/ws/other"), name: "other", index: 1 },
  ];
  try {
    const { controller } = setup();
    await controller.resolveHandler!(undefined);
    const descriptions = () => {
      const out: Record<string, string | undefined> = {};
      controller.items.forEach((pkg) => void (out[pkg.label] = pkg.description));
      return out;
    };
    // pdf-report lies in /ws; /ws/other is a workspace folder of its own (the innermost folder counts)
    assert.deepEqual(descriptions(), { "pdf-report": "examples/pdf-report", other: undefined });
    // the package's folder opened as a workspace folder of its own: the next refresh drops the description
    (vscode.workspace as { workspaceFolders: unknown }).workspaceFolders = [{ uri: vscode.Uri.file(PKG), name: "pdf-report", index: 0 }];
    await controller.resolveHandler!(undefined);
    assert.deepEqual(descriptions(), { "pdf-report": undefined, other: undefined });
  } finally {
    (vscode.workspace as { workspaceFolders: unknown }).workspaceFolders = folders;
  }
});

test("cases are grouped by package and file, with their ranges", async () => {
  const { tc, controller } = setup();
  await controller.resolveHandler!(undefined);
  assert.deepEqual(tree(controller), [
    "pdf-report",
    "  evals/cases/basic.yaml",
    "    summarises-pdf @1",
    "    rejects-empty @9",
    "other",
    "  tasks.yaml",
    "    task-1 @3",
  ]);
  assert.equal(tc.allCases().length, 3);
  tc.dispose();
});

test("refreshing one file after an edit keeps the other files and moves ranges", async () => {
  const { server, tc, controller } = setup();
  await tc.refreshAll();
  server.handlers["evalens.discoverCases"] = (arg) => {
    assert.equal(arg.uri, vscode.Uri.parse(CASES_URI).toString());
    return [
      { uri: CASES_URI, name: "rejects-empty", format: "uaaps", range: range(4), packageRoot: PKG },
      { uri: CASES_URI, name: "new-case", format: "uaaps", range: range(12), packageRoot: PKG },
    ];
  };
  const before = tc.caseItem(CASES_URI, "rejects-empty");
  await tc.refreshFile(vscode.Uri.parse(CASES_URI));
  assert.equal(tc.caseItem(CASES_URI, "rejects-empty"), before, "items are reused, so results stay");
  assert.equal(tc.caseItem(CASES_URI, "summarises-pdf"), undefined);
  assert.deepEqual(tree(controller), [
    "pdf-report",
    "  evals/cases/basic.yaml",
    "    rejects-empty @4",
    "    new-case @12",
    "other",
    "  tasks.yaml",
    "    task-1 @3",
  ]);
  server.handlers["evalens.discoverCases"] = () => [];
  await tc.refreshFile(vscode.Uri.parse(TASKS_URI));
  assert.deepEqual(tree(controller).slice(4), [], "a file without cases leaves the tree, and so does its package");
  tc.dispose();
});

test("discovery waits for a running server and tolerates a server without the command", async () => {
  const { server, tc, controller } = setup();
  server.state = "starting";
  await tc.refreshAll();
  assert.equal(controller.items.size, 0);
  delete server.handlers["evalens.discoverCases"];
  server.setState("running");
  await tick();
  assert.equal(controller.items.size, 0);
  server.handlers["evalens.discoverCases"] = () => discovered();
  server.setState("stopped");
  server.setState("running");
  await tick();
  assert.equal(controller.items.size, 2);
  tc.dispose();
});

test("a run reports passed, failed (with messages at ranges) and errored with durations", async () => {
  const { server, tc, controller } = setup({
    "evalens.runCase": (arg) => {
      if (arg.name === "summarises-pdf") {
        return result("summarises-pdf", "PASS");
      }
      if (arg.name === "rejects-empty") {
        return result("rejects-empty", "FAIL", {
          durationSeconds: 2,
          judge: { verdict: "FAIL", reason: "did not refuse", model: "judge-model" },
          failedChecks: [{ check: "contains", message: "missing 'empty'", sentence: "contains: missing 'empty'", range: range(11, 6, 30) }],
        });
      }
      throw new Error("claude: command not found");
    },
  });
  await tc.refreshAll();
  await tc.runItems(tc.allCases(), false);
  const run = controller.runs.at(-1) as FakeTestRun;
  const final = (id: string) => run.events.filter((e) => e.id === id && !["enqueued", "started", "output"].includes(e.kind));
  const pass = tc.caseItem(CASES_URI, "summarises-pdf")!;
  const fail = tc.caseItem(CASES_URI, "rejects-empty")!;
  const err = tc.caseItem(TASKS_URI, "task-1")!;
  assert.deepEqual(final(pass.id), [{ kind: "passed", id: pass.id, duration: 500 }]);
  const [failed] = final(fail.id);
  assert.equal(failed.kind, "failed");
  assert.equal(failed.duration, 2000);
  assert.deepEqual(failed.messages!.map((m) => m.message), ["Judge (judge-model): did not refuse", "contains: missing 'empty'"]);
  assert.equal(failed.messages![0].location!.range.start.line, 9, "judge reason at the case's range");
  assert.equal(failed.messages![1].location!.range.start.line, 11, "check at its own range");
  const [errored] = final(err.id);
  assert.equal(errored.kind, "errored");
  assert.match(errored.messages![0].message, /claude: command not found/);
  assert.ok(run.ended);
  const runCalls = server.calls.filter((c) => c.command === "evalens.runCase");
  assert.deepEqual(runCalls[0].argument, { uri: CASES_URI, name: "summarises-pdf", dryRun: false });
  tc.dispose();
});

test("runs respect maxParallelRuns, and a dry run passes dryRun", async () => {
  let inFlight = 0;
  let peak = 0;
  const { server, tc } = setup(
    {
      "evalens.runCase": async (arg) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        return result(String(arg.name), "PASS");
      },
    },
    1,
  );
  await tc.refreshAll();
  await tc.runItems(tc.allCases(), true);
  assert.equal(peak, 1);
  assert.ok(server.calls.filter((c) => c.command === "evalens.runCase").every((c) => c.argument.dryRun === true));
  tc.dispose();
});

test("a dry run reports no state, so the Test Explorer keeps the last real result", async () => {
  const { tc, controller } = setup({
    "evalens.runCase": async (arg) =>
      arg.dryRun
        ? result(String(arg.name), "SKIP", { reason: "dry run: checks: contains", dryRun: true })
        : result(String(arg.name), "FAIL", { failedChecks: [{ check: "contains", message: "missing", sentence: "contains: missing" }] }),
  });
  await tc.refreshAll();
  const item = tc.caseItem(CASES_URI, "rejects-empty")!;
  await tc.runItems([item], false);
  assert.ok((controller.runs.at(-1) as FakeTestRun).events.some((e) => e.kind === "failed"));
  await tc.runItems([item], true);
  const dry = controller.runs.at(-1) as FakeTestRun;
  assert.deepEqual(dry.events.filter((e) => !["output", "end"].includes(e.kind)), [], "no enqueued/started/skipped");
  assert.ok(dry.events.some((e) => e.kind === "output"), "the plan is in the run's output");
  tc.dispose();
});

test("a cancelled run reports the case's last real outcome again, not Skipped", async () => {
  let calls = 0;
  const { tc, controller } = setup({
    "evalens.runCase": (arg, token) => {
      calls++;
      if (calls === 1) {
        return Promise.resolve(result(String(arg.name), "FAIL", { failedChecks: [{ check: "contains", message: "missing", sentence: "contains: missing" }] }));
      }
      return new Promise((_resolve, reject) => token?.onCancellationRequested(() => reject(new Error("RequestCancelled"))));
    },
    "evalens.cancelRun": () => null,
  });
  await tc.refreshAll();
  const item = tc.caseItem(CASES_URI, "rejects-empty")!;
  await tc.runItems([item], false);
  const cts = new vscode.CancellationTokenSource();
  const profile = controller.profiles[0].handler as (r: vscode.TestRunRequest, t: vscode.CancellationToken) => Promise<void>;
  const done = profile(new vscode.TestRunRequest([item]), cts.token);
  await tick();
  cts.cancel();
  await done;
  const run = controller.runs.at(-1) as FakeTestRun;
  assert.deepEqual(run.events.filter((e) => ["failed", "skipped", "passed"].includes(e.kind)).map((e) => e.kind), ["failed"]);
  assert.ok(run.events.some((e) => e.kind === "output" && String(e.text) === `■ ${item.label}: cancelled; its last result (FAIL) stays\r\n`));
  tc.dispose();
});

test("a run refused for validation errors keeps the last real result (its reason in the output)", async () => {
  let calls = 0;
  const reason = "not run: 1 error to fix first: line 2: missing prompt";
  const { tc, controller } = setup({
    "evalens.runCase": async (arg) =>
      ++calls === 1
        ? result(String(arg.name), "FAIL", { failedChecks: [{ check: "contains", message: "missing", sentence: "contains: missing" }] })
        : result(String(arg.name), "SKIP", { reason, problems: 1, durationSeconds: 0 }),
  });
  await tc.refreshAll();
  const item = tc.caseItem(CASES_URI, "rejects-empty")!;
  await tc.runItems([item], false);
  await tc.runItems([item], false);
  const run = controller.runs.at(-1) as FakeTestRun;
  assert.deepEqual(run.events.filter((e) => ["failed", "skipped", "passed", "errored"].includes(e.kind)).map((e) => e.kind), ["failed"]);
  assert.ok(run.events.some((e) => e.kind === "output" && String(e.text).includes("not run: 1 error")));
  const fresh = tc.caseItem(CASES_URI, "summarises-pdf")!;  // never ran for real: Skipped, as before
  await tc.runItems([fresh], false);
  const second = controller.runs.at(-1) as FakeTestRun;
  assert.deepEqual(second.events.filter((e) => ["failed", "skipped", "passed", "errored"].includes(e.kind)).map((e) => e.kind), ["skipped"]);
  tc.dispose();
});

test("a cancelled code-lens run keeps the verdict restored at discovery", async () => {
  const { server, tc, controller } = setup({
    "evalens.discoverCases": () =>
      discovered().map((c) => (c.name === "task-1" ? { ...c, lastVerdict: "PASS" as const, lastDurationSeconds: 2 } : c)),
  });
  await tc.refreshAll();
  tc.lensRunStarted(TASKS_URI, "task-1");
  tc.lensRunFinished(TASKS_URI, "task-1", { ...result("task-1", "SKIP"), uri: TASKS_URI, reason: "cancelled", cancelled: true });
  const run = controller.runs.at(-1) as FakeTestRun;
  assert.deepEqual(run.events.filter((e) => e.kind === "passed").length, 1);
  assert.ok(run.events.some((e) => e.kind === "output" && String(e.text).includes("cancelled; its last result (PASS) stays")));
  tc.lensRunStarted(CASES_URI, "summarises-pdf"); // never run: a cancel says so and leaves no made-up Skipped
  tc.lensRunFinished(CASES_URI, "summarises-pdf", { ...result("summarises-pdf", "SKIP"), reason: "cancelled", cancelled: true });
  assert.notEqual(controller.runs.at(-1), run);
  const second = controller.runs.at(-1) as FakeTestRun;
  assert.deepEqual(second.events.filter((e) => ["skipped", "passed", "failed", "errored"].includes(e.kind)), []);
  assert.ok(second.events.some((e) => e.kind === "output" && String(e.text).includes("cancelled before its first result")));
  assert.ok(server);
  tc.dispose();
});

test("a last run this window did not make (a reload, a terminal's evalens run) is shown once, and marked when stale", async () => {
  let stale: string[] = [];
  let outdated = false;
  let verdict: "ERROR" | "PASS" = "ERROR";
  const { tc, controller } = setup({
    "evalens.discoverCases": () =>
      discovered().map((c) =>
        c.name === "task-1" ? { ...c, lastVerdict: verdict, lastReason: "agent: HTTP 500", lastStale: stale, lastOutdated: outdated } : c,
      ),
  });
  await tc.refreshAll();
  const id = tc.caseItem(TASKS_URI, "task-1")!.id;
  const restored = controller.runs.filter((r) => r.name === "evalens (last runs)");
  assert.equal(restored.length, 1);
  assert.deepEqual(restored[0].events.filter((e) => e.kind === "errored").map((e) => e.id), [id]);
  assert.ok(restored[0].ended && restored[0].persist === false);
  await tc.refreshAll(); // the same last run: not shown again
  assert.equal(controller.runs.filter((r) => r.name === "evalens (last runs)").length, 1);
  stale = ["skill pdf changed"]; // the server's stale check (the lens's "· stale"): marked, not shown again
  await tc.refreshAll();
  assert.equal(controller.runs.filter((r) => r.name === "evalens (last runs)").length, 1);
  // the case as written is what ran: not outdated, its failures stay at their lines
  assert.deepEqual(controller.invalidated, []);
  assert.equal(tc.caseItem(TASKS_URI, "task-1")!.description, "stale: skill pdf changed");
  stale = ["skill pdf changed", "the unit's own text changed"];
  outdated = true; // the case's own text changed: its result is drawn outdated (dimmed), once
  await tc.refreshAll();
  assert.deepEqual(controller.invalidated, [[id]]);
  await tc.refreshAll();
  assert.deepEqual(controller.invalidated, [[id]]);
  assert.equal(controller.runs.filter((r) => r.name === "evalens (last runs)").length, 1);
  // a run of this window's own is shown by that run, not again by the next discovery
  tc.lensRunStarted(TASKS_URI, "task-1");
  tc.lensRunFinished(TASKS_URI, "task-1", { ...result("task-1", "PASS"), uri: TASKS_URI });
  verdict = "PASS";
  stale = [];
  outdated = false;
  await tc.refreshAll();
  assert.equal(controller.runs.filter((r) => r.name === "evalens (last runs)").length, 1);
  assert.equal(tc.caseItem(TASKS_URI, "task-1")!.description, undefined);
  stale = ["the unit's own text changed"]; // edited again after the new run: outdated anew
  outdated = true;
  await tc.refreshAll();
  assert.deepEqual(controller.invalidated, [[id], [id]]);
  tc.dispose();
});

test("a case renamed in place keeps its result: its new item gets the last outcome, a new case gets none", async () => {
  const { tc, controller } = setup();
  await tc.refreshAll();
  const file = CASES_URI;
  tc.lensRunStarted(file, "summarises-pdf");
  tc.lensRunFinished(file, "summarises-pdf", result("summarises-pdf", "FAIL", { failedChecks: [{ check: "contains", message: "no PDF", sentence: "contains: no PDF", range: range(4) }] }));
  const runs = controller.runs.length;
  const renamed = discovered()
    .filter((c) => c.uri === file)
    .map((c) => (c.name === "summarises-pdf" ? { ...c, name: "summary", lastVerdict: "FAIL" as const } : c));
  tc.setFileCases(vscode.Uri.parse(file), renamed);
  assert.equal(controller.runs.length, runs + 1);
  const run = controller.runs.at(-1) as FakeTestRun;
  assert.equal(run.name, "evalens (renamed)");
  assert.equal(run.persist, false);
  const failed = run.events.filter((e) => e.kind === "failed");
  assert.deepEqual(failed.map((e) => e.id), [`${file}#summary`]);
  assert.ok(run.ended);
  // a case added beside the others (nothing renamed) gets no made-up state
  tc.setFileCases(vscode.Uri.parse(file), [...renamed, { ...renamed[0], name: "added", lastVerdict: "PASS" as const }]);
  assert.equal(controller.runs.length, runs + 1);
  tc.dispose();
});

test("cancelling a run says so for the running and the queued cases, marks none Skipped, asks the server to cancel", async () => {
  let release: () => void = () => undefined;
  const { server, tc, controller } = setup(
    {
      "evalens.runCase": (_arg, token) =>
        new Promise((resolve, reject) => {
          release = () => resolve(result("summarises-pdf", "PASS"));
          token?.onCancellationRequested(() => reject(new Error("RequestCancelled")));
        }),
      "evalens.cancelRun": () => null,
    },
    1,
  );
  await tc.refreshAll();
  const cts = new vscode.CancellationTokenSource();
  const profile = controller.profiles[0].handler as (r: vscode.TestRunRequest, t: vscode.CancellationToken) => Promise<void>;
  const done = profile(new vscode.TestRunRequest(tc.allCases()), cts.token);
  await tick();
  cts.cancel();
  await done;
  release();
  const run = controller.runs.at(-1) as FakeTestRun;
  // never run before: no state at all (VS Code keeps showing what it showed), and a "cancelled" line each
  assert.deepEqual(run.events.filter((e) => ["skipped", "passed", "failed", "errored"].includes(e.kind)), []);
  const lines = run.events.filter((e) => e.kind === "output").map((e) => String(e.text));
  for (const item of tc.allCases()) {
    assert.ok(lines.includes(`■ ${item.label}: cancelled before its first result\r\n`), lines.join(""));
  }
  assert.deepEqual(server.calls.find((c) => c.command === "evalens.cancelRun")?.argument, {
    uri: CASES_URI,
    name: "summarises-pdf",
  });
  tc.dispose();
});

test("a code-lens run shows as started, then reports the command's result; its notification is not doubled", async () => {
  const { server, tc, controller } = setup();
  await tc.refreshAll();
  tc.lensRunStarted(CASES_URI, "rejects-empty");
  const run = controller.runs.at(-1) as FakeTestRun;
  assert.equal(run.name, "evalens (code lens)");
  assert.deepEqual(run.events.map((e) => e.kind), ["started"]);
  server.verdictEmitter.fire({ uri: CASES_URI, name: "rejects-empty", verdict: "FAIL", reason: "x" });
  await tick();
  assert.equal(controller.runs.length, 1, "notification during a lens run opens no second run");
  tc.lensRunFinished(CASES_URI, "rejects-empty", result("rejects-empty", "FAIL", { failedChecks: [{ check: "c", message: "m", sentence: "c: m" }] }));
  assert.deepEqual(run.events.filter((e) => e.kind !== "output").map((e) => e.kind), ["started", "failed", "end"]);
  tc.dispose();
});

test("verdict notifications from elsewhere update the Test Explorer, discovering the file when needed", async () => {
  const { server, tc, controller } = setup();
  server.verdictEmitter.fire({
    uri: TASKS_URI,
    name: "task-1",
    verdict: "PASS",
    durationSeconds: 3,
    range: range(5),
  });
  await new Promise((r) => setTimeout(r, 10));
  const run = controller.runs.at(-1) as FakeTestRun;
  assert.ok(run, "a run was created");
  assert.equal(run.persist, false);
  const item = tc.caseItem(TASKS_URI, "task-1")!;
  assert.equal(item.range!.start.line, 5);
  assert.deepEqual(run.events.filter((e) => e.kind === "passed"), [{ kind: "passed", id: item.id, duration: 3000 }]);
  tc.dispose();
});

test("inPool never exceeds its limit and runs everything", async () => {
  let active = 0;
  let peak = 0;
  const seen: number[] = [];
  await inPool([1, 2, 3, 4, 5], 2, async (n) => {
    active++;
    peak = Math.max(peak, active);
    await new Promise((r) => setTimeout(r, 1));
    seen.push(n);
    active--;
  });
  assert.equal(peak, 2);
  assert.deepEqual(seen.sort(), [1, 2, 3, 4, 5]);
  await inPool([], 3, async () => assert.fail());
});

test("cases with a numeric id are labelled by the label discovery gives (their prompt), the id as description", async () => {
  const { tc } = setup({
    "evalens.discoverCases": () => [
      { uri: TASKS_URI, name: "1", label: "Summarise the attached PDF", format: "skill-creator-evals", range: range(2), packageRoot: "/ws/other" },
      { uri: TASKS_URI, name: "task-2", label: "task-2", format: "skill-creator-evals", range: range(8), packageRoot: "/ws/other" },
    ],
  });
  await tc.refreshAll();
  const first = tc.caseItem(TASKS_URI, "1")!;
  assert.equal(first.label, "Summarise the attached PDF");
  assert.equal(first.description, "#1");
  assert.equal(tc.caseItem(TASKS_URI, "task-2")!.description, undefined);
  tc.dispose();
});

test("a run of a file with unsaved edits waits for the save guard; declining runs nothing", async () => {
  const server = new FakeServer({ "evalens.discoverCases": () => discovered(), "evalens.runCase": async (a) => result(String(a.name), "PASS") });
  const asked: string[][] = [];
  let answer = false;
  const tc = new EvalTestController(server, () => DEFAULT_SETTINGS, log, async (uris) => {
    asked.push(uris);
    return answer;
  });
  const controller = tc.controller as unknown as FakeTestController;
  await tc.refreshAll();
  await tc.runItems(tc.allCases().filter((i) => i.uri?.toString().includes("basic.yaml")), false);
  assert.deepEqual(asked, [[CASES_URI]]);
  assert.equal(controller.runs.length, 0);
  assert.equal(server.calls.filter((c) => c.command === "evalens.runCase").length, 0);
  answer = true;
  await tc.runItems(tc.allCases(), false);
  assert.equal(server.calls.filter((c) => c.command === "evalens.runCase").length, 3);
  tc.dispose();
});

test("the Run N×, Run failed and Run stale profiles sit beside Run; each sends what it means", async () => {
  const picks: Record<string, unknown>[] = [];
  const server = new FakeServer({
    "evalens.discoverCases": () => discovered(),
    "evalens.runCase": (arg) =>
      result(String(arg.name), arg.runs ? "FAIL" : "PASS", arg.runs ? {
        state: "FLAKY", reason: "flaky: passed 2/3 runs",
        repeats: { runs: 3, passed: 2, counted: 3, verdicts: ["PASS", "FAIL", "PASS"], passRate: 2 / 3, interval: [0.2077, 0.9385], passHatK: 0 },
      } : {}),
    "evalens.pickUnits": (arg) => {
      picks.push(arg);
      return arg.select === "failed" ? [{ uri: CASES_URI, name: "rejects-empty", reason: "last run: FAIL" }] : [];
    },
  });
  let settings = { ...DEFAULT_SETTINGS, run: { repeats: 3, maxCost: 0, maxTokens: 0 } };
  const tc = new EvalTestController(server, () => settings, log);
  const controller = tc.controller as unknown as FakeTestController;
  assert.deepEqual(controller.profiles.map((p) => [p.label, p.isDefault]), [
    ["Run eval", true], ["Dry run (no agent)", false], ["Run 3×", false], ["Run failed", false], ["Run stale", false],
  ]);
  await tc.refreshAll();
  const handler = (label: string) => controller.profiles.find((p) => p.label === label)!.handler as (r: vscode.TestRunRequest, t: vscode.CancellationToken) => Promise<void>;
  const token = new vscode.CancellationTokenSource().token;
  const runCalls = () => server.calls.filter((c) => c.command === "evalens.runCase").map((c) => c.argument);

  await handler("Run 3×")(new vscode.TestRunRequest([tc.caseItem(CASES_URI, "summarises-pdf")!]), token);
  assert.deepEqual(runCalls(), [{ uri: CASES_URI, name: "summarises-pdf", dryRun: false, runs: 3 }]);
  const [flaky] = (controller.runs.at(-1) as FakeTestRun).events.filter((e) => e.kind === "failed");
  assert.equal(flaky.messages![0].message, "≈ FLAKY: passed 2/3 runs\n2/3 runs passed · pass rate 67% (95% interval 21%–94%) · pass^3 0.00");

  server.calls.length = 0;
  await handler("Run failed")(new vscode.TestRunRequest(undefined), token);  // the whole tree: the server picks
  assert.deepEqual(picks, [{ select: "failed" }]);
  assert.deepEqual(runCalls(), [{ uri: CASES_URI, name: "rejects-empty", dryRun: false }]);
  assert.deepEqual((controller.runs.at(-1) as FakeTestRun).request.include!.map((i) => i.id), [tc.caseItem(CASES_URI, "rejects-empty")!.id]);

  server.calls.length = 0;
  const runsBefore = controller.runs.length;
  await handler("Run stale")(new vscode.TestRunRequest(undefined), token);
  assert.deepEqual(runCalls(), [], "nothing stale: nothing runs");
  assert.equal(controller.runs.length, runsBefore, "and no empty test run is created");
  assert.ok((vscode.window as unknown as { messages: string[] }).messages.includes("No stale evals to run."));

  server.calls.length = 0;  // a budget: every runCase of one Test Explorer run carries the same batch id
  settings = { ...settings, run: { repeats: 3, maxCost: 0.5, maxTokens: 0 } };
  await tc.runItems(tc.allCases(), false);
  const batches = new Set(runCalls().map((a) => a.batch));
  assert.equal(runCalls().length, 3);
  assert.equal(batches.size, 1);
  assert.match(String([...batches][0]), /^vscode-/);
  await tc.runItems(tc.allCases(), false);
  assert.equal(new Set(runCalls().map((a) => a.batch)).size, 2, "the next run is a new batch");
  tc.dispose();
});

test("a lens batch (Run all) is one Test Results run: each verdict, the turns, the full answers and one summary line", async () => {
  const { server, tc, controller } = setup();
  await controller.resolveHandler!(undefined);
  const batch = tc.lensBatchStarted();
  server.runTurnEmitter.fire({ uri: CASES_URI, name: "summarises-pdf", run: 1, seq: 0, kind: "tool", tool: "Write", text: "out.txt" });
  server.verdictEmitter.fire({ uri: CASES_URI, name: "summarises-pdf", verdict: "PASS", durationSeconds: 1 });
  server.verdictEmitter.fire({ uri: CASES_URI, name: "rejects-empty", verdict: "FAIL", reason: "judge said no" });
  await tick();
  tc.lensBatchFinished(batch, [
    result("summarises-pdf", "PASS", { usage: { inputTokens: 10, outputTokens: 2, costUsd: 0.01 } }),
    result("rejects-empty", "FAIL", { failedChecks: [{ check: "contains", message: "missing", sentence: "contains: missing", range: range(11) }], usage: { inputTokens: 5, outputTokens: 1, costUsd: 0.02 } }),
  ]);
  assert.equal(controller.runs.length, 1, "one run for the whole batch");
  const run = controller.runs[0] as FakeTestRun;
  assert.ok(run.ended);
  const outputs = run.events.filter((e) => e.kind === "output").map((e) => String(e.text));
  assert.ok(outputs[0].startsWith("── summarises-pdf: the agent's turns ──"), outputs[0]);
  assert.deepEqual(run.events[0], { kind: "started", id: tc.caseItem(CASES_URI, "summarises-pdf")!.id }, "running from its first turn");
  const summary = outputs[outputs.length - 1];
  assert.match(summary, /^■ evalens: 2 evals · 1 passed · 1 failed · \d+(\.\d)?s · 15 in \/ 3 out tokens · \$0\.0300\r\n$/);
  const failed = run.events.filter((e) => e.kind === "failed");
  assert.equal(failed[failed.length - 1].messages?.[0].message, "contains: missing\n(5 in / 1 out tokens · $0.0200)");
  // the verdict notification gave the state only: VS Code draws no other wording ("judge said no") inline
  assert.deepEqual(failed[0].messages, []);
});

test("a Test Explorer run ends with one summary line; a dry run has none", async () => {
  const { tc, controller } = setup({
    "evalens.runCase": (a) => (a.dryRun ? { ...result(String(a.name), "SKIP"), dryRun: true } : result(String(a.name), a.name === "rejects-empty" ? "ERROR" : "PASS")),
  });
  await controller.resolveHandler!(undefined);
  await tc.runItems(tc.allCases().filter((i) => i.uri?.toString() === CASES_URI), false);
  const lines = (controller.runs[0] as FakeTestRun).events.filter((e) => e.kind === "output").map((e) => String(e.text));
  assert.equal(lines.filter((l) => l.startsWith("■ evalens:")).length, 1);
  assert.match(lines[lines.length - 1], /^■ evalens: 2 evals · 1 passed · 1 errored · /);
  await tc.runItems(tc.allCases(), true);
  const dry = (controller.runs[1] as FakeTestRun).events.filter((e) => e.kind === "output").map((e) => String(e.text));
  assert.ok(!dry.some((l) => l.startsWith("■ evalens:")), "a dry run counts nothing");
});

test("a failed check reads as the server's sentence inline (a line's first message); its diff comes after", async () => {
  // VS Code draws the first message on a line inline, and a diffable one as `actual != expected`: issue 45 saw
  // `✗ != output/summary.md` where every other screen said "the agent did not create output/summary.md"
  const { tc, controller } = setup({
    "evalens.runCase": (a) =>
      result(String(a.name), "FAIL", {
        failedChecks: [
          { check: "files-created", message: "the agent did not create output/summary.md", sentence: "files-created: the agent did not create output/summary.md", range: range(3), expected: "output/summary.md\n", actual: "" },
          { check: "agent-blocked", message: "not blocked", sentence: "agent-blocked: not blocked", range: range(4) },
        ],
      }),
  });
  await controller.resolveHandler!(undefined);
  await tc.runItems([tc.caseItem(CASES_URI, "rejects-empty")!], false);
  const failed = (controller.runs[0] as FakeTestRun).events.find((e) => e.kind === "failed")!;
  const [sentence, plain, diff] = failed.messages!;
  const line = (m: { location?: { range: { start: { line: number } } } }) => m.location?.range.start.line;
  assert.equal(sentence.message, "files-created: the agent did not create output/summary.md");
  assert.equal(sentence.expectedOutput, undefined, "the inline message is never the diff");
  assert.equal(plain.message, "agent-blocked: not blocked");
  assert.equal(plain.expectedOutput, undefined);
  assert.equal(diff.message, `${sentence.message} (Expected / Actual)`);
  assert.equal(diff.expectedOutput, "output/summary.md\n");
  assert.equal(diff.actualOutput, "");
  assert.equal(line(diff), line(sentence), "the diff is at the check's line, after its sentence");
});

test("cases carry tags for the Test Explorer filter: format, skill and the engine of their last run", async () => {
  const server = new FakeServer({
    "evalens.discoverCases": () => [
      { uri: CASES_URI, name: "summarises-pdf", format: "uaaps-case", range: range(1), packageRoot: PKG, skill: "pdf-report", engine: "claude-code" },
      { uri: TASKS_URI, name: "task-1", format: "skilljack-tasks", range: range(3), packageRoot: "/ws/other" },
    ],
  });
  const tc = new EvalTestController(server, () => DEFAULT_SETTINGS, log);
  await tc.refreshAll();
  assert.deepEqual(tc.caseItem(CASES_URI, "summarises-pdf")!.tags.map((t) => t.id), ["format:uaaps-case", "skill:pdf-report", "engine:claude-code"]);
  assert.deepEqual(tc.caseItem(TASKS_URI, "task-1")!.tags.map((t) => t.id), ["format:skilljack-tasks"]);
});

test("a batch lens's units are the server's pick, named as the Test Explorer names them", async () => {
  const { tc, server, controller } = setup({
    "evalens.pickUnits": (a) => (a.select === "stale" ? [{ uri: CASES_URI, name: "rejects-empty", reason: "stale" }] : [{ uri: CASES_URI, name: "summarises-pdf", reason: "" }, { uri: CASES_URI, name: "rejects-empty", reason: "" }]),
  });
  await controller.resolveHandler!(undefined);
  const stale = await tc.lensBatchUnits([{ uri: CASES_URI, select: "stale" }]);
  assert.deepEqual(stale?.map((u) => u.label), ["rejects-empty"]);
  const all = await tc.lensBatchUnits([{ uri: CASES_URI, name: "*" }]);
  assert.equal(all?.length, 2);
  assert.deepEqual(server.calls.filter((c) => c.command === "evalens.pickUnits").map((c) => c.argument), [
    { uri: CASES_URI, select: "stale" },
    { uri: CASES_URI },
  ]);
  assert.ok(all?.every((u) => u.packageRoot !== ""), "each unit knows its package (the question counts them)");
  tc.dispose();
});
