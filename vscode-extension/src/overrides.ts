/** Per-run overrides (engine, model, runs, budget): chosen in a quick pick, remembered per workspace
 * (workspaceState), and laid over the settings of every run command the extension sends (#27). */
import * as vscode from "vscode";
import { CaseCommandArgs, Commands } from "./protocol";

export interface RunOverrides {
  engine?: string;
  model?: string;
  /** Repeats of each unit, when the command asks for none itself ("Run 5×" keeps its own). */
  runs?: number;
  /** USD for the batch, instead of `evalens.run.maxCost`. */
  maxCost?: number;
}

export const OVERRIDES_KEY = "evalens.runOverrides";
const RUN_COMMANDS: readonly string[] = [Commands.runCase, Commands.runFile, Commands.runAll];

/** A run command's argument with the overrides added; what the command says itself wins. Other commands,
 * and a command with no object argument, are left as they are. */
export function withOverrides(command: string, arg: unknown, o: RunOverrides): unknown {
  if (!RUN_COMMANDS.includes(command) || !arg || typeof arg !== "object" || Array.isArray(arg)) {
    return arg;
  }
  const extra: CaseCommandArgs = {};
  if (o.engine) {
    extra.engine = o.engine;
  }
  if (o.model) {
    extra.model = o.model;
  }
  if (o.maxCost !== undefined && o.maxCost >= 0) {
    extra.maxCost = o.maxCost;
  }
  if (o.runs !== undefined && o.runs > 1) {
    extra.runs = o.runs;
  }
  return { ...extra, ...(arg as CaseCommandArgs) };
}

/** The overrides in a few words ("engine codex · model x · 3 runs · budget $0.5"), or "none". */
export function describeOverrides(o: RunOverrides): string {
  const parts = [
    o.engine ? `engine ${o.engine}` : "",
    o.model ? `model ${o.model}` : "",
    o.runs && o.runs > 1 ? `${o.runs} runs` : "",
    o.maxCost !== undefined ? `budget $${o.maxCost}` : "",
  ].filter(Boolean);
  return parts.length ? parts.join(" · ") : "none";
}

/** Parse what the user typed for one override: undefined clears it, null is refused (with the reason). */
export function parseOverride(key: keyof RunOverrides, text: string): { value?: string | number; error?: string } {
  const t = text.trim();
  if (!t) {
    return {};
  }
  if (key === "runs") {
    const n = Number(t);
    return Number.isInteger(n) && n >= 1 && n <= 100 ? { value: n } : { error: "a whole number from 1 to 100" };
  }
  if (key === "maxCost") {
    const n = Number(t.replace(/^\$/, ""));
    return Number.isFinite(n) && n >= 0 ? { value: n } : { error: "US dollars, 0 or more (e.g. 0.50)" };
  }
  return t.length <= 200 ? { value: t } : { error: "at most 200 characters" };
}

/** The workspace's overrides, kept in its workspaceState. */
export class OverridesStore {
  private readonly emitter = new vscode.EventEmitter<RunOverrides>();
  readonly onDidChange = this.emitter.event;

  constructor(private readonly memento: vscode.Memento) {}

  get(): RunOverrides {
    return this.memento.get<RunOverrides>(OVERRIDES_KEY) ?? {};
  }

  async set(o: RunOverrides): Promise<void> {
    const clean = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== "")) as RunOverrides;
    await this.memento.update(OVERRIDES_KEY, Object.keys(clean).length ? clean : undefined);
    this.emitter.fire(clean);
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

const FIELDS: { key: keyof RunOverrides; label: string; prompt: string }[] = [
  { key: "engine", label: "Engine", prompt: "Engine for the next runs (claude-code or codex); empty: the settings'" },
  { key: "model", label: "Model", prompt: "The agent's model (e.g. claude-sonnet-4-5); empty: the engine's default" },
  { key: "runs", label: "Runs", prompt: "Runs of each eval (1-100); empty: 1" },
  { key: "maxCost", label: "Budget", prompt: "US dollars a batch may spend; empty: evalens.run.maxCost" },
];

/** "evalens: Run Overrides…": pick one override to change, type its value; again until Escape. */
export async function pickOverrides(store: OverridesStore): Promise<void> {
  for (;;) {
    const o = store.get();
    const items: (vscode.QuickPickItem & { key?: keyof RunOverrides; clear?: boolean })[] = [
      ...FIELDS.map((f) => ({ label: f.label, description: o[f.key] !== undefined ? String(o[f.key]) : "(settings)", key: f.key })),
      { label: "Clear all overrides", clear: true },
    ];
    const pick = await vscode.window.showQuickPick(items, {
      title: `evalens run overrides (this workspace): ${describeOverrides(o)}`,
      placeHolder: "Choose what to override for the runs you start",
    });
    if (!pick) {
      return;
    }
    if (pick.clear) {
      await store.set({});
      continue;
    }
    const field = FIELDS.find((f) => f.key === pick.key)!;
    const text = await vscode.window.showInputBox({
      title: `evalens run override: ${field.label}`,
      prompt: field.prompt,
      value: o[field.key] !== undefined ? String(o[field.key]) : "",
      validateInput: (t) => parseOverride(field.key, t).error,
    });
    if (text === undefined) {
      continue;
    }
    await store.set({ ...o, [field.key]: parseOverride(field.key, text).value });
  }
}
