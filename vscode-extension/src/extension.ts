/** Entry point: wires the server, the Test Explorer, the status bar and the commands together. */
import * as vscode from "vscode";
import { BundledEnv } from "./bundledEnv";
import { currentSettings, ServerManager } from "./client";
import { execProcess } from "./install";
import { write } from "./logChannel";
import { registerCommands } from "./commands";
import { COMPARE_COMMAND, compareEnginesAndArms } from "./comparison";
import { PythonExtensionInterpreter } from "./interpreter";
import { vscodeSaveGuard } from "./saveBeforeRun";
import { OverridesStore, pickOverrides } from "./overrides";
import { registerRunPageSerializer } from "./runView";
import { registerRunsView } from "./runsView";
import { StatusBar } from "./statusBar";
import { EvalTestController } from "./testController";

let server: ServerManager | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel("evalens", { log: true });
  const interpreters = new PythonExtensionInterpreter(log);
  // The wheels ship in the .vsix; the venv lives in the extension's global storage, so it survives updates of the
  // workspace and is shared by every window (bundledEnv.ts).
  const env = new BundledEnv(
    execProcess,
    {
      wheels: vscode.Uri.joinPath(context.extensionUri, "bundled", "wheels").fsPath,
      venv: vscode.Uri.joinPath(context.globalStorageUri, "venv").fsPath,
    },
    (line) => write(log, line),
  );
  server = new ServerManager(log, interpreters, env);
  const tests = new EvalTestController(server, () => currentSettings(), log, vscodeSaveGuard);
  server.lensHooks = tests;
  server.saveGuard = vscodeSaveGuard;
  const overrides = new OverridesStore(context.workspaceState);
  server.overrides = () => overrides.get();
  context.subscriptions.push(
    log,
    interpreters,
    tests,
    new StatusBar(server),
    ...registerCommands(server, tests, log),
    overrides,
    overrides.onDidChange(() => server?.overridesChanged()),
    vscode.commands.registerCommand("evalens.runOverrides", () => pickOverrides(overrides)),
    vscode.commands.registerCommand(COMPARE_COMMAND, () => compareEnginesAndArms(server!, tests)),
    ...registerRunsView(server, log),
    registerRunPageSerializer(server, log),
    { dispose: () => void server?.dispose() },
  );
  void server.start();
}

export async function deactivate(): Promise<void> {
  await server?.dispose();
  server = undefined;
}
