/** The evalens server's custom commands and notifications (see vscode-extension/README.md, "Server contract").
 * Mirrors server/wire.py model by model (same names, same fields, same optional ones);
 * tests/unit/test_wire.py fails when they drift. */

export interface LspPosition {
  line: number;
  character: number;
}
export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

/** One file kind the server handles (`capabilities.experimental.evalens.fileKinds` of the initialize result;
 * declared in evalens/core/kinds.py). `formats` empty: a file there is claimed by its content. */
export interface FileKind {
  glob: string;
  languageId: string;
  formats: string[];
}

export type Verdict = "PASS" | "FAIL" | "SKIP" | "ERROR";

/** `capabilities.experimental.evalens` of the initialize result. */
export interface ExperimentalCapabilities {
  fileKinds: FileKind[];
}

/** `capabilities.experimental.evalens` of the client's initialize params: what the editor does itself. */
export interface ClientExperimentalCapabilities {
  /** Hover links it runs ("Show run", "Compare with previous run"). */
  commandLinks?: string[];
  /** It shows run results in the Test Explorer, so the server publishes no verdict diagnostics. */
  testResults?: boolean;
}

/** The one argument of every evalens command (and of the code lens commands): which file, which case
 * (`*`: all of the file's package or file), and for `evalens.runCase` whether to dry-run. */
export interface CaseCommandArgs {
  uri?: string;
  name?: string;
  dryRun?: boolean;
  /** `evalens.newCase`: false when the editor puts the cursor on the new prompt itself. */
  reveal?: boolean;
  /** `evalens.createFile`: the missing file a problem of `uri` names. */
  path?: string;
  /** Repeats of each unit ("Run 5×"), 1-100. */
  runs?: number;
  /** `runFile` / `runAll`: only the units `--failed` / `--stale` would pick. */
  select?: "failed" | "stale";
  /** Commands sent under one id share one budget (`evalens.run.maxCost` / `maxTokens`). */
  batch?: string;
  /** Per-run overrides ("Run Overrides" quick pick, remembered per workspace) over the settings. */
  engine?: string;
  model?: string;
  /** USD for the batch, instead of `evalens.run.maxCost`. */
  maxCost?: number;
}

/** One entry of `evalens.pickUnits`: a unit "Run failed" / "Run stale" would run, and why. */
export interface PickedUnit {
  uri: string;
  name: string;
  reason: string;
}

/** One entry of `evalens.discoverCases`. */
export interface DiscoveredCase {
  uri: string;
  name: string;
  /** What editors show (a skill-creator case's prompt instead of its numeric id); `name` when absent. */
  label?: string;
  format: string;
  range: LspRange;
  packageRoot: string;
  lastVerdict?: Verdict;
  lastReason?: string;
  lastDurationSeconds?: number;
  /** The skill the unit exercises (a Test Explorer tag). */
  skill?: string;
  /** The engine of its last run (a Test Explorer tag). */
  engine?: string;
}

/** Tokens and cost of the agent's runs (cost only where the CLI reports one). */
export interface RunUsage {
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
}

export interface JudgeResult {
  verdict: string;
  reason: string;
  model?: string;
}

export interface FailedCheck {
  check: string;
  value?: unknown;
  message: string;
  range?: LspRange;
  /** What the check wanted and what the run gave, for the failure peek's diff (contains, not-contains, files). */
  expected?: string;
  actual?: string;
}

/** A unit run more than once: k of N, the pass rate with its 95% Wilson interval, pass^k (docs/repeats.md). */
export interface RepeatStats {
  runs: number;
  passed: number;
  /** Runs that passed or failed (errored and skipped runs say nothing about the skill). */
  counted: number;
  verdicts: Verdict[];
  passRate?: number;
  interval?: number[];
  passHatK?: number;
}

/** The answer of `evalens.runCase` (and one element of `evalens.runFile` / `evalens.runAll`). */
export interface CaseResult {
  uri: string;
  name: string;
  verdict: Verdict;
  /** The verdict over repeated runs: FLAKY when the case both passed and failed, BUDGET when a budget cut it
   * short (else the verdict). */
  state?: Verdict | "FLAKY" | "BUDGET";
  /** What changed since this run (a SKILL.md edit, another engine version); empty when current. */
  stale?: string[];
  reason?: string;
  durationSeconds?: number;
  failedChecks?: FailedCheck[];
  judge?: JudgeResult;
  engine?: string;
  model?: string;
  outputSnippet?: string;
  reportPath?: string;
  error?: string;
  /** Tokens and cost of the agent's runs (cost only where the CLI reports one). */
  usage?: RunUsage;
  /** A dry run: nothing ran, the verdict is SKIP and `plan` says what would run. */
  dryRun?: boolean;
  plan?: Record<string, unknown>;
  /** Cut short by a cancel: the verdict is SKIP. */
  cancelled?: boolean;
  /** Not run: the unit has this many validation errors (the verdict is SKIP, `reason` names the first). */
  problems?: number;
  /** Set when the unit ran more than once. */
  repeats?: RepeatStats;
  /** Answered from cassettes (docs/replay.md), in the server's one wording: `↺ replayed (3 of 3 requests)`. */
  replayed?: string;
}

/** The one argument of `evalens.listRuns` (the Runs view): whose runs (none: every package) and what to keep. */
export interface ListRunsArgs {
  uri?: string;
  /** PASS, FAIL, FLAKY, SKIP, ERROR, BUDGET (empty or none: all). */
  verdicts?: string[];
  engine?: string;
  /** ISO 8601 date or time: batches on or after it. */
  since?: string;
}

/** One entry of `evalens.listRuns`: a unit's run in one batch. */
export interface RunEntry {
  name: string;
  verdict: Verdict;
  state?: "PASS" | "FAIL" | "FLAKY" | "SKIP" | "ERROR" | "BUDGET";
  timestamp: string;
  engine?: string;
  model?: string;
  /** The eval file. */
  uri?: string;
  /** None: a batch killed before its report (read from its run log). */
  reportPath?: string;
  durationSeconds?: number;
  interrupted?: boolean;
}

/** The answer of `evalens.newCase`: the file the case was written to and the position of its prompt. */
export interface NewCaseResult {
  uri: string;
  position: LspPosition;
  format: string;
  title?: string;
}

/** The answer of `evalens.cancelRun`. */
export interface CancelRunResult {
  cancelled: number;
}

/** The answer of `evalens.lastReport` (null when there is none). */
export interface LastReportResult {
  path: string;
}

/** `evalens/verdictChanged`: sent after every run, also those started from the code lens. */
export interface VerdictChangedParams {
  uri: string;
  name: string;
  verdict: Verdict;
  reason?: string;
  durationSeconds?: number;
  range?: LspRange;
}

/** `evalens/runState`: how many runs the server has in flight. */
export interface RunStateParams {
  running: number;
}

/** `evalens/scanComplete`: the start-up scan validated `files` eval files in `seconds`. */
export interface ScanCompleteParams {
  files: number;
  seconds: number;
}

/** `evalens/runTurn`: one turn of the agent while a unit runs, before its verdict (text, a tool call with a short
 * summary of its input, its result, a hook that blocked). `name` is the unit the agent is running. */
export interface RunTurnParams {
  uri: string;
  name: string;
  run: number;
  seq: number;
  kind: "text" | "tool" | "result" | "hook" | "error" | "note";
  text: string;
  tool?: string;
  callId?: string;
  isError?: boolean;
  blocked?: boolean;
}

export const Commands = {
  discoverCases: "evalens.discoverCases",
  runCase: "evalens.runCase",
  runFile: "evalens.runFile",
  runAll: "evalens.runAll",
  cancelRun: "evalens.cancelRun",
  lastReport: "evalens.lastReport",
  showResult: "evalens.showResult",
  runView: "evalens.runView",
  showProblems: "evalens.showProblems",
  createFile: "evalens.createFile",
  newCase: "evalens.newCase",
  pickUnits: "evalens.pickUnits",
  listRuns: "evalens.listRuns",
  optimizeDescription: "evalens.optimizeDescription",
} as const;

export const Notifications = {
  verdictChanged: "evalens/verdictChanged",
  runState: "evalens/runState",
  scanComplete: "evalens/scanComplete",
  runTurn: "evalens/runTurn",
} as const;

/** Identity of a case across discovery, runs and notifications. */
export function caseKey(uri: string, name: string): string {
  return `${uri}#${name}`;
}

/** A lens command that runs many units as one batch: `evalens.runAll`, `evalens.runFile`, or `evalens.runCase` on a
 * whole file (`name: "*"`), not a dry run. */
export function isLensBatch(command: string, args: unknown[]): boolean {
  const first = args[0] && typeof args[0] === "object" ? (args[0] as Record<string, unknown>) : {};
  if (first.dryRun === true) {
    return false;
  }
  return command === Commands.runAll || command === Commands.runFile || (command === Commands.runCase && first.name === "*");
}

/** Arguments of an `evalens.runCase` lens command: one object `{uri, name}` (positional `[uri, name]` also accepted). */
export function lensRunTarget(args: unknown[]): { uri: string; name: string; dryRun: boolean } | undefined {
  const [first, second] = args;
  if (first && typeof first === "object") {
    const o = first as Record<string, unknown>;
    if (typeof o.uri === "string" && typeof o.name === "string") {
      return { uri: o.uri, name: o.name, dryRun: o.dryRun === true };
    }
  }
  if (typeof first === "string" && typeof second === "string") {
    return { uri: first, name: second, dryRun: false };
  }
  return undefined;
}
