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

/** `page` with a script that keeps `target` as the webview's state, which VS Code hands back to the panel
 * serializer after a window reload (`registerRunPageSerializer`), so the page can be drawn again from the run log.
 * `<` is escaped so no path or name can close the script. */
export function withRestoreState(page: string, target: RunViewTarget): string {
  const state = JSON.stringify({ target }).replace(/</g, "\\u003c");
  const script = `<script>acquireVsCodeApi().setState(${state});</script>`;
  return page.includes("</body>") ? page.replace("</body>", `${script}</body>`) : page + script;
}

/** The target a restored panel's state names, or undefined (a page from before state was kept, or garbage). */
export function restoredTarget(state: unknown): RunViewTarget | undefined {
  const target = (state as { target?: unknown } | undefined)?.target;
  if (!target || typeof target !== "object") {
    return undefined;
  }
  const t = target as Record<string, unknown>;
  const text = (k: string) => (typeof t[k] === "string" ? (t[k] as string) : undefined);
  const out: RunViewTarget = { uri: text("uri"), name: text("name"), reportPath: text("reportPath") };
  if (text("againstReportPath")) {
    out.againstReportPath = text("againstReportPath");
  }
  if (t.compare === true) {
    out.compare = true;
  }
  return out.uri || out.reportPath ? out : undefined;
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

function panelFor(key: string, title: string, restored?: vscode.WebviewPanel): vscode.WebviewPanel {
  let panel = panels.get(key);
  if (panel && restored && panel !== restored) {
    restored.dispose(); // the same run's page is open already
  }
  if (!panel) {
    panel =
      restored ??
      vscode.window.createWebviewPanel(
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

function showLive(key: string, uri: string, name: string, turns: readonly RunTurnParams[]): void {
  const panel = panelFor(key, `evalens: ${name} (running)`);
  const page = withRestoreState(livePage(name, turns), { uri, name }); // after a reload: the unit's last run
  panel.webview.html = webviewHtml(page, nonce(), panel.webview.cspSource);
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
    showLive(key, p.uri, p.name, turns);
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
  restored?: vscode.WebviewPanel,
): Promise<boolean> {
  const unit = target.uri && target.name ? unitKey(target.uri, target.name) : undefined;
  if (unit && !target.compare && liveTurns.has(unit) && !restored) {
    showLive(unit, target.uri!, target.name!, liveTurns.get(unit)!);
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
  const panel = panelFor(key, page.title, restored);
  livePanels.delete(key);
  panel.webview.html = webviewHtml(withRestoreState(page.text, target), nonce(), panel.webview.cspSource);
  if (!restored) {
    panel.reveal(vscode.ViewColumn.Beside, true);
  }
  return true;
}

/** Resolves true once the server runs, false if it fails or `ms` pass first (a restored page waits for it). */
function whenRunning(server: EvalServer, ms: number): Promise<boolean> {
  if (server.state === "running") {
    return Promise.resolve(true);
  }
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      sub.dispose();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), ms);
    const sub = server.onDidChangeState((state) => {
      if (state === "running" || state === "failed") {
        done(state === "running");
      }
    });
  });
}

/** A server that has not started within this long leaves a restored page saying so (a first start that installs
 * the bundled evalens takes under a minute). */
const RESTORE_WAIT_MS = 120_000;

/** Run pages come back after a window reload (VS Code calls this for each `evalens.run` panel it had open,
 * activating the extension by `onWebviewPanel:evalens.run`): each is drawn again from the run log, through the
 * same `evalens.runView` as Show Run, for the target its state kept. */
export function registerRunPageSerializer(server: EvalServer, log: vscode.LogOutputChannel): vscode.Disposable {
  return vscode.window.registerWebviewPanelSerializer(VIEW_TYPE, {
    async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
      const target = restoredTarget(state);
      if (!target) {
        panel.dispose(); // a page from before its target was kept: nothing to draw it from
        return;
      }
      panel.webview.options = { enableScripts: true, localResourceRoots: [] };
      const what = target.name ?? target.reportPath ?? "the run";
      panel.webview.html = webviewHtml(
        withRestoreState(`<!DOCTYPE html><html><head></head><body><p>Loading the run of ${escapeHtml(what)}…</p></body></html>`, target),
        nonce(),
        panel.webview.cspSource,
      );
      if (!(await whenRunning(server, RESTORE_WAIT_MS))) {
        log.warn(`run page of ${what} not restored: the evalens server is ${server.state}`);
        panel.webview.html = webviewHtml(
          withRestoreState(`<!DOCTYPE html><html><head></head><body><p>The evalens server is ${escapeHtml(server.state)}: use Show run again once it runs.</p></body></html>`, target),
          nonce(),
          panel.webview.cspSource,
        );
        return;
      }
      if (!(await showRun(server, target, log, true, panel))) {
        log.info(`run page of ${what} not restored: the run log has no such run any more`);
        panel.webview.html = webviewHtml(
          `<!DOCTYPE html><html><head></head><body><p>No run of ${escapeHtml(what)} is recorded any more.</p></body></html>`,
          nonce(),
          panel.webview.cspSource,
        );
      }
    },
  });
}
