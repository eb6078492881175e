/** One status bar item: server state and the number of evals running. Click shows the log. */
import * as vscode from "vscode";
import type { EvalServer, ServerState } from "./client";

export interface StatusView {
  text: string;
  tooltip: string;
  error: boolean;
}

/** `server` says which process runs the server and where it came from (see `describeOrigin`). */
export function statusView(state: ServerState, running: number, server?: string): StatusView {
  const via = server ? `\nServer: ${server}` : "";
  switch (state) {
    case "starting":
      return { text: "$(loading~spin) evalens", tooltip: "evalens: starting the language server", error: false };
    case "running":
      return running > 0
        ? { text: `$(sync~spin) evalens: ${running} running`, tooltip: `evalens: ${running} eval${running === 1 ? "" : "s"} running`, error: false }
        : { text: "$(beaker) evalens", tooltip: `evalens: language server running${via}`, error: false };
    case "notInstalled":
      return {
        text: "$(warning) evalens",
        tooltip: `evalens is not installed for ${server ?? "the server's Python"}; click for the log`,
        error: true,
      };
    case "failed":
      return { text: "$(error) evalens", tooltip: `evalens: the language server failed; click for the log${via}`, error: true };
    default:
      return { text: "$(circle-slash) evalens", tooltip: "evalens: language server stopped", error: false };
  }
}

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("evalens.status", vscode.StatusBarAlignment.Left, 10);
  private running = 0;
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly server: EvalServer) {
    this.item.name = "evalens";
    this.item.command = "evalens.showLog";
    this.disposables = [
      this.item,
      server.onDidChangeState(() => {
        if (server.state !== "running") {
          this.running = 0;
        }
        this.render();
      }),
      server.onRunState((p) => {
        this.running = typeof p?.running === "number" ? p.running : 0;
        this.render();
      }),
    ];
    this.render();
    this.item.show();
  }

  private render(): void {
    const view = statusView(this.server.state, this.running, this.server.serverDescription);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.backgroundColor = view.error ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
  }

  get text(): string {
    return this.item.text;
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}
