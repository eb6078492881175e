/**
 * Restricted Mode (VS Code's workspace trust, issue 42). A cloned repository or a pull request opened in VS Code is
 * hostile: in an untrusted workspace the extension still checks its eval files (diagnostics, completion, hover are
 * the server reading text) but starts no agent, and it never runs an interpreter the workspace chose. VS Code
 * itself ignores the workspace's values of the settings listed under `restrictedConfigurations` in package.json
 * (`evalens.server.path`, `evalens.server.args`, `evalens.apiKeyEnvVars`); the Python extension's interpreter is
 * skipped here, because it is often the workspace's own `.venv`, whose `python` the repository may have committed.
 * Granting trust restarts the server so both come back.
 */
import * as vscode from "vscode";
import { Commands } from "./protocol";

/** The server commands that start an agent (and spend a key). A dry run of them plans only and stays allowed. */
export const AGENT_COMMANDS: ReadonlySet<string> = new Set<string>([
  Commands.runCase,
  Commands.runFile,
  Commands.runAll,
  Commands.optimizeDescription,
  Commands.runComparison,
  Commands.planComparison, // resolves the arms as the run would (a ref arm asks git)
]);

/** Every other server command reads, plans or edits files in the editor: allowed in Restricted Mode. */
export const RESTRICTED_MODE_COMMANDS: ReadonlySet<string> = new Set<string>([
  Commands.discoverCases,
  Commands.cancelRun,
  Commands.lastReport,
  Commands.showResult,
  Commands.runView,
  Commands.showProblems,
  Commands.newCase,
  Commands.createFile,
  Commands.pickUnits,
  Commands.listRuns,
  Commands.matrix,
]);

export function isTrusted(): boolean {
  return vscode.workspace.isTrusted;
}

function isDryRun(args: unknown[]): boolean {
  const first = args[0];
  return !!first && typeof first === "object" && (first as { dryRun?: unknown }).dryRun === true;
}

/** Whether `command` with `args` would start an agent in this untrusted workspace (false when trusted). */
export function refusedUntrusted(command: string, args: unknown[], trusted = isTrusted()): boolean {
  return !trusted && AGENT_COMMANDS.has(command) && !isDryRun(args);
}

export const TRUST_COMMAND = "workbench.trust.manage";

/** Says why nothing ran, with the way out; resolves once the message is shown (not when it is dismissed). */
export function explainRestricted(): void {
  void vscode.window
    .showWarningMessage(
      "evalens runs no eval in Restricted Mode: this workspace is not trusted, and a run starts an agent with your key.",
      "Manage Workspace Trust",
    )
    .then((pick) => pick && vscode.commands.executeCommand(TRUST_COMMAND));
}

/**
 * The server's lenses as Restricted Mode shows them: a lens that would start an agent says it is locked and opens
 * the trust editor; every other lens is left as it is.
 */
export function restrictLenses(lenses: vscode.CodeLens[] | null | undefined, trusted = isTrusted()): vscode.CodeLens[] | null | undefined {
  if (trusted || !lenses) {
    return lenses;
  }
  return lenses.map((lens) => {
    const command = lens.command;
    if (!command || !refusedUntrusted(command.command, command.arguments ?? [], false)) {
      return lens;
    }
    return new vscode.CodeLens(lens.range, {
      title: `$(lock) ${command.title} (Restricted Mode)`,
      command: TRUST_COMMAND,
      tooltip: "This workspace is not trusted: evalens runs no agent here. Click to manage workspace trust.",
    });
  });
}
