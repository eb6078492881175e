import { strict as assert } from "node:assert";
import { test } from "node:test";
import { describeOverrides, OverridesStore, parseOverride, withOverrides } from "../src/overrides";
import { Commands, RunEntry } from "../src/protocol";
import { comparable, describeFilter, runDescription } from "../src/runsView";

const URI = "file:///ws/pkg/evals/cases/a.yaml";
const run = (over: Partial<RunEntry> = {}): RunEntry => ({
  name: "a",
  verdict: "PASS",
  timestamp: "2026-01-03T10:00:00Z",
  engine: "claude-code",
  model: "sonnet",
  uri: URI,
  reportPath: "/ws/pkg/evals/reports/r1.json",
  ...over,
});

test("overrides are added to run commands only, and the command's own values win", () => {
  const o = { engine: "codex", model: "gpt-5", runs: 3, maxCost: 0.5 };
  assert.deepEqual(withOverrides(Commands.runCase, { uri: URI, name: "a" }, o), { uri: URI, name: "a", ...o });
  assert.deepEqual(withOverrides(Commands.runAll, { uri: URI, runs: 5 }, o), { ...o, uri: URI, runs: 5 });
  assert.deepEqual(withOverrides(Commands.listRuns, { uri: URI }, o), { uri: URI });
  assert.deepEqual(withOverrides(Commands.runFile, { uri: URI }, { runs: 1 }), { uri: URI });
  assert.equal(describeOverrides(o), "engine codex · model gpt-5 · 3 runs · budget $0.5");
  assert.equal(describeOverrides({}), "none");
});

test("an override typed by the user is parsed or refused with the reason", () => {
  assert.deepEqual(parseOverride("runs", "3"), { value: 3 });
  assert.ok(parseOverride("runs", "0").error);
  assert.deepEqual(parseOverride("maxCost", "$0.25"), { value: 0.25 });
  assert.ok(parseOverride("maxCost", "-1").error);
  assert.deepEqual(parseOverride("model", "  "), {}); // empty: back to the settings
});

test("overrides are remembered in the workspace's state, an empty set removes them", async () => {
  const data = new Map<string, unknown>();
  const memento = {
    get: <T>(k: string) => data.get(k) as T | undefined,
    update: async (k: string, v: unknown) => void (v === undefined ? data.delete(k) : data.set(k, v)),
    keys: () => [...data.keys()],
  };
  const store = new OverridesStore(memento as never);
  await store.set({ model: "haiku", engine: undefined });
  assert.deepEqual(new OverridesStore(memento as never).get(), { model: "haiku" });
  await store.set({});
  assert.equal(data.size, 0);
});

test("a run reads as its verdict, engine, model and time; two runs compare only when they are one unit's", () => {
  assert.equal(runDescription(run({ state: "FLAKY" })), "FLAKY · claude-code · sonnet · 2026-01-03 10:00");
  assert.equal(runDescription(run({ reportPath: undefined, interrupted: true, model: undefined })), "PASS · claude-code · 2026-01-03 10:00 · interrupted");
  assert.ok(comparable(run(), run({ reportPath: "/ws/pkg/evals/reports/r2.json" })));
  assert.ok(!comparable(run(), run({ name: "b", reportPath: "/r2.json" })));
  assert.ok(!comparable(run(), run({ reportPath: undefined })));
  assert.equal(describeFilter({ verdicts: ["FAIL", "ERROR"], engine: "codex", since: "2026-01-02" }), "FAIL|ERROR · codex · since 2026-01-02");
});

test("a unit cut short by a cancel reads as cancelled, never as the ERROR its report records", () => {
  const cut = runDescription(run({ verdict: "ERROR", interrupted: true, cancelled: true }));
  assert.equal(cut, "■ cancelled · claude-code · sonnet · 2026-01-03 10:00");
  assert.ok(!cut.includes("ERROR") && !cut.includes("PASS"));
});
