/** Turns server results into what the Testing UI shows; no VS Code types, so it is unit-tested directly. */
import type { CaseResult, LspRange, Verdict, VerdictChangedParams } from "./protocol";

export type TestOutcome = "passed" | "failed" | "errored" | "skipped";

export interface OutcomeMessage {
  text: string;
  /** Where the message belongs; undefined means the case's own range. */
  range?: LspRange;
  /** Both set: the failure peek shows them as a diff (Expected / Actual). */
  expected?: string;
  actual?: string;
}

export interface Outcome {
  outcome: TestOutcome;
  durationMs?: number;
  messages: OutcomeMessage[];
  output: string;
}

export function outcomeOf(verdict: Verdict | string): TestOutcome {
  switch (verdict) {
    case "PASS":
      return "passed";
    case "FAIL":
      return "failed";
    case "SKIP":
      return "skipped";
    default:
      return "errored";
  }
}

function durationMs(seconds: number | null | undefined): number | undefined {
  return typeof seconds === "number" && Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : undefined;
}

export function formatDuration(seconds: number | null | undefined): string {
  if (typeof seconds !== "number") {
    return "";
  }
  return seconds < 10 ? `${seconds.toFixed(1)}s` : `${Math.round(seconds)}s`;
}

/** Failure messages: the judge's reason, each failed check at its own range, or the error. */
export function outcomeFromResult(result: CaseResult): Outcome {
  const outcome = outcomeOf(result.verdict);
  const messages: OutcomeMessage[] = [];
  if (outcome === "errored") {
    messages.push({ text: result.error || result.reason || `run ended with verdict ${result.verdict}` });
  } else if (outcome === "failed") {
    if (result.judge && result.judge.verdict !== "PASS" && result.judge.reason) {
      const model = result.judge.model ? ` (${result.judge.model})` : "";
      messages.push({ text: `Judge${model}: ${result.judge.reason}` });
    }
    // Each failed check in the server's one sentence. VS Code draws a line's first message inline, and a message
    // with Expected / Actual as `actual != expected` (`✗ != output/summary.md`), so the diff comes second, on
    // its own message: inline and in the peek the check reads as the hover, the run page and Neovim say it.
    const diffs: OutcomeMessage[] = [];
    for (const check of result.failedChecks ?? []) {
      const range = check.range ?? undefined;
      messages.push({ text: check.sentence, range });
      if (check.expected != null && check.actual != null) {
        diffs.push({ text: `${check.sentence} (Expected / Actual)`, range, expected: check.expected, actual: check.actual });
      }
    }
    messages.push(...diffs);
    if (messages.length === 0) {
      messages.push({ text: result.reason || "FAIL" });
    }
    if (result.state === "FLAKY") {
      // the runner's reason already starts "flaky: " ("≈ FLAKY: flaky: passed 2/5 runs" said it twice)
      const why = (result.reason ?? "").replace(/^flaky:\s*/i, "");
      messages.unshift({ text: `≈ FLAKY: ${why || "passed in some runs and failed in others"}` });
    }
    const repeated = repeatsText(result.repeats);
    if (repeated) {
      messages[0] = { ...messages[0], text: `${messages[0].text}\n${repeated}` };
    }
  }
  if (result.stale && result.stale.length > 0) {
    messages.push({ text: `Stale: ${result.stale.join("; ")} since this run` });
  }
  const spent = usageText(result.usage);
  if (spent && messages.length > 0) {
    messages[0] = { ...messages[0], text: `${messages[0].text}\n(${spent})` };
  }
  if (result.replayed && messages.length > 0) {
    // a verdict answered from cassettes is never read as a live run's (the server's wording, as the lens's)
    messages[0] = { ...messages[0], text: `${messages[0].text}\n${result.replayed}` };
  }
  return { outcome, durationMs: durationMs(result.durationSeconds), messages, output: resultOutput(result) };
}

/** Outcome of a run that only reached us as an `evalens/verdictChanged` notification. */
export function outcomeFromNotification(p: VerdictChangedParams): Outcome {
  const outcome = outcomeOf(p.verdict);
  const messages = outcome === "failed" || outcome === "errored" ? [{ text: p.reason || p.verdict }] : [];
  const line = `${p.verdict} ${p.name}${p.durationSeconds != null ? ` (${formatDuration(p.durationSeconds)})` : ""}`;
  return {
    outcome,
    durationMs: durationMs(p.durationSeconds),
    messages,
    output: `${line}${p.reason ? `: ${p.reason}` : ""}\r\n`,
  };
}

function percent(x: number): string {
  return `${Math.round(x * 100)}%`;
}

/** `2/3 runs passed · pass rate 67% (95% interval 21%–94%) · pass^3 0.00`, or "" for one run. */
export function repeatsText(r: CaseResult["repeats"]): string {
  if (!r || r.runs < 2) {
    return "";
  }
  const apart = r.runs - r.counted;
  const parts = [`${r.passed}/${r.counted} runs passed${apart > 0 ? ` (+${apart} errored or skipped)` : ""}`];
  if (r.passRate != null) {
    const interval = r.interval && r.interval.length === 2 ? ` (95% interval ${percent(r.interval[0])}–${percent(r.interval[1])})` : "";
    parts.push(`pass rate ${percent(r.passRate)}${interval}`);
  }
  if (r.passHatK != null) {
    parts.push(`pass^${r.counted} ${r.passHatK.toFixed(2)}`);
  }
  return parts.join(" · ");
}

/** `1,204 in / 88 out tokens · $0.0123` (cost only where the agent CLI reported one), or "". */
export function usageText(usage: CaseResult["usage"]): string {
  if (!usage || (usage.inputTokens == null && usage.outputTokens == null)) {
    return "";
  }
  const n = (v?: number | null) => (v ?? 0).toLocaleString("en-US");
  const tokens = `${n(usage.inputTokens)} in / ${n(usage.outputTokens)} out tokens`;
  if (usage.costUsd == null) {
    return tokens;
  }
  return `${tokens} · $${usage.costUsd < 1 ? usage.costUsd.toFixed(4) : usage.costUsd.toFixed(2)}`;
}

/** Text for the test output terminal (CRLF line ends, as the Testing API wants). */
export function resultOutput(r: CaseResult): string {
  const lines: string[] = [];
  const who = [r.engine, r.model].filter(Boolean).join(" / ");
  const spent = usageText(r.usage);
  lines.push(
    // the state over repeated runs (FLAKY, BUDGET) when there is one: a FLAKY case is not printed as FAIL
    `${r.state ?? r.verdict} ${r.name}${r.durationSeconds != null ? ` (${formatDuration(r.durationSeconds)})` : ""}` +
      `${who ? ` [${who}]` : ""}${spent ? ` · ${spent}` : ""}${r.replayed ? ` · ${r.replayed}` : ""}`,
  );
  if (r.reason) {
    lines.push(`  reason: ${r.reason}`);
  }
  const repeated = repeatsText(r.repeats);
  if (repeated) {
    lines.push(`  runs: ${repeated} [${r.repeats!.verdicts.join(", ")}]`);
  }
  if (r.judge?.reason) {
    lines.push(`  judge${r.judge.model ? ` ${r.judge.model}` : ""}: ${r.judge.verdict} ${r.judge.reason}`);
  }
  for (const c of r.failedChecks ?? []) {
    lines.push(`  failed check ${c.sentence}`);
  }
  if (r.error) {
    lines.push(`  error: ${r.error}`);
  }
  if (r.outputSnippet) {
    lines.push("  output:", ...r.outputSnippet.split(/\r?\n/).map((l) => `    ${l}`));
  }
  if (r.reportPath) {
    lines.push(`  report: ${r.reportPath}`);
  }
  return lines.join("\r\n") + "\r\n";
}

const OUTCOME_WORD: Record<TestOutcome, string> = { passed: "PASS", failed: "FAIL", errored: "ERROR", skipped: "SKIP" };

/** The Test Results line for a cancelled case: that it was cancelled, and what it keeps. */
export function cancelledLine(label: string, dryRun: boolean, last?: TestOutcome): string {
  if (dryRun) {
    return `■ ${label}: dry run cancelled\r\n`;
  }
  return last
    ? `■ ${label}: cancelled; its last result (${OUTCOME_WORD[last]}) stays\r\n`
    : `■ ${label}: cancelled before its first result\r\n`;
}

/** The closing line of a batch in Test Results: how many units, each outcome counted, the wall time and what the
 * agents spent (`■ evalens: 4 evals · 2 passed · 1 failed · 1 errored · 42s · 1,204 in / 88 out tokens · $0.0123`). */
export function batchSummary(outcomes: readonly TestOutcome[], seconds: number, usage?: CaseResult["usage"]): string {
  const counts = new Map<TestOutcome, number>();
  outcomes.forEach((o) => counts.set(o, (counts.get(o) ?? 0) + 1));
  const parts = [`${outcomes.length} eval${outcomes.length === 1 ? "" : "s"}`];
  for (const o of ["passed", "failed", "errored", "skipped"] as const) {
    if (counts.get(o)) {
      parts.push(`${counts.get(o)} ${o}`);
    }
  }
  parts.push(formatDuration(seconds));
  const spent = usageText(usage);
  if (spent) {
    parts.push(spent);
  }
  return `■ evalens: ${parts.join(" · ")}\r\n`;
}

/** The usage of several results added up (cost only when every result that used tokens reported one). */
export function addUsage(results: readonly CaseResult[]): CaseResult["usage"] {
  const used = results.map((r) => r.usage).filter((u): u is NonNullable<CaseResult["usage"]> => !!u);
  if (used.length === 0) {
    return undefined;
  }
  const sum = (f: (u: NonNullable<CaseResult["usage"]>) => number | null | undefined) => used.reduce((a, u) => a + (f(u) ?? 0), 0);
  const costs = used.every((u) => u.costUsd != null);
  return { inputTokens: sum((u) => u.inputTokens), outputTokens: sum((u) => u.outputTokens), ...(costs ? { costUsd: sum((u) => u.costUsd) } : {}) };
}
