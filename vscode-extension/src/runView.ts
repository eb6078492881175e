/** "Show run": the server renders what the agent did (evalens.runView); a webview beside the eval file shows it. */
import * as vscode from "vscode";
import type { EvalServer } from "./client";

export const RUN_VIEW_COMMAND = "evalens.runView";
export const VIEW_TYPE = "evalens.run";

/** The answer of `evalens.runView`. */
export interface RunViewAnswer {
  format: "html" | "markdown";
  text: string;
  title: string;
  reportPath: string;
  anchor?: string | null;
}

/** What to show: a unit of an eval file, or (with reportPath alone) a whole report; `compare`: the unit's two
 * most recent runs side by side. */
export interface RunViewTarget {
  uri?: string;
  name?: string;
  reportPath?: string;
  compare?: boolean;
}

/** The page with a Content-Security-Policy that allows nothing but its own inline style and (nonced) script:
 * the page needs no network, and the agent's text in it must never run. */
export function webviewHtml(page: string, nonce: string, cspSource = ""): string {
  const csp =
    `default-src 'none'; img-src ${cspSource} data:; style-src 'unsafe-inline'; ` + `script-src 'nonce-${nonce}';`;
  const meta = `<meta http-equiv="Content-Security-Policy" content="${csp}">`;
  const withMeta = page.includes("<head>") ? page.replace("<head>", `<head>${meta}`) : meta + page;
  return withMeta.split("<script>").join(`<script nonce="${nonce}">`);
}

export function nonce(): string {
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  let out = "";
  for (let i = 0; i < 32; i++) {
    out += chars.charAt(Math.floor(Math.random() * chars.length));
  }
  return out;
}

const panels = new Map<string, vscode.WebviewPanel>();

/** Open (or refresh) the run page of `target` beside the active editor; false when there is no run yet. */
export async function showRun(
  server: EvalServer,
  target: RunViewTarget,
  log: vscode.LogOutputChannel,
  quiet = false,
): Promise<boolean> {
  let page: RunViewAnswer | null;
  try {
    page = await server.executeCommand<RunViewAnswer | null>(RUN_VIEW_COMMAND, { ...target, format: "html" });
  } catch (err) {
    log.error(`${RUN_VIEW_COMMAND} failed: ${String(err)}`);
    if (!quiet) {
      void vscode.window.showErrorMessage(`Could not show the run: ${String(err)}`);
    }
    return false;
  }
  if (!page?.text) {
    if (quiet) {
      return false;
    }
    const what = target.name ? `"${target.name}"` : "this file";
    void vscode.window.showInformationMessage(`No run recorded yet for ${what}: run it first.`);
    return false;
  }
  const key = (target.compare ? "compare:" : "") + (target.name ? `${target.uri ?? page.reportPath}#${target.name}` : page.reportPath);
  let panel = panels.get(key);
  if (!panel) {
    panel = vscode.window.createWebviewPanel(
      VIEW_TYPE,
      page.title,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, enableFindWidget: true, localResourceRoots: [] },
    );
    panels.set(key, panel);
    panel.onDidDispose(() => panels.delete(key));
  }
  panel.title = page.title;
  panel.webview.html = webviewHtml(page.text, nonce(), panel.webview.cspSource);
  panel.reveal(vscode.ViewColumn.Beside, true);
  return true;
}
