/** Eval cases in VS Code's Test Explorer: package → file → case, discovered and run through the server. */
import * as path from "node:path";
import * as vscode from "vscode";
import type { EvalServer, LensBatch, LensRunHooks } from "./client";
import { BROAD_WATCH_GLOB, isEvalFile } from "./documentSelector";
import { turnOutput } from "./liveTurns";
import { CaseCommandArgs, CaseResult, caseKey, Commands, DiscoveredCase, LspRange, MatrixCell, PickedUnit, RunTurnParams, VerdictChangedParams } from "./protocol";
import { addUsage, batchSummary, cancelledLine, Outcome, outcomeFromNotification, outcomeFromResult, resultOutput, TestOutcome } from "./results";
import type { EvalensSettings } from "./settings";
import type { SpendUnit } from "./spend";
import { explainRestricted, isTrusted } from "./trust";

function repeatLabel(n: number): string {
  return `Run ${Math.max(1, n)}×`;
}

/** The Test Explorer tags of a case (filter with `@evalens:format:uaaps-case`, `@evalens:skill:pdf-tools`,
 * `@evalens:engine:claude-code`): its format, its skill and the engine of its last run, where known. */
export function caseTags(c: Pick<DiscoveredCase, "format" | "skill" | "engine">): string[] {
  return [`format:${c.format}`, ...(c.skill ? [`skill:${c.skill}`] : []), ...(c.engine ? [`engine:${c.engine}`] : [])];
}

export function toRange(r: LspRange): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

/** URIs from the server and from VS Code may differ in escaping; compare them in VS Code's spelling. */
export function normalizeUri(uri: string): string {
  return vscode.Uri.parse(uri).toString();
}

/** The id of a case's item for one cell of the package's newest matrix run (`evalens run --engine a,b`). */
export function cellId(caseId: string, cell: Pick<MatrixCell, "column">): string {
  return `${caseId}@cell:${cell.column}`;
}

/** What running a matrix cell's item runs: its case, on that cell's engine and model (and as its arm, for a
 * cell of an `--arms` run). */
export function cellOverrides(cell: Pick<MatrixCell, "engine" | "model" | "arm">): CaseCommandArgs {
  return { ...(cell.engine ? { engine: cell.engine } : {}), ...(cell.model ? { model: cell.model } : {}), ...(cell.arm ? { arm: cell.arm } : {}) };
}

/** The icon a matrix cell item's label starts with: the cell's state over its runs, told apart at a glance
 * (pass, fail, flaky, error, skipped or over budget; a dash where the cell did not run the case). A label's
 * icon and not the item's test state: a cell's result is the newest matrix run's, not a run of this window,
 * and a no-skill arm that fails as expected must not turn its case and file red. */
export function cellIcon(state: MatrixCell["state"]): string {
  switch (state) {
    case "PASS":
      return "$(pass)";
    case "FAIL":
      return "$(error)";
    case "FLAKY":
      return "$(warning)";
    case "ERROR":
      return "$(issues)";
    case "SKIP":
    case "BUDGET":
      return "$(debug-step-over)";
    default:
      return "$(dash)";
  }
}

function packageUri(root: string): vscode.Uri {
  return /^[a-z][a-z0-9+.-]*:/i.test(root) && !/^[a-z]:[\\/]/i.test(root) ? vscode.Uri.parse(root) : vscode.Uri.file(root);
}

/** A package's folder relative to its workspace folder ("skills/pdf-tools"), shown beside its name so two
 * packages of one name (a repository's package and a skill folder inside it) are told apart; none for a
 * workspace folder itself or a folder outside the workspace. */
function packageDescription(uri: vscode.Uri): string | undefined {
  const folder = uri.scheme === "file" ? vscode.workspace.getWorkspaceFolder(uri) : undefined;
  if (!folder) {
    return undefined;
  }
  const rel = path.relative(folder.uri.fsPath, uri.fsPath);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel.split(path.sep).join("/") : undefined;
}

/** Runs `work` over `items` with at most `limit` at a time. */
export async function inPool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const item = items[next++];
      await work(item);
    }
  });
  await Promise.all(workers);
}

/** What a Test Explorer run does beyond "run each item once": repeats, or only the failed / stale items. */
export interface RunMode {
  dryRun?: boolean;
  /** Runs per item: the "Run N×" profile (`evalens.run.repeats`). */
  repeat?: boolean;
  /** Only the items the server's `evalens.pickUnits` picks (the CLI's `--failed` / `--stale`). */
  select?: "failed" | "stale";
  /** The items were picked already (`pick`), so what runs is what the user was shown. */
  picked?: boolean;
}

let batches = 0;

/** One Test Results run for many units (a Test Explorer run, or a lens that runs a whole file or package): the
 * outcome of each unit by item id, for the summary line that closes it. */
interface Batch {
  run: vscode.TestRun;
  started: number;
  outcomes: Map<string, TestOutcome>;
  results: CaseResult[];
}

/** One id per Test Explorer run: its runCase commands share one budget (`evalens.run.maxCost`/`maxTokens`). */
function newBatch(): string {
  batches += 1;
  return `vscode-${process.pid}-${Date.now()}-${batches}`;
}

export class EvalTestController implements LensRunHooks, vscode.Disposable {
  readonly controller: vscode.TestController;
  readonly runProfile: vscode.TestRunProfile;
  readonly dryRunProfile: vscode.TestRunProfile;
  readonly repeatProfile: vscode.TestRunProfile;
  readonly failedProfile: vscode.TestRunProfile;
  readonly staleProfile: vscode.TestRunProfile;
  private readonly cases = new Map<string, vscode.TestItem>();
  private readonly data = new WeakMap<vscode.TestItem, DiscoveredCase>();
  /** The matrix cell items under a case (one per cell of the package's newest matrix run): their case and cell. */
  private readonly cellOf = new WeakMap<vscode.TestItem, { parent: vscode.TestItem; cell: MatrixCell }>();
  /** Cases being run by a Test Explorer run: their verdict notifications are already handled. */
  private readonly active = new Set<string>();
  /** The Test Explorer run each running case belongs to, by item id: where its live turns go. */
  private readonly running = new Map<string, vscode.TestRun>();
  /** How many runs each running case was asked for ("Run 5×"), by item id: its turns say "run k/N". */
  private readonly repeats = new Map<string, number>();
  /** Runs started from the code lens, by case key. */
  private readonly lensRuns = new Map<string, vscode.TestRun>();
  private readonly pending = new Map<string, NodeJS.Timeout>();
  /** Lens batches in flight (Run all, a whole file): their units' verdicts and turns go into their one run. */
  private readonly lensBatches: Batch[] = [];
  /** The batch of each Test Explorer run, by run: what its summary line counts. */
  private readonly batchOf = new WeakMap<vscode.TestRun, Batch>();
  /** The outcome of each case's last real run (not a dry run, not a cancelled one), by item id: what a dry run
   * or a cancel leaves in place. Seeded from discovery's `lastVerdict` (results restored from reports). */
  private readonly lastReal = new Map<string, Outcome>();
  /** The last run discovery reported of each case (`verdict|reason|duration`), by item id: a result shown
   * once (restored after a reload, from the CLI or the lens) is not shown again until it changes. */
  private readonly shownLast = new Map<string, string>();
  /** Cases whose result this session reported from its own run since the last discovery: not reported again. */
  private readonly reportedHere = new Set<string>();
  /** Cases whose last result is drawn outdated (discovery's `lastOutdated`), by item id: made outdated once, on the
   * discovery that first says so; a new run's result, current again, takes the key out. */
  private readonly outdated = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly server: EvalServer,
    private readonly settings: () => EvalensSettings,
    private readonly log: vscode.LogOutputChannel,
    /** Asks to save unsaved eval files before a run reads them (false: do not run). */
    private readonly saveGuard: (uris: string[]) => Promise<boolean> = async () => true,
  ) {
    this.controller = vscode.tests.createTestController("evalens", "evalens evals");
    this.controller.resolveHandler = async (item) => {
      if (!item) {
        await this.refreshAll();
      }
    };
    this.controller.refreshHandler = () => this.refreshAll();
    this.runProfile = this.controller.createRunProfile(
      "Run eval",
      vscode.TestRunProfileKind.Run,
      (request, token) => this.runHandler(request, token, false),
      true,
    );
    this.dryRunProfile = this.controller.createRunProfile(
      "Dry run (no agent)",
      vscode.TestRunProfileKind.Run,
      (request, token) => this.runHandler(request, token, true),
      false,
    );
    this.repeatProfile = this.controller.createRunProfile(
      repeatLabel(settings().run.repeats),
      vscode.TestRunProfileKind.Run,
      (request, token) => this.runHandler(request, token, { repeat: true }),
      false,
    );
    this.failedProfile = this.controller.createRunProfile(
      "Run failed",
      vscode.TestRunProfileKind.Run,
      (request, token) => this.runHandler(request, token, { select: "failed" }),
      false,
    );
    this.staleProfile = this.controller.createRunProfile(
      "Run stale",
      vscode.TestRunProfileKind.Run,
      (request, token) => this.runHandler(request, token, { select: "stale" }),
      false,
    );
    this.disposables.push(
      this.controller,
      server.onDidChangeState((state) => {
        if (state === "running") {
          void this.refreshAll();
        }
      }),
      server.onRunTurn((p) => this.runTurn(p)),
      ...(server.onStaleChanged ? [server.onStaleChanged(() => this.scheduleRefreshAll())] : []),
      server.onVerdictChanged((p) => {
        this.verdictChanged(p).catch((err) => this.log.warn(`evalens/verdictChanged: ${String(err)}`));
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0) {
          this.scheduleRefresh(e.document.uri, 400);
        }
      }),
      vscode.workspace.onDidSaveTextDocument((d) => this.scheduleRefresh(d.uri, 0)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("evalens.run")) {
          this.settingsChanged();
        }
      }),
    );
    const watcher = vscode.workspace.createFileSystemWatcher(BROAD_WATCH_GLOB); // filtered by isEvalFile
    this.disposables.push(
      watcher,
      watcher.onDidCreate((u) => this.scheduleRefresh(u, 200)),
      watcher.onDidChange((u) => this.scheduleRefresh(u, 200)),
      watcher.onDidDelete((u) => this.removeFile(u)),
    );
    // a run from the terminal (`evalens run`, a matrix's cells) writes reports: the items show its results, and
    // the cases' cell items follow the newest matrix run
    const cellReports = vscode.workspace.createFileSystemWatcher("**/evals/reports/*.json");
    this.disposables.push(
      cellReports,
      cellReports.onDidCreate(() => this.scheduleRefreshAll()),
      cellReports.onDidChange(() => this.scheduleRefreshAll()),
      cellReports.onDidDelete(() => this.scheduleRefreshAll()),
    );
  }

  private scheduleRefreshAll(): void {
    clearTimeout(this.pending.get("*"));
    this.pending.set(
      "*",
      setTimeout(() => {
        this.pending.delete("*");
        void this.refreshAll();
      }, 500),
    );
  }

  /** The case and cell of a matrix cell item (undefined for any other item). */
  cellData(item: vscode.TestItem): { parent: vscode.TestItem; cell: MatrixCell } | undefined {
    return this.cellOf.get(item);
  }

  /** The test item of a case, if discovered. */
  caseItem(uri: string, name: string): vscode.TestItem | undefined {
    return this.cases.get(caseKey(normalizeUri(uri), name));
  }

  caseData(item: vscode.TestItem): DiscoveredCase | undefined {
    return this.data.get(item);
  }

  fileItem(uri: vscode.Uri): vscode.TestItem | undefined {
    for (const [, pkg] of this.controller.items) {
      const file = pkg.children.get(uri.toString());
      if (file) {
        return file;
      }
    }
    return undefined;
  }

  allCases(): vscode.TestItem[] {
    return [...this.cases.values()];
  }

  private async discover(uri?: string): Promise<DiscoveredCase[] | undefined> {
    if (this.server.state !== "running" || !this.server.supports(Commands.discoverCases)) {
      return undefined;
    }
    try {
      const found = await this.server.executeCommand<DiscoveredCase[] | null>(Commands.discoverCases, uri ? { uri } : {});
      return found ?? [];
    } catch (err) {
      this.log.warn(`evalens.discoverCases failed: ${String(err)}`);
      return undefined;
    }
  }

  async refreshAll(): Promise<void> {
    const found = await this.discover();
    if (!found) {
      return;
    }
    const byFile = new Map<string, DiscoveredCase[]>();
    for (const c of found) {
      const uri = normalizeUri(c.uri);
      byFile.set(uri, [...(byFile.get(uri) ?? []), c]);
    }
    const keep = new Set<string>();
    for (const [uri, cases] of byFile) {
      this.setFileCases(vscode.Uri.parse(uri), cases);
      cases.forEach((c) => keep.add(caseKey(uri, c.name)));
    }
    for (const [key, item] of [...this.cases]) {
      if (!keep.has(key) && item.uri) {
        this.removeFile(item.uri);
      }
    }
  }

  async refreshFile(uri: vscode.Uri): Promise<void> {
    const found = await this.discover(uri.toString());
    if (found) {
      this.setFileCases(uri, found.filter((c) => normalizeUri(c.uri) === uri.toString()));
    }
  }

  private scheduleRefresh(uri: vscode.Uri, delayMs: number): void {
    if (uri.scheme !== "file" || !isEvalFile(uri.path)) {
      return;
    }
    const key = uri.toString();
    clearTimeout(this.pending.get(key));
    this.pending.set(
      key,
      setTimeout(() => {
        this.pending.delete(key);
        void this.refreshFile(uri);
      }, delayMs),
    );
  }

  /** Replaces one file's cases, reusing items (and so their results) whose names did not change. */
  setFileCases(uri: vscode.Uri, cases: DiscoveredCase[]): void {
    const fileId = uri.toString();
    for (const [key] of [...this.cases]) {
      if (key.startsWith(`${fileId}#`) && !cases.some((c) => caseKey(fileId, c.name) === key)) {
        this.cases.delete(key);
      }
    }
    if (cases.length === 0) {
      this.removeFile(uri);
      return;
    }
    const root = cases[0].packageRoot || path.dirname(uri.fsPath);
    const pkgUri = packageUri(root);
    let pkg = this.controller.items.get(pkgUri.toString());
    if (!pkg) {
      pkg = this.controller.createTestItem(pkgUri.toString(), path.basename(pkgUri.fsPath) || pkgUri.fsPath, pkgUri);
      this.controller.items.add(pkg);
    }
    const description = packageDescription(pkgUri); // workspace folders can be added or removed since
    if (pkg.description !== description) {
      pkg.description = description;
    }
    for (const [, other] of this.controller.items) {
      if (other !== pkg && other.children.get(fileId)) {
        other.children.delete(fileId);
        if (other.children.size === 0) {
          this.controller.items.delete(other.id);
        }
      }
    }
    let file = pkg.children.get(fileId);
    if (!file) {
      const rel = path.relative(pkgUri.fsPath, uri.fsPath) || path.basename(uri.fsPath);
      file = this.controller.createTestItem(fileId, rel.split(path.sep).join("/"), uri);
      pkg.children.add(file);
    }
    const items: vscode.TestItem[] = [];
    const known = new Set<string>();
    file.children.forEach((child) => void known.add(child.id));
    const fresh: vscode.TestItem[] = []; // new items the server already knows a run of: a case renamed in place
    const restored: [vscode.TestItem, DiscoveredCase][] = []; // a last run this window has not shown
    const dimmed: vscode.TestItem[] = []; // results whose case's own text changed since they ran
    for (const c of cases) {
      const key = caseKey(fileId, c.name);
      let item = file.children.get(key);
      const label = c.label || c.name;
      if (!item) {
        item = this.controller.createTestItem(key, label, uri);
        if (c.lastVerdict && known.size > 0) {
          fresh.push(item);
        }
      }
      item.label = label;
      const stale = c.lastVerdict ? (c.lastStale ?? []) : [];
      const described = [label !== c.name ? `#${c.name}` : "", stale.length ? `stale: ${stale.join(", ")}` : ""];
      item.description = described.filter(Boolean).join(" · ") || undefined;
      item.range = toRange(c.range);
      item.tags = caseTags(c).map((id) => new vscode.TestTag(id));
      if (c.lastVerdict && !this.lastReal.has(key)) {
        this.lastReal.set(key, outcomeFromNotification({ ...c, verdict: c.lastVerdict, reason: c.lastReason, durationSeconds: c.lastDurationSeconds }));
      }
      const last = c.lastVerdict ? [c.lastVerdict, c.lastReason ?? "", c.lastDurationSeconds ?? ""].join("|") : "";
      if (this.reportedHere.delete(key)) {
        this.shownLast.set(key, last); // its own run showed it
      } else if (last && this.shownLast.get(key) !== last && !this.busy()) {
        this.shownLast.set(key, last);
        restored.push([item, c]);
      }
      if (c.lastVerdict && c.lastOutdated) {
        if (!this.outdated.has(key)) {
          this.outdated.add(key);
          dimmed.push(item);
        }
      } else {
        this.outdated.delete(key);
      }
      this.data.set(item, c);
      this.cases.set(key, item);
      this.setCells(item, c.matrix ?? []);
      items.push(item);
    }
    file.children.replace(items);
    file.range = undefined;
    this.carryRenamed(fresh, [...known].filter((id) => !items.some((item) => item.id === id)));
    this.showRestored(restored.filter(([item]) => !fresh.includes(item)));
    if (dimmed.length > 0) {
      // after the restored results are reported: an outdated mark applies to the results that exist. Only the
      // unit's own text changing does this (its failures sit at lines that are gone); a changed skill or model
      // only marks the description, and the failures stay at their lines.
      this.controller.invalidateTestResults(dimmed);
    }
  }

  /** Whether a run of this window is in flight: its results come through it, and a discovery meanwhile (a report
   * it wrote) must not show them a second time; a terminal's run is shown by the next discovery after it. */
  private busy(): boolean {
    return this.active.size > 0 || this.lensRuns.size > 0 || this.lensBatches.length > 0;
  }

  /** Results this window did not run: the last runs the server restored after a reload, and runs started from a
   * terminal (`evalens run`), read from the same run log as the lens, in one "evalens (last runs)" run. A stale
   * result (the server's stale check, the lens's `· stale`) is marked in its item's description; it is made
   * outdated (dimmed) only when the case's own text changed, since VS Code then withdraws its inline failures. */
  private showRestored(restored: [vscode.TestItem, DiscoveredCase][]): void {
    if (restored.length === 0) {
      return;
    }
    const items = restored.map(([item]) => item);
    // as an automatic run's results (continuous, focus kept): VS Code opens no failure peek for them, which took the
    // focus (and closed a quick pick just opened) at every reload with a failed case in view
    const request = new vscode.TestRunRequest(items, undefined, undefined, true, true);
    const run = this.controller.createTestRun(request, "evalens (last runs)", false);
    for (const [item, c] of restored) {
      const outcome = outcomeFromNotification({ ...c, verdict: c.lastVerdict!, reason: c.lastReason, durationSeconds: c.lastDurationSeconds });
      this.lastReal.set(item.id, outcome);
      this.report(run, item, outcome);
    }
    run.end();
  }

  /** A case renamed in its file is a new item (items are keyed by name) that VS Code shows "Not yet run", while
   * the server followed the rename (the run log's unit identity) and discovery gives its last verdict. Its state
   * is reported again, the old item's outcome (its messages too) when one case became one other (issue 27 #7). */
  private carryRenamed(fresh: vscode.TestItem[], gone: string[]): void {
    if (fresh.length === 0 || gone.length === 0) {
      return; // a new case, not a renamed one
    }
    const run = this.controller.createTestRun(new vscode.TestRunRequest(fresh), "evalens (renamed)", false);
    for (const item of fresh) {
      const old = fresh.length === 1 && gone.length === 1 ? this.lastReal.get(gone[0]) : undefined;
      const seeded = this.lastReal.get(item.id);
      const outcome = old && seeded && old.outcome === seeded.outcome ? old : seeded;
      if (outcome) {
        this.lastReal.set(item.id, outcome);
        this.report(run, item, { ...outcome, output: "" });
      }
    }
    run.end();
  }

  /** One child item per cell of the package's newest matrix run: the cell's state icon and engine · model (·
   * arm) as its label, its k/N, interval and cost (the server's one wording) as its description. Running one
   * runs the case there. */
  private setCells(item: vscode.TestItem, cells: MatrixCell[]): void {
    const children = cells.map((cell) => {
      const id = cellId(item.id, cell);
      const label = `${cellIcon(cell.state)} ${cell.column}`;
      const child = item.children.get(id) ?? this.controller.createTestItem(id, label, item.uri);
      child.label = label;
      child.description = cell.text;
      child.range = item.range;
      child.tags = [...item.tags.filter((t) => !t.id.startsWith("engine:")), ...(cell.engine ? [new vscode.TestTag(`engine:${cell.engine}`)] : [])];
      this.cellOf.set(child, { parent: item, cell });
      return child;
    });
    item.children.replace(children);
  }

  private removeFile(uri: vscode.Uri): void {
    const fileId = uri.toString();
    for (const [key] of [...this.cases]) {
      if (key.startsWith(`${fileId}#`)) {
        this.cases.delete(key);
      }
    }
    for (const [, pkg] of this.controller.items) {
      if (pkg.children.get(fileId)) {
        pkg.children.delete(fileId);
        if (pkg.children.size === 0) {
          this.controller.items.delete(pkg.id);
        }
      }
    }
  }

  /** The case leaves a request covers (all cases when it names none), minus its exclusions. */
  collect(request: vscode.TestRunRequest): vscode.TestItem[] {
    const excluded = new Set((request.exclude ?? []).map((i) => i.id));
    const out: vscode.TestItem[] = [];
    const visit = (item: vscode.TestItem) => {
      if (excluded.has(item.id)) {
        return;
      }
      const cell = this.cellOf.get(item);
      if (this.data.has(item)) {
        out.push(item);
      } else if (cell) {
        out.push(cell.parent); // its case, on the cell's engine and model (runHandler)
      } else {
        item.children.forEach(visit);
      }
    };
    if (request.include) {
      request.include.forEach(visit);
    } else {
      this.controller.items.forEach(visit);
    }
    return [...new Map(out.map((i) => [i.id, i])).values()];
  }

  /** Runs cases through the Test Explorer (also used by the Run commands). */
  async runItems(items: vscode.TestItem[], mode: boolean | RunMode): Promise<void> {
    const m: RunMode = typeof mode === "boolean" ? { dryRun: mode } : mode;
    const profile = m.dryRun ? this.dryRunProfile : m.repeat ? this.repeatProfile : m.select === "failed" ? this.failedProfile : m.select === "stale" ? this.staleProfile : this.runProfile;
    const cts = new vscode.CancellationTokenSource();
    try {
      await this.runHandler(new vscode.TestRunRequest(items, undefined, profile), cts.token, m);
    } finally {
      cts.dispose();
    }
  }

  /** What a batch lens (`↻ Run stale (6)`, `▶ Run all evals`, a file's `▶ Run all`) is about to run, as the
   * server picks it (`evalens.pickUnits`, with the lens's `select` or none), named as the Test Explorer names
   * them; undefined when the server cannot say. The lens then asks as the palette's commands do. */
  async lensBatchUnits(args: unknown[]): Promise<SpendUnit[] | undefined> {
    const first = args[0] && typeof args[0] === "object" ? (args[0] as CaseCommandArgs) : undefined;
    if (!first?.uri || !this.server.supports(Commands.pickUnits)) {
      return undefined;
    }
    const ask: CaseCommandArgs = first.select ? { uri: first.uri, select: first.select } : { uri: first.uri };
    try {
      const found = (await this.server.executeCommand<PickedUnit[] | null>(Commands.pickUnits, ask)) ?? [];
      return found.map((p) => {
        const item = this.caseItem(p.uri, p.name);
        return { label: item?.label ?? p.name, packageRoot: (item && this.caseData(item)?.packageRoot) || "" };
      });
    } catch (err) {
      this.log.warn(`evalens.pickUnits failed: ${String(err)}`);
      return undefined;
    }
  }

  /** The items of `items` the server picks for "Run failed" / "Run stale" (undefined: it could not say). */
  pick(items: vscode.TestItem[], select: "failed" | "stale"): Promise<vscode.TestItem[] | undefined> {
    return this.picked(items, select);
  }

  private async picked(items: vscode.TestItem[], select: "failed" | "stale"): Promise<vscode.TestItem[] | undefined> {
    if (!this.server.supports(Commands.pickUnits)) {
      void vscode.window.showWarningMessage(`This evalens server cannot pick ${select} evals; update it.`);
      return undefined;
    }
    try {
      const found = (await this.server.executeCommand<PickedUnit[] | null>(Commands.pickUnits, { select })) ?? [];
      const keys = new Set(found.map((p) => caseKey(normalizeUri(p.uri), p.name)));
      return items.filter((i) => keys.has(i.id));
    } catch (err) {
      this.log.warn(`evalens.pickUnits failed: ${String(err)}`);
      void vscode.window.showErrorMessage(`Could not pick the ${select} evals: ${String(err)}`);
      return undefined;
    }
  }

  async runHandler(request: vscode.TestRunRequest, token: vscode.CancellationToken, mode: boolean | RunMode): Promise<void> {
    const m: RunMode = typeof mode === "boolean" ? { dryRun: mode } : mode;
    const dryRun = m.dryRun === true;
    if (!dryRun && !isTrusted()) {
      explainRestricted(); // Restricted Mode: no run is started, so no item is marked (trust.ts)
      return;
    }
    let items = this.collect(request);
    // a matrix cell's item runs its case with that cell's engine and model (not with the cases' other cells)
    const pinned = new Map<string, CaseCommandArgs>();
    for (const included of request.include ?? []) {
      const cell = this.cellOf.get(included);
      if (cell) {
        pinned.set(cell.parent.id, cellOverrides(cell.cell));
      }
    }
    if (m.select && !m.picked) {
      const picked = await this.picked(items, m.select);
      if (!picked) {
        return;
      }
      if (picked.length === 0) {
        void vscode.window.showInformationMessage(`No ${m.select} evals to run.`);
        return;
      }
      items = picked;
      request = new vscode.TestRunRequest(items, undefined, request.profile);
    }
    const uris = [...new Set(items.map((i) => this.data.get(i)?.uri).filter((u): u is string => !!u))];
    if (!(await this.saveGuard(uris))) {
      return; // declined: no run, and every case keeps its last result
    }
    const runs = m.repeat ? Math.max(1, this.settings().run.repeats) : 1;
    const name = dryRun ? "evalens dry run" : m.repeat ? `evalens ${runs}×` : m.select ? `evalens (${m.select})` : "evalens";
    const run = this.controller.createTestRun(request, name, true);
    if (!dryRun) {
      items.forEach((item) => run.enqueued(item)); // a dry run reports no state: the last real result stays
    }
    const limit = this.settings().maxParallelRuns;
    // with a budget (the settings' or a run override's) the run's units share it under one batch id
    const budget = this.settings().run.maxCost > 0 || this.settings().run.maxTokens > 0 || this.server.overrides?.().maxCost !== undefined;
    const extra: CaseCommandArgs = dryRun ? {} : { ...(budget ? { batch: newBatch() } : {}), ...(runs > 1 ? { runs } : {}) };
    const batch: Batch = { run, started: Date.now(), outcomes: new Map(), results: [] };
    this.batchOf.set(run, batch);
    try {
      await inPool(items, limit, (item) => this.runOne(run, item, token, dryRun, { ...extra, ...(pinned.get(item.id) ?? {}) }));
    } finally {
      if (!dryRun && batch.outcomes.size > 1) {
        // one unit's own result line says it all; a batch of several gets a line that counts them
        run.appendOutput(this.summary(batch));
      }
      run.end();
    }
  }

  /** Keeps the "Run N×" profile's label in step with `evalens.run.repeats`. */
  settingsChanged(): void {
    this.repeatProfile.label = repeatLabel(this.settings().run.repeats);
  }

  private async runOne(run: vscode.TestRun, item: vscode.TestItem, token: vscode.CancellationToken, dryRun: boolean, extra: CaseCommandArgs = {}) {
    const c = this.data.get(item);
    if (!c) {
      return;
    }
    if (token.isCancellationRequested) {
      this.cancelled(run, item, dryRun);
      return;
    }
    const key = item.id;
    this.active.add(key);
    if (!dryRun) {
      run.started(item);
      this.running.set(key, run);
      this.repeats.set(key, extra.runs ?? 1);
    }
    const cancelled = new Promise<"cancelled">((resolve) => token.onCancellationRequested(() => resolve("cancelled")));
    try {
      const request = this.server.executeCommand<CaseResult>(Commands.runCase, { uri: c.uri, name: c.name, dryRun, ...extra }, token);
      const result = await Promise.race([request, cancelled]);
      if (result === "cancelled") {
        request.catch(() => undefined);
        if (this.server.supports(Commands.cancelRun)) {
          this.server.executeCommand(Commands.cancelRun, { uri: c.uri, name: c.name }).catch(() => undefined);
        }
        this.cancelled(run, item, dryRun);
        return;
      }
      if (result.cancelled) {
        this.cancelled(run, item, dryRun);
        return;
      }
      if (dryRun || result.dryRun || result.problems) {
        run.appendOutput(resultOutput(result));
        this.keepLast(run, item, dryRun, result.problems ? `${result.reason ?? "not run"}: the last real result stays\r\n` : "");
        return;
      }
      this.batchOf.get(run)?.results.push(result);
      this.reportReal(run, item, outcomeFromResult(result));
    } catch (err) {
      if (token.isCancellationRequested) {
        this.cancelled(run, item, dryRun);
      } else if (dryRun) {
        run.appendOutput(`dry run of ${c.name} failed: ${String(err)}\r\n`);
      } else {
        this.reportReal(run, item, { outcome: "errored", messages: [{ text: String(err) }], output: `${String(err)}\r\n` });
      }
    } finally {
      this.active.delete(key);
      this.running.delete(key);
      this.repeats.delete(key);
    }
  }

  /** A turn of the agent while a case runs: appended to the Test Results terminal of that case's run. */
  runTurn(p: RunTurnParams): void {
    const item = this.caseItem(p.uri, p.name);
    const batch = item && !this.running.has(item.id) && !this.lensRuns.has(item.id) ? this.lensBatches[this.lensBatches.length - 1] : undefined;
    const run = item && (this.running.get(item.id) ?? this.lensRuns.get(item.id) ?? batch?.run);
    if (!item || !run) {
      return; // a run this window did not start (another client), or one already reported
    }
    if (batch && p.seq === 0 && p.run <= 1) {
      run.started(item); // a lens batch learns that a unit started from its first turn
    }
    const total = this.repeats.get(item.id) ?? 1;
    const which = total > 1 ? ` (run ${p.run}/${total})` : p.run > 1 ? ` (run ${p.run})` : "";
    const header = p.seq === 0 ? `── ${item.label}${which}: the agent's turns ──\r\n` : "";
    run.appendOutput(header + turnOutput(p), undefined, item);
  }

  /** A real run's outcome: shown, and remembered as what dry runs and cancels leave in place. */
  private reportReal(run: vscode.TestRun, item: vscode.TestItem, o: Outcome): void {
    this.lastReal.set(item.id, o);
    this.reportedHere.add(item.id);
    this.batchOf.get(run)?.outcomes.set(item.id, o.outcome);
    this.report(run, item, o);
  }

  /** The line that closes a batch's Test Results run. */
  private summary(batch: Batch): string {
    return batchSummary([...batch.outcomes.values()], (Date.now() - batch.started) / 1000, addUsage(batch.results));
  }

  lensBatchStarted(): LensBatch {
    const run = this.controller.createTestRun(new vscode.TestRunRequest(), "evalens (run all)", true);
    const batch: Batch = { run, started: Date.now(), outcomes: new Map(), results: [] };
    this.batchOf.set(run, batch);
    this.lensBatches.push(batch);
    return batch;
  }

  /** The lens batch answered: each unit's full result (failed checks at their ranges) and the summary line. */
  lensBatchFinished(token: LensBatch, result: unknown, error?: unknown): void {
    const batch = token as Batch;
    const at = this.lensBatches.indexOf(batch);
    if (at < 0) {
      return;
    }
    this.lensBatches.splice(at, 1);
    for (const r of Array.isArray(result) ? (result as CaseResult[]) : []) {
      const item = r && typeof r.verdict === "string" && !r.dryRun && !r.cancelled && !r.problems ? this.caseItem(r.uri, r.name) : undefined;
      if (item) {
        batch.results.push(r);
        this.reportReal(batch.run, item, { ...outcomeFromResult(r), output: "" });
      }
    }
    if (error !== undefined) {
      batch.run.appendOutput(`■ evalens: the batch stopped: ${String(error)}\r\n`);
    }
    if (batch.outcomes.size > 0) {
      batch.run.appendOutput(this.summary(batch));
    }
    batch.run.end();
  }

  /** A dry run or a run refused for validation errors: the item keeps its last real result. A dry run never
   * touched the item's state; a refused item was started in this run, so its last real outcome is reported again
   * (skipped if it has none). */
  private keepLast(run: vscode.TestRun, item: vscode.TestItem, dryRun: boolean, note: string): void {
    if (dryRun) {
      return;
    }
    const last = this.lastReal.get(item.id);
    if (last) {
      this.report(run, item, { ...last, output: note });
    } else {
      run.skipped(item);
    }
  }

  /** A cancelled case: Test Results says so, and the item keeps its last real result (reported again). One that
   * never had one gets no state at all: VS Code then shows what it showed before, never a made-up "Skipped". */
  private cancelled(run: vscode.TestRun, item: vscode.TestItem, dryRun: boolean): void {
    const last = dryRun ? undefined : this.lastReal.get(item.id);
    const line = cancelledLine(item.label, dryRun, last?.outcome);
    if (last) {
      this.report(run, item, { ...last, output: line });
    } else {
      run.appendOutput(line, undefined, dryRun ? undefined : item);
    }
  }

  report(run: vscode.TestRun, item: vscode.TestItem, o: Outcome): void {
    const messages = o.messages.map((m) => {
      const message = new vscode.TestMessage(m.text);
      if (m.expected != null && m.actual != null) {
        message.expectedOutput = m.expected; // the peek shows an Expected / Actual diff
        message.actualOutput = m.actual;
      }
      if (item.uri) {
        message.location = new vscode.Location(item.uri, m.range ? toRange(m.range) : (item.range ?? new vscode.Range(0, 0, 0, 0)));
      }
      return message;
    });
    if (o.output) {
      run.appendOutput(o.output, undefined, item);
    }
    switch (o.outcome) {
      case "passed":
        run.passed(item, o.durationMs);
        break;
      case "failed":
        run.failed(item, messages, o.durationMs);
        break;
      case "errored":
        run.errored(item, messages, o.durationMs);
        break;
      default:
        run.skipped(item);
    }
  }

  /** `runs`: the lens's repeats ("Run 5×"), so each run's turns are headed "run k/N" as the Test Explorer's are. */
  lensRunStarted(uri: string, name: string, runs?: number): void {
    const item = this.caseItem(uri, name);
    if (!item || this.lensRuns.has(item.id)) {
      return;
    }
    const run = this.controller.createTestRun(new vscode.TestRunRequest([item]), "evalens (code lens)", false);
    run.started(item);
    this.lensRuns.set(item.id, run);
    if (runs && runs > 1) {
      this.repeats.set(item.id, runs);
    }
  }

  lensRunFinished(uri: string, name: string, result: unknown, error?: unknown): void {
    const item = this.caseItem(uri, name);
    const run = item && this.lensRuns.get(item.id);
    if (!item || !run) {
      return;
    }
    this.lensRuns.delete(item.id);
    this.repeats.delete(item.id);
    const r = result as CaseResult | undefined;
    if (r && typeof r === "object" && r.cancelled) {
      this.cancelled(run, item, false);
    } else if (r && typeof r === "object" && r.problems) {
      this.keepLast(run, item, false, `${r.reason ?? "not run"}: the last real result stays\r\n`);
    } else if (r && typeof r === "object" && typeof r.verdict === "string") {
      this.reportReal(run, item, outcomeFromResult(r));
    } else if (error !== undefined) {
      this.reportReal(run, item, { outcome: "errored", messages: [{ text: String(error) }], output: "" });
    }
    run.end();
  }

  /** A verdict from a run the Test Explorer did not start (another client, or a lens run before discovery). */
  private async verdictChanged(p: VerdictChangedParams): Promise<void> {
    let item = this.caseItem(p.uri, p.name);
    if (!item) {
      await this.refreshFile(vscode.Uri.parse(p.uri));
      item = this.caseItem(p.uri, p.name);
    }
    if (!item || this.active.has(item.id) || this.lensRuns.has(item.id)) {
      return;
    }
    if (p.range) {
      item.range = toRange(p.range);
    }
    const batch = this.lensBatches[this.lensBatches.length - 1];
    if (batch) {
      batch.run.started(item);
      // its state now; its messages come with the batch's answer, each check in the server's one sentence (the
      // notification's bare reason would be drawn inline on the case's line in other words, issue 45 #2)
      this.reportReal(batch.run, item, { ...outcomeFromNotification(p), messages: [] });
      return;
    }
    const run = this.controller.createTestRun(new vscode.TestRunRequest([item]), "evalens", false);
    this.reportReal(run, item, outcomeFromNotification(p));
    run.end();
  }

  dispose(): void {
    this.pending.forEach((t) => clearTimeout(t));
    this.lensRuns.forEach((r) => r.end());
    this.lensBatches.forEach((b) => b.run.end());
    this.disposables.forEach((d) => d.dispose());
  }
}
