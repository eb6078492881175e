/** The palette commands: run at cursor / file / workspace, dry run, last report, restart, log. */
import * as vscode from "vscode";
import type { EvalServer, ServerManager } from "./client";
import { caseAtLine } from "./cases";
import { Commands } from "./protocol";
import { allRunsEnded, followTurn, runEnded, showRun } from "./runView";
import { spendQuestion } from "./spend";
import type { EvalTestController, RunMode } from "./testController";

export const CommandIds = {
  runAtCursor: "evalens.runEvalAtCursor",
  runFile: "evalens.runEvalsInFile",
  runWorkspace: "evalens.runEvalsInWorkspace",
  dryRunAtCursor: "evalens.dryRunEvalAtCursor",
  runRepeatAtCursor: "evalens.runEvalRepeatedAtCursor",
  runFailed: "evalens.runFailedEvals",
  runStale: "evalens.runStaleEvals",
  openLastReport: "evalens.openLastReport",
  showRun: "evalens.showRun",
  compareRuns: "evalens.compareRuns",
  restart: "evalens.restartServer",
  showLog: "evalens.showLog",
} as const;

export function registerCommands(
  server: ServerManager & EvalServer,
  tests: EvalTestController,
  log: vscode.LogOutputChannel,
): vscode.Disposable[] {
  const activeUri = (uri?: vscode.Uri) => uri ?? vscode.window.activeTextEditor?.document.uri;

  /** Runs need a running server; say so (with the log) instead of "no eval case here". */
  const serverReady = (): boolean => {
    if (server.state === "running") {
      return true;
    }
    void vscode.window
      .showWarningMessage(`The evalens server is ${server.state}.`, "Show Log", "Restart Server")
      .then((pick) => {
        if (pick === "Show Log") {
          log.show();
        } else if (pick === "Restart Server") {
          void server.restart();
        }
      });
    return false;
  };

  /** What "Show run" shows: `{uri, name}` (lens, hover link), a Test Explorer item, or the case at the cursor. */
  const runTarget = async (arg?: unknown): Promise<{ uri: string; name: string } | undefined> => {
    if (arg && typeof arg === "object" && "uri" in arg && "name" in arg) {
      const a = arg as { uri: unknown; name: unknown };
      if (typeof a.uri === "string" && typeof a.name === "string") {
        return { uri: a.uri, name: a.name };
      }
    }
    if (arg && typeof arg === "object" && "id" in arg) {
      const data = tests.caseData(arg as vscode.TestItem);
      return data ? { uri: data.uri, name: data.name } : undefined;
    }
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      return undefined;
    }
    await tests.refreshFile(editor.document.uri);
    const file = tests.fileItem(editor.document.uri);
    const items = file ? [...iterate(file.children)] : [];
    const hit = caseAtLine(
      items.map((item) => ({ item, range: tests.caseData(item)!.range })),
      editor.selection.active.line,
    );
    const data = hit ? tests.caseData(hit.item) : undefined;
    return data ? { uri: data.uri, name: data.name } : undefined;
  };

  const runAtCursor = async (mode: boolean | RunMode) => {
    if (!serverReady()) {
      return;
    }
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showInformationMessage("Open an eval file to run the case at the cursor.");
      return;
    }
    await tests.refreshFile(editor.document.uri);
    const file = tests.fileItem(editor.document.uri);
    const items = file ? [...iterate(file.children)] : [];
    const line = editor.selection.active.line;
    const hit = caseAtLine(
      items.map((item) => ({ item, range: tests.caseData(item)!.range })),
      line,
    );
    if (!hit) {
      void vscode.window.showInformationMessage("No eval case at the cursor.");
      return;
    }
    await tests.runItems([hit.item], mode);
  };

  /** Workspace-wide commands start real agent runs: say what will run, where, and ask once (modal). */
  const confirmSpend = async (items: vscode.TestItem[], what: string): Promise<boolean> => {
    const units = items.map((i) => ({ label: i.label, packageRoot: tests.caseData(i)?.packageRoot ?? "" }));
    const q = spendQuestion(units, what);
    return (await vscode.window.showWarningMessage(q.message, { modal: true, detail: q.detail }, q.run)) === q.run;
  };

  /** "Run failed" / "Run stale" over the workspace: the server picks the units (the CLI's --failed / --stale),
   * the user sees exactly those, and exactly those run. */
  const runPicked = async (select: "failed" | "stale") => {
    if (!serverReady()) {
      return;
    }
    await tests.refreshAll();
    const picked = await tests.pick(tests.allCases(), select);
    if (!picked) {
      return;
    }
    if (picked.length === 0) {
      void vscode.window.showInformationMessage(`No ${select} evals to run.`);
      return;
    }
    if (await confirmSpend(picked, `${select} in the workspace`)) {
      await tests.runItems(picked, { select, picked: true });
    }
  };

  return [
    vscode.commands.registerCommand(CommandIds.runAtCursor, () => runAtCursor(false)),
    vscode.commands.registerCommand(CommandIds.dryRunAtCursor, () => runAtCursor(true)),
    vscode.commands.registerCommand(CommandIds.runRepeatAtCursor, () => runAtCursor({ repeat: true })),
    vscode.commands.registerCommand(CommandIds.runFailed, () => runPicked("failed")),
    vscode.commands.registerCommand(CommandIds.runStale, () => runPicked("stale")),
    vscode.commands.registerCommand(CommandIds.runFile, async (uri?: vscode.Uri) => {
      const target = activeUri(uri);
      if (!target || !serverReady()) {
        return;
      }
      await tests.refreshFile(target);
      const file = tests.fileItem(target);
      if (!file) {
        void vscode.window.showInformationMessage("No eval cases in this file.");
        return;
      }
      await tests.runItems([file], false);
    }),
    vscode.commands.registerCommand(CommandIds.runWorkspace, async () => {
      if (!serverReady()) {
        return;
      }
      await tests.refreshAll();
      const all = tests.allCases();
      if (all.length === 0) {
        void vscode.window.showInformationMessage("No eval cases found in the workspace.");
        return;
      }
      if (await confirmSpend(all, "every eval in the workspace")) {
        await tests.runItems(all, false);
      }
    }),
    vscode.commands.registerCommand(CommandIds.openLastReport, async () => {
      if (!serverReady()) {
        return;
      }
      const uri = activeUri();
      try {
        const report = await server.executeCommand<{ path: string } | null>(
          Commands.lastReport,
          uri ? { uri: uri.toString() } : {},
        );
        if (!report?.path) {
          void vscode.window.showInformationMessage("No eval report yet: run an eval first.");
          return;
        }
        // an evalens report opens rendered; another format's own result file opens as it is
        if (!report.path.endsWith(".json") || !(await showRun(server, { reportPath: report.path }, log, true))) {
          await vscode.commands.executeCommand("vscode.open", vscode.Uri.file(report.path));
        }
      } catch (err) {
        log.error(`evalens.lastReport failed: ${String(err)}`);
        void vscode.window.showErrorMessage(`Could not open the last report: ${String(err)}`);
      }
    }),
    vscode.commands.registerCommand(CommandIds.showRun, async (arg?: unknown) => {
      if (!serverReady()) {
        return;
      }
      const target = await runTarget(arg);
      if (!target) {
        void vscode.window.showInformationMessage("Put the cursor in an eval case (or pick one in the Test Explorer) to show its run.");
        return;
      }
      await showRun(server, target, log);
    }),
    vscode.commands.registerCommand(CommandIds.compareRuns, async (arg?: unknown) => {
      if (!serverReady()) {
        return;
      }
      const target = await runTarget(arg);
      if (!target) {
        void vscode.window.showInformationMessage("Put the cursor in an eval case (or pick one in the Test Explorer) to compare its runs.");
        return;
      }
      await showRun(server, { ...target, compare: true }, log);
    }),
    // Show Run follows a running unit and shows the finished run when it ends (#27 defect 9)
    server.onRunTurn((p) => followTurn(p)),
    server.onVerdictChanged((p) => void runEnded(server, p.uri, p.name, log)),
    server.onRunState((p) => {
      if (p.running === 0) {
        void allRunsEnded(server, log);
      }
    }),
    vscode.commands.registerCommand(CommandIds.restart, () => server.restart()),
    vscode.commands.registerCommand(CommandIds.showLog, () => log.show()),
  ];
}

function* iterate(collection: vscode.TestItemCollection): Generator<vscode.TestItem> {
  const items: vscode.TestItem[] = [];
  collection.forEach((i) => items.push(i));
  yield* items;
}
