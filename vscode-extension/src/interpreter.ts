/** The interpreter selected in the Python extension, when that extension is installed. */
import * as vscode from "vscode";
import { PythonExtension, PVSC_EXTENSION_ID } from "@vscode/python-extension";

export interface InterpreterSource {
  /** Path of the selected interpreter, or undefined when the Python extension is absent or has none. */
  interpreter(resource?: vscode.Uri): Promise<string | undefined>;
  /** Fires when the user picks another interpreter. */
  onDidChange: vscode.Event<void>;
}

export class PythonExtensionInterpreter implements InterpreterSource, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private api: PythonExtension | undefined;
  private subscription: vscode.Disposable | undefined;

  constructor(private readonly log: vscode.LogOutputChannel) {}

  async interpreter(resource?: vscode.Uri): Promise<string | undefined> {
    if (!vscode.extensions.getExtension(PVSC_EXTENSION_ID)) {
      return undefined;
    }
    try {
      if (!this.api) {
        this.api = await PythonExtension.api();
        this.subscription = this.api.environments.onDidChangeActiveEnvironmentPath(() => this.changed.fire());
      }
      const active = this.api.environments.getActiveEnvironmentPath(resource);
      const env = await this.api.environments.resolveEnvironment(active);
      const exe = env?.executable.uri?.fsPath;
      if (exe && env?.version && (env.version.major < 3 || (env.version.major === 3 && env.version.minor < 11))) {
        this.log.warn(`Python extension interpreter ${exe} is ${env.version.major}.${env.version.minor}; evalens needs 3.11+`);
      }
      return exe;
    } catch (err) {
      this.log.warn(`Python extension API unavailable: ${String(err)}`);
      return undefined;
    }
  }

  dispose(): void {
    this.subscription?.dispose();
    this.changed.dispose();
  }
}
