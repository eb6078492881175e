/** "Show run": the server renders what the agent did (evalens.runView); a webview beside the eval file shows it. */
import * as vscode from "vscode";
import type { EvalServer } from "./client";
import { isTrouble, turnText } from "./liveTurns";
import { caseKey, RunTurnParams, RunViewAnswer, RunViewArgs } from "./protocol";

export const RUN_VIEW_COMMAND = "evalens.runView";
export const VIEW_TYPE = "evalens.run";

/** What to show: `evalens.runView`'s argument (generated from server/wire.py) but its format, which is html
 * here. */
export type RunViewTarget = Omit<RunViewArgs, "format">;

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
/** Panels showing a running unit's live page (by panel key): new turns are posted to them. */
const livePanels = new Set<string>();
/** The turns so far of each unit in flight (by unit key), so Show Run opened mid-run starts with them. */
const liveTurns = new Map<string, RunTurnParams[]>();
/** Turns kept per running unit for a page opened late (the finished run page has every turn). */
export const LIVE_TURNS = 400;

function unitKey(uri: string, name: string): string {
  return caseKey(vscode.Uri.parse(uri).toString(), name);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** One turn as a line of the live page. */
export function turnHtml(p: RunTurnParams): string {
  const cls = isTrouble(p) ? "turn trouble" : `turn ${p.kind}`;
  return `<pre class="${cls}">${escapeHtml(turnText(p))}</pre>`;
}

/** The page of a unit while it runs: its turns so far, new ones appended as they arrive (kept at the bottom
 * unless the reader scrolled up); the finished run page replaces it when the run ends. */
export function livePage(name: string, turns: readonly RunTurnParams[]): string {
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body{font-family:var(--vscode-font-family);color:var(--vscode-foreground);padding:0 1em}
pre.turn{margin:.2em 0;white-space:pre-wrap;font-family:var(--vscode-editor-font-family)}
pre.trouble{color:var(--vscode-errorForeground)} pre.result,pre.note{opacity:.7}
.badge{border:1px solid currentColor;border-radius:3px;padding:0 .4em}
</style></head><body data-anchor="live"><h1>${escapeHtml(name)} <span class="badge">RUNNING</span></h1>
<p class="meta">The agent's turns as they arrive; the run page replaces this when the run ends.</p>
<main id="turns">${turns.map(turnHtml).join("")}</main>
<script>
const main = document.getElementById("turns");
const atBottom = () => window.innerHeight + window.scrollY >= document.body.scrollHeight - 40;
window.scrollTo(0, document.body.scrollHeight);
window.addEventListener("message", (e) => {
  if (typeof e.data?.turn !== "string") return;
  const follow = atBottom();
  main.insertAdjacentHTML("beforeend", e.data.turn);
  if (follow) window.scrollTo(0, document.body.scrollHeight);
});
</script></body></html>`;
}

function panelFor(key: string, title: string): vscode.WebviewPanel {
  let panel = panels.get(key);
  if (!panel) {
    panel = vscode.window.createWebviewPanel(
      VIEW_TYPE,
      title,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, enableFindWidget: true, localResourceRoots: [] },
    );
    panels.set(key, panel);
    panel.onDidDispose(() => {
      panels.delete(key);
      livePanels.delete(key);
    });
  }
  panel.title = title;
  return panel;
}

function showLive(key: string, name: string, turns: readonly RunTurnParams[]): void {
  const panel = panelFor(key, `evalens: ${name} (running)`);
  panel.webview.html = webviewHtml(livePage(name, turns), nonce(), panel.webview.cspSource);
  livePanels.add(key);
  panel.reveal(vscode.ViewColumn.Beside, true);
}

/** A turn of a running unit: kept for a Show Run opened later, and shown in its page if one is open (a page
 * that showed the unit's last run switches to the live page). */
export function followTurn(p: RunTurnParams): void {
  const key = unitKey(p.uri, p.name);
  const turns = liveTurns.get(key) ?? [];
  if (p.seq === 0 && p.run <= 1) {
    turns.length = 0; // a new run of the unit
  }
  turns.push(p);
  if (turns.length > LIVE_TURNS) {
    turns.splice(0, turns.length - LIVE_TURNS);
  }
  liveTurns.set(key, turns);
  const panel = panels.get(key);
  if (!panel) {
    return;
  }
  if (livePanels.has(key)) {
    void panel.webview.postMessage({ turn: turnHtml(p) });
  } else {
    showLive(key, p.name, turns);
  }
}

/** A unit's run ended (its verdict arrived): an open page of it shows the finished run. */
export async function runEnded(server: EvalServer, uri: string, name: string, log: vscode.LogOutputChannel): Promise<void> {
  const key = unitKey(uri, name);
  liveTurns.delete(key);
  if (panels.has(key)) {
    livePanels.delete(key);
    await showRun(server, { uri, name }, log, true);
  }
}

/** No run is in flight any more (a cancelled run sends no verdict): pages still live show their unit's last run. */
export async function allRunsEnded(server: EvalServer, log: vscode.LogOutputChannel): Promise<void> {
  const units = [...liveTurns.entries()].map(([, turns]) => turns[0]).filter((t): t is RunTurnParams => !!t);
  await Promise.all(units.map((t) => runEnded(server, t.uri, t.name, log)));
  liveTurns.clear();
}

/** Open (or refresh) the run page of `target` beside the active editor; false when there is no run yet. A unit
 * that is running shows its live page, which follows it and turns into the run page when it ends. */
export async function showRun(
  server: EvalServer,
  target: RunViewTarget,
  log: vscode.LogOutputChannel,
  quiet = false,
): Promise<boolean> {
  const unit = target.uri && target.name ? unitKey(target.uri, target.name) : undefined;
  if (unit && !target.compare && liveTurns.has(unit)) {
    showLive(unit, target.name!, liveTurns.get(unit)!);
    return true;
  }
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
  const key =
    (target.compare ? `compare:${target.againstReportPath ?? ""}:` : "") +
    (unit ?? (target.name ? `${page.reportPath}#${target.name}` : page.reportPath));
  const panel = panelFor(key, page.title);
  livePanels.delete(key);
  panel.webview.html = webviewHtml(page.text, nonce(), panel.webview.cspSource);
  panel.reveal(vscode.ViewColumn.Beside, true);
  return true;
}
