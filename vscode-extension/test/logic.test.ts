import { strict as assert } from "node:assert";
import { test } from "node:test";
import { caseAtLine } from "../src/cases";
import {
  documentSelectorFor,
  fileKinds,
  globToRegExp,
  isEvalFile,
  publishedFileKinds,
  setFileKinds,
  watcherGlobFor,
} from "../src/documentSelector";
import { BUILTIN_FILE_KINDS } from "../src/fileKinds.generated";
import { FileKindsFeature } from "../src/fileKindsFeature";
import { lensRunTarget } from "../src/protocol";
import { outcomeFromNotification, outcomeFromResult, repeatsText, resultOutput, usageText } from "../src/results";
import { restoredTarget, webviewHtml, withRestoreState } from "../src/runView";
import { looksLikePython, resolveServerCommand } from "../src/serverCommand";
import { configurationValue, DEFAULT_SETTINGS, isEvalensSection, needsRestart, readSettings, toWire } from "../src/settings";
import { statusView } from "../src/statusBar";
import { range } from "./support/fakeServer";

const settings = (over: Record<string, unknown> = {}) =>
  readSettings({ get: <T>(key: string) => over[key] as T | undefined });

test("readSettings fills defaults and drops invalid values", () => {
  assert.deepEqual(settings(), DEFAULT_SETTINGS);
  const s = settings({
    engine: "codex",
    timeout: -4,
    maxParallelRuns: 3.7,
    "server.path": "  /opt/venv/bin/python ",
    "server.args": ["--log", 3, "x"],
    apiKeyEnvVars: ["ANTHROPIC_API_KEY", "not a name", "MY_KEY"],
  });
  assert.equal(s.engine, "codex");
  assert.equal(s.timeout, 0);
  assert.equal(s.maxParallelRuns, 3);
  assert.deepEqual(s.server, { path: "/opt/venv/bin/python", args: ["--log", "x"] });
  assert.deepEqual(s.apiKeyEnvVars, ["ANTHROPIC_API_KEY", "MY_KEY"]);
});

test("wire settings send null for 'use the eval config'", () => {
  assert.deepEqual(toWire(settings()), {
    engine: null,
    judge: null,
    timeout: null,
    maxParallelRuns: 2,
    apiKeyEnvVars: ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"],
    server: { path: "", args: [] },
    rules: {},
    configurationPreference: "editorFirst",
    skillProfile: "auto",
    run: { repeats: 5, maxCost: null, maxTokens: null },
    runOverrides: { engine: null, model: null, maxCost: null },
  });
  const w = toWire(settings({ engine: "claude-code", judge: " claude-haiku-4-5 ", timeout: 90 }));
  assert.equal(w.engine, "claude-code");
  assert.equal(w.judge, "claude-haiku-4-5");
  assert.equal(w.timeout, 90);
});

test("rule levels and the configuration preference travel to the server", () => {
  const s = settings({ rules: { "unknown-key": "off", "schema-*": "hint", bad: 3 }, configurationPreference: "editorOnly" });
  assert.deepEqual(toWire(s).rules, { "unknown-key": "off", "schema-*": "hint" });
  assert.equal(toWire(s).configurationPreference, "editorOnly");
  assert.deepEqual(configurationValue("evalens.rules", s), { "unknown-key": "off", "schema-*": "hint" });
  assert.equal(settings({ configurationPreference: "nonsense", rules: ["x"] }).configurationPreference, "editorFirst");
  assert.deepEqual(settings({ rules: ["x"] }).rules, {});
});

test("evalens.skillProfile is a setting the server gets (issue 45 #10); an unknown value falls back to auto", () => {
  assert.equal(toWire(settings({ skillProfile: "claude-code" })).skillProfile, "claude-code");
  assert.equal(configurationValue("evalens.skillProfile", settings({ skillProfile: "uaaps" })), "uaaps");
  assert.equal(settings({ skillProfile: "claude" }).skillProfile, "auto");
});

test("workspace/configuration answers the evalens section and its sub-keys", () => {
  const s = settings({ engine: "codex", maxParallelRuns: 4, "server.args": ["-v"] });
  assert.deepEqual(configurationValue("evalens", s), toWire(s));
  assert.equal(configurationValue("evalens.engine", s), "codex");
  assert.equal(configurationValue("evalens.maxParallelRuns", s), 4);
  assert.deepEqual(configurationValue("evalens.server.args", s), ["-v"]);
  assert.equal(configurationValue("evalens.nope", s), null);
  // the remembered run overrides travel with the section, so the server judges staleness against the next run
  const o = { engine: "codex", model: "gpt-x", runs: 3, maxCost: 0.5 };
  assert.deepEqual(configurationValue("evalens.runOverrides", s, o), { engine: "codex", model: "gpt-x", maxCost: 0.5 });
  assert.deepEqual(toWire(s, { maxCost: 0 }).runOverrides, { engine: null, model: null, maxCost: 0 });
  assert.equal(isEvalensSection("evalens"), true);
  assert.equal(isEvalensSection("evalens.engine"), true);
  assert.equal(isEvalensSection("evalensx"), false);
  assert.equal(isEvalensSection(undefined), false);
});

test("only server path, args and key names need a restart", () => {
  const a = settings();
  assert.equal(needsRestart(a, settings({ engine: "codex", timeout: 20 })), false);
  assert.equal(needsRestart(a, settings({ "server.path": "/x/evalens" })), true);
  assert.equal(needsRestart(a, settings({ "server.args": ["-v"] })), true);
});

test("server command: setting, then the Python extension, then python3", () => {
  assert.deepEqual(resolveServerCommand(settings({ "server.path": "/venv/bin/evalens", "server.args": ["-v"] }), "/py"), {
    command: "/venv/bin/evalens",
    args: ["lsp", "-v"],
    source: "setting",
  });
  assert.deepEqual(resolveServerCommand(settings({ "server.path": "/venv/bin/python3.12" }), "/py"), {
    command: "/venv/bin/python3.12",
    args: ["-I", "-m", "evalens", "lsp"],
    source: "setting",
    python: "/venv/bin/python3.12",
  });
  assert.equal(resolveServerCommand(settings(), "/home/u/.venv/bin/python").command, "/home/u/.venv/bin/python");
  assert.equal(resolveServerCommand(settings(), "/home/u/.venv/bin/python").source, "python-extension");
  assert.deepEqual(resolveServerCommand(settings(), undefined), {
    command: "python3",
    args: ["-I", "-m", "evalens", "lsp"],
    source: "path",
    python: "python3",
  });
});

test("looksLikePython", () => {
  for (const p of ["python", "/usr/bin/python3", "python3.11", "C:\\Py\\python.exe", "pypy3"]) {
    assert.equal(looksLikePython(p), true, p);
  }
  for (const p of ["evalens", "/venv/bin/evalens", "python-evalens", "pythonx"]) {
    assert.equal(looksLikePython(p), false, p);
  }
});

test("document selector covers every eval file kind and nothing else", () => {
  const yes = [
    "/w/pkg/evals/eval-config.json",
    "/w/pkg/evals/cases/basic.yaml",
    "/w/pkg/evals/cases/deep/x.yml",
    "/w/tasks.yaml",
    "/w/a/eval.config.yaml",
    "/w/skills/x/evals.json",
    "/w/x/trigger-evals.json",
    "/w/x/evals/grading.json",
    "/w/ws/grading.json",
    "/w/ws/history.json",
    "/w/skills/pdf/SKILL.md",
    "/w/rule-creator/bash-tools/evals.json",
    "/w/tasks/one/task.md",
  ];
  const no = ["/w/README.md", "/w/pkg/cases/basic.yaml", "/w/package.json", "/w/skill.md.bak", "/w/tasks.yaml.orig"];
  yes.forEach((p) => assert.equal(isEvalFile(p), true, p));
  no.forEach((p) => assert.equal(isEvalFile(p), false, p));
  assert.ok(globToRegExp("**/x.{a,b}").test("x.b"));
});

test("the kinds a server publishes at initialize replace the selector in place", () => {
  assert.equal(publishedFileKinds(undefined), undefined);
  assert.equal(publishedFileKinds({ experimental: { evalens: { fileKinds: "no" } } }), undefined);
  const published = [{ glob: "**/only.json", languageId: "json", formats: ["x"] }];
  const selector = documentSelectorFor(BUILTIN_FILE_KINDS);
  const logged: string[] = [];
  const feature = new FileKindsFeature(selector, { info: (m: string) => void logged.push(m) });
  try {
    feature.preInitialize({ experimental: { evalens: { fileKinds: published } } });
    assert.deepEqual(selector, [
      { scheme: "file", pattern: "**/only.json" },
      { scheme: "untitled", pattern: "**/only.json" },
    ]);
    assert.deepEqual(fileKinds(), published);
    assert.equal(isEvalFile("/w/a/only.json"), true);
    assert.equal(isEvalFile("/w/skills/pdf/SKILL.md"), false);
    assert.equal(watcherGlobFor(published), "{**/only.json}");
    assert.equal(logged.length, 1);
  } finally {
    setFileKinds(BUILTIN_FILE_KINDS);
  }
});

test("caseAtLine picks the case whose name line is at or above the cursor", () => {
  const cases = [{ name: "b", range: range(10) }, { name: "a", range: range(2) }, { name: "c", range: range(20) }];
  assert.equal(caseAtLine(cases, 0), undefined);
  assert.equal(caseAtLine(cases, 2)?.name, "a");
  assert.equal(caseAtLine(cases, 15)?.name, "b");
  assert.equal(caseAtLine(cases, 99)?.name, "c");
  assert.equal(caseAtLine([{ name: "only", range: range(5) }], 0)?.name, "only");
});

test("lens arguments: one object, or positional uri and name", () => {
  assert.deepEqual(lensRunTarget([{ uri: "file:///a.yaml", name: "x", extra: 1 }]), {
    uri: "file:///a.yaml",
    name: "x",
    dryRun: false,
  });
  assert.equal(lensRunTarget([{ uri: "file:///a.yaml", name: "x", dryRun: true }])?.dryRun, true);
  assert.equal(lensRunTarget([{ uri: "file:///a.yaml", name: "x", runs: 5 }])?.runs, 5); // the "Run 5×" lens
  assert.deepEqual(lensRunTarget(["file:///a.yaml", "x"]), { uri: "file:///a.yaml", name: "x", dryRun: false });
  assert.equal(lensRunTarget([{ uri: "file:///a.yaml" }]), undefined);
  assert.equal(lensRunTarget([]), undefined);
});

test("a FAIL result carries the judge reason and each failed check at its range", () => {
  const o = outcomeFromResult({
    uri: "file:///a.yaml",
    name: "x",
    verdict: "FAIL",
    reason: "2 checks failed",
    durationSeconds: 1.234,
    judge: { verdict: "FAIL", reason: "the summary misses the totals", model: "claude-haiku" },
    failedChecks: [
      { check: "contains", value: "total", message: "output does not contain 'total'", sentence: "contains: output does not contain 'total'", range: range(7, 4, 20) },
      { check: "exit_code", message: "exit code 1 != 0", sentence: "exit_code: exit code 1 != 0" },
    ],
    engine: "claude",
    model: "claude-opus",
    outputSnippet: "line 1\nline 2",
    reportPath: "/r/report.json",
  });
  assert.equal(o.outcome, "failed");
  assert.equal(o.durationMs, 1234);
  assert.deepEqual(
    o.messages.map((m) => m.text),
    ["Judge (claude-haiku): the summary misses the totals", "contains: output does not contain 'total'", "exit_code: exit code 1 != 0"],
  );
  assert.deepEqual(o.messages[1].range, range(7, 4, 20));
  assert.equal(o.messages[2].range, undefined);
  assert.match(o.output, /FAIL x \(1\.2s\) \[claude \/ claude-opus\]\r\n/);
  assert.match(o.output, /    line 2\r\n/);
  assert.match(o.output, /report: \/r\/report\.json/);
});

test("PASS, SKIP and ERROR outcomes", () => {
  assert.equal(outcomeFromResult({ uri: "u", name: "n", verdict: "PASS", durationSeconds: 2 }).outcome, "passed");
  assert.deepEqual(outcomeFromResult({ uri: "u", name: "n", verdict: "PASS" }).messages, []);
  const flaky = outcomeFromResult({ uri: "u", name: "n", verdict: "FAIL", state: "FLAKY", reason: "flaky: passed 2/3 runs" });
  assert.equal(flaky.outcome, "failed");
  assert.equal(flaky.messages[0].text, "≈ FLAKY: passed 2/3 runs"); // not "flaky: " twice
  const stale = outcomeFromResult({ uri: "u", name: "n", verdict: "PASS", stale: ["skill pdf changed"] });
  assert.deepEqual(stale.messages, [{ text: "Stale: skill pdf changed since this run" }]);
  assert.equal(outcomeFromResult({ uri: "u", name: "n", verdict: "SKIP" }).outcome, "skipped");
  const err = outcomeFromResult({ uri: "u", name: "n", verdict: "ERROR", error: "claude not found" });
  assert.equal(err.outcome, "errored");
  assert.deepEqual(err.messages, [{ text: "claude not found" }]);
  const failNoDetail = outcomeFromResult({ uri: "u", name: "n", verdict: "FAIL", reason: "judge said no" });
  assert.deepEqual(failNoDetail.messages, [{ text: "judge said no" }]);
  const n = outcomeFromNotification({ uri: "u", name: "n", verdict: "FAIL", reason: "nope", durationSeconds: 12.4 });
  assert.equal(n.outcome, "failed");
  assert.equal(n.durationMs, 12400);
  assert.deepEqual(n.messages, [{ text: "nope" }]);
  assert.equal(resultOutput({ uri: "u", name: "n", verdict: "PASS" }), "PASS n\r\n");
});

test("status bar text follows server state and running evals", () => {
  assert.equal(statusView("running", 0).text, "$(beaker) evalens");
  assert.equal(statusView("running", 2).text, "$(sync~spin) evalens: 2 running");
  assert.equal(statusView("failed", 0).error, true);
  assert.equal(statusView("notInstalled", 0).error, true);
  assert.match(statusView("starting", 0).text, /loading~spin/);
});

test("tokens and cost reach the output line and the first failure message; no cost is not $0", () => {
  const usage = { inputTokens: 1204, outputTokens: 88, costUsd: 0.0123 };
  assert.equal(usageText(usage), "1,204 in / 88 out tokens · $0.0123");
  assert.equal(usageText({ inputTokens: 5, outputTokens: 1 }), "5 in / 1 out tokens");
  assert.equal(usageText(undefined), "");
  const out = resultOutput({ uri: "u", name: "n", verdict: "PASS", durationSeconds: 2, usage });
  assert.equal(out.split("\r\n")[0], "PASS n (2.0s) · 1,204 in / 88 out tokens · $0.0123");
  const failed = outcomeFromResult({ uri: "u", name: "n", verdict: "FAIL", reason: "no", usage });
  assert.equal(failed.messages[0].text, "no\n(1,204 in / 88 out tokens · $0.0123)");
});

test("a replayed verdict says so in the output line and the failure peek, in the server's words; a live one does not", () => {
  const replayed = "↺ replayed (2 of 3 requests, 1 live)";
  const pass = outcomeFromResult({ uri: "u", name: "n", verdict: "PASS", durationSeconds: 2, replayed });
  assert.equal(pass.output.split("\r\n")[0], `PASS n (2.0s) · ${replayed}`);
  const failed = outcomeFromResult({ uri: "u", name: "n", verdict: "FAIL", reason: "no", replayed });
  assert.equal(failed.messages[0].text, `no\n${replayed}`);
  const errored = outcomeFromResult({ uri: "u", name: "n", verdict: "ERROR", error: "replay diverged: request 3", replayed });
  assert.equal(errored.messages[0].text, `replay diverged: request 3\n${replayed}`);
  const live = outcomeFromResult({ uri: "u", name: "n", verdict: "FAIL", reason: "no" });
  assert.ok(!live.output.includes("↺") && !live.messages[0].text.includes("↺"));
});

test("the run page gets a CSP that runs only its own nonced script", () => {
  const page = '<!doctype html><html><head><title>t</title></head><body><pre>&lt;script&gt;</pre><script>go()</script></body></html>';
  const html = webviewHtml(page, "N0NCE", "vscode-resource:");
  assert.ok(html.includes(`<head><meta http-equiv="Content-Security-Policy" content="default-src 'none';`));
  assert.ok(html.includes("script-src 'nonce-N0NCE';"));
  assert.ok(html.includes('<script nonce="N0NCE">go()</script>'));
  assert.equal((html.match(/<script/g) ?? []).length, 1);
});

test("evalens.run.* settings: repeats, and budgets where 0 means no limit", () => {
  const s = settings({ "run.repeats": 3.9, "run.maxCost": 0.25, "run.maxTokens": -5 });
  assert.deepEqual(s.run, { repeats: 3, maxCost: 0.25, maxTokens: 0 });
  assert.deepEqual(toWire(s).run, { repeats: 3, maxCost: 0.25, maxTokens: null });
  assert.deepEqual(configurationValue("evalens.run", s), { repeats: 3, maxCost: 0.25, maxTokens: null });
  assert.equal(settings({ "run.repeats": 1000 }).run.repeats, 100);
});

test("a repeated unit's Test Explorer message says k/N, the pass rate and its interval", () => {
  const repeats = { runs: 3, passed: 2, counted: 3, verdicts: ["PASS", "FAIL", "PASS"] as ("PASS" | "FAIL")[], passRate: 2 / 3, interval: [0.2077, 0.9385], passHatK: 0 };
  assert.equal(repeatsText(repeats), "2/3 runs passed · pass rate 67% (95% interval 21%–94%) · pass^3 0.00");
  assert.equal(repeatsText({ ...repeats, runs: 4, verdicts: [...repeats.verdicts, "ERROR"] }).split(" · ")[0], "2/3 runs passed (+1 errored or skipped)");
  assert.equal(repeatsText(undefined), "");
  const o = outcomeFromResult({ uri: "file:///a.yaml", name: "wobbly", verdict: "FAIL", state: "FLAKY", reason: "flaky: passed 2/3 runs", repeats });
  assert.equal(o.outcome, "failed");
  assert.equal(o.messages[0].text, "≈ FLAKY: passed 2/3 runs\n2/3 runs passed · pass rate 67% (95% interval 21%–94%) · pass^3 0.00");
  assert.match(o.output, /runs: 2\/3 runs passed .* \[PASS, FAIL, PASS\]/);
  assert.match(o.output, /^FLAKY wobbly/); // the terminal says FLAKY, not FAIL
  const passed = outcomeFromResult({ uri: "file:///a.yaml", name: "steady", verdict: "PASS", repeats: { ...repeats, passed: 3, passRate: 1, verdicts: ["PASS", "PASS", "PASS"], passHatK: 1 } });
  assert.equal(passed.outcome, "passed");
  assert.match(passed.output, /runs: 3\/3 runs passed · pass rate 100%/);
});

test("a run page keeps its target as webview state, which a reload hands back to the serializer", () => {
  const target = { uri: "file:///ws/evals/cases/01.yaml", name: "x</script><b>", reportPath: "/ws/r.json" };
  const page = withRestoreState("<html><head></head><body><h1>run</h1></body></html>", target);
  const script = /<script>acquireVsCodeApi\(\)\.setState\((.*)\);<\/script><\/body>/.exec(page);
  assert.ok(script, page);
  assert.ok(!script[1].includes("</script>"), script[1]); // a name cannot close the script
  const state = JSON.parse(script[1]) as unknown;
  assert.deepEqual(restoredTarget(state), target);
  assert.ok(webviewHtml(page, "n0nce").includes('<script nonce="n0nce">acquireVsCodeApi()'));
  assert.deepEqual(restoredTarget({ target: { reportPath: "/ws/r.json", compare: true, againstReportPath: "/ws/q.json" } }), {
    uri: undefined,
    name: undefined,
    reportPath: "/ws/r.json",
    againstReportPath: "/ws/q.json",
    compare: true,
  });
  assert.equal(restoredTarget(undefined), undefined); // a page from before state was kept: not restored
  assert.equal(restoredTarget({ target: { name: "x" } }), undefined);
});
