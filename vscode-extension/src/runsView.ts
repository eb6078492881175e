/** The Runs view: every run of the workspace (`evalens.listRuns`: the reports, and a killed batch's run log),
 * newest first, filtered by verdict, engine and date; click a run to open it, "Compare Runs" on any two runs of
 * a unit (selected together, or one then a pick of the other) to see them side by side (#27). */
import * as vscode from "vscode";
import type { EvalServer } from "./client";
import { Commands, ListRunsArgs, RunEntry } from "./protocol";
import { showRun } from "./runView";

export const RUNS_VIEW_ID = "evalens.runs";
const ICONS: Record<string, string> = {
  PASS: "pass",
  FAIL: "error",
  FLAKY: "warning",
  ERROR: "bug",
  SKIP: "circle-slash",
  BUDGET: "credit-card",
};

/** A unit cut short by a cancel has no verdict: it is listed as cancelled (as Test Results' "■ <case>:
 * cancelled" line says), never as the ERROR its report records for it. */
export const CANCELLED = "■ cancelled";

/** "first-line" with "PASS · claude-code · sonnet · 2026-01-03 10:00" beside it. */
export function runDescription(e: RunEntry): string {
  const when = e.timestamp.replace("T", " ").replace(/:\d\d(\.\d+)?Z?$/, "");
  const shown = e.cancelled ? CANCELLED : e.state ?? e.verdict;
  return [shown, e.engine, e.model, when, e.interrupted && !e.cancelled ? "interrupted" : ""].filter(Boolean).join(" · ");
}

/** The filter in words, for the view's description ("" when none). */
export function describeFilter(f: ListRunsArgs): string {
  return [f.verdicts?.length ? f.verdicts.join("|") : "", f.engine ?? "", f.since ? `since ${f.since}` : ""]
    .filter(Boolean)
    .join(" · ");
}

/** Two runs that can be compared: the same unit (name and file), each with a report. */
export function comparable(a: RunEntry, b: RunEntry): boolean {
  return a !== b && a.name === b.name && a.uri === b.uri && !!a.reportPath && !!b.reportPath && a.reportPath !== b.reportPath;
}

export class RunsView implements vscode.TreeDataProvider<RunEntry>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private entries: RunEntry[] = [];
  filter: ListRunsArgs = {};
  view?: vscode.TreeView<RunEntry>;

  constructor(
    private readonly server: EvalServer,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  refresh(): void {
    this.changed.fire();
  }

  getTreeItem(e: RunEntry): vscode.TreeItem {
    const item = new vscode.TreeItem(e.name, vscode.TreeItemCollapsibleState.None);
    item.description = runDescription(e);
    item.iconPath = new vscode.ThemeIcon(e.cancelled ? "debug-stop" : ICONS[e.state ?? e.verdict] ?? "circle-outline");
    item.contextValue = e.reportPath ? "evalensRun" : "evalensRunNoReport";
    item.tooltip = `${e.name}: ${runDescription(e)}${e.reportPath ? `\n${e.reportPath}` : "\nno report: the batch was killed"}`;
    if (e.reportPath) {
      item.command = { command: "evalens.runs.open", title: "Show Run", arguments: [e] };
    }
    return item;
  }

  async getChildren(parent?: RunEntry): Promise<RunEntry[]> {
    if (parent || this.server.state !== "running") {
      return [];
    }
    try {
      this.entries = (await this.server.executeCommand<RunEntry[] | null>(Commands.listRuns, this.filter)) ?? [];
    } catch (err) {
      this.log.error(`${Commands.listRuns} failed: ${String(err)}`);
      this.entries = [];
    }
    if (this.view) {
      this.view.description = describeFilter(this.filter) || undefined;
      this.view.message = this.entries.length ? undefined : "No runs yet (or none the filter keeps).";
    }
    return this.entries;
  }

  /** The other runs of `e`'s unit, for "Compare Runs" on one run. */
  others(e: RunEntry): RunEntry[] {
    return this.entries.filter((o) => comparable(e, o));
  }

  dispose(): void {
    this.changed.dispose();
  }
}

const VERDICTS = ["PASS", "FAIL", "FLAKY", "ERROR", "SKIP", "BUDGET", "CANCELLED"];

export function registerRunsView(server: EvalServer, log: vscode.LogOutputChannel): vscode.Disposable[] {
  const runs = new RunsView(server, log);
  const view = vscode.window.createTreeView(RUNS_VIEW_ID, { treeDataProvider: runs, canSelectMany: true });
  runs.view = view;
  const compare = async (a: RunEntry, b: RunEntry) => {
    await showRun(server, { uri: a.uri ?? undefined, name: a.name, reportPath: a.reportPath ?? undefined, againstReportPath: b.reportPath ?? undefined, compare: true }, log);
  };
  return [
    runs,
    view,
    server.onRunState((p) => p.running === 0 && runs.refresh()),
    server.onDidChangeState(() => runs.refresh()),
    vscode.commands.registerCommand("evalens.runs.refresh", () => runs.refresh()),
    vscode.commands.registerCommand("evalens.runs.open", async (e?: RunEntry) => {
      if (e?.reportPath) {
        await showRun(server, { uri: e.uri ?? undefined, name: e.name, reportPath: e.reportPath }, log);
      }
    }),
    vscode.commands.registerCommand("evalens.runs.filter", async () => {
      const verdicts = await vscode.window.showQuickPick(
        VERDICTS.map((v) => ({ label: v, picked: runs.filter.verdicts?.includes(v) ?? false })),
        { canPickMany: true, title: "evalens Runs: keep these verdicts (none: all)" },
      );
      if (verdicts === undefined) {
        return;
      }
      const engine = await vscode.window.showInputBox({
        title: "evalens Runs: engine (empty: all)",
        value: runs.filter.engine ?? "",
        placeHolder: "claude-code, codex",
      });
      if (engine === undefined) {
        return;
      }
      const since = await vscode.window.showInputBox({
        title: "evalens Runs: since (a date, e.g. 2026-02-22; empty: all)",
        value: runs.filter.since ?? "",
        validateInput: (t) => (!t.trim() || /^\d{4}-\d{2}-\d{2}/.test(t.trim()) ? undefined : "a date like 2026-02-22"),
      });
      if (since === undefined) {
        return;
      }
      runs.filter = {
        ...(verdicts.length ? { verdicts: verdicts.map((v) => v.label) } : {}),
        ...(engine.trim() ? { engine: engine.trim() } : {}),
        ...(since.trim() ? { since: since.trim() } : {}),
      };
      runs.refresh();
    }),
    vscode.commands.registerCommand("evalens.runs.clearFilter", () => {
      runs.filter = {};
      runs.refresh();
    }),
    vscode.commands.registerCommand("evalens.runs.compare", async (e?: RunEntry, selected?: RunEntry[]) => {
      const chosen = selected && selected.length > 1 ? selected : e ? [e] : [...view.selection];
      if (chosen.length === 2) {
        if (!comparable(chosen[0], chosen[1])) {
          void vscode.window.showInformationMessage("Compare two runs of the same eval, each with a report.");
          return;
        }
        await compare(chosen[0], chosen[1]);
        return;
      }
      if (chosen.length !== 1) {
        void vscode.window.showInformationMessage("Select one run (then pick the other) or two runs of the same eval.");
        return;
      }
      const others = runs.others(chosen[0]);
      if (!others.length) {
        void vscode.window.showInformationMessage(`"${chosen[0].name}" has no other run with a report to compare with.`);
        return;
      }
      const pick = await vscode.window.showQuickPick(
        others.map((o) => ({ label: o.name, description: runDescription(o), entry: o })),
        { title: `Compare ${chosen[0].name} (${runDescription(chosen[0])}) with…` },
      );
      if (pick) {
        await compare(chosen[0], pick.entry);
      }
    }),
  ];
}
