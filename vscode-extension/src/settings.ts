/** The `evalens.*` settings, read once into a plain object that travels to the server unchanged. */
import type { RunOverrides } from "./overrides";

export interface EvalensSettings {
  engine: string;
  judge: string;
  timeout: number;
  maxParallelRuns: number;
  server: { path: string; args: string[] };
  apiKeyEnvVars: string[];
  /** Rule code (or glob) -> level; the server checks codes and levels and reports mistakes. */
  rules: Record<string, string>;
  configurationPreference: string;
  /** Which platform's rules a SKILL.md is checked against (`auto`: by its context); the server validates it. */
  skillProfile: string;
  /** `evalens.run.*`: the "Run N×" profile and lens, and the budget of every batch (0: no limit). */
  run: RunSettings;
}

export interface RunSettings {
  repeats: number;
  maxCost: number;
  maxTokens: number;
}

export const DEFAULT_SETTINGS: EvalensSettings = {
  engine: "auto",
  judge: "",
  timeout: 0,
  maxParallelRuns: 2,
  server: { path: "", args: [] },
  apiKeyEnvVars: ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"],
  rules: {},
  configurationPreference: "editorFirst",
  skillProfile: "auto",
  run: { repeats: 5, maxCost: 0, maxTokens: 0 },
};

const PREFERENCES = ["editorFirst", "filesystemFirst", "editorOnly"];
/** `evalens.skillProfile`'s values (package.json's enum; the server's `PROFILES` plus `auto`). */
export const SKILL_PROFILES = ["auto", "agentskills", "claude-code", "uaaps"];

function stringMap(value: unknown): Record<string, string> {
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    return {};
  }
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/** What `vscode.workspace.getConfiguration("evalens")` offers; kept minimal so tests can fake it. */
export interface ConfigurationReader {
  get<T>(key: string): T | undefined;
}

function stringList(value: unknown, fallback: string[]): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : fallback;
}

function positive(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : fallback;
}

/** Settings as the server reads them (initializationOptions, workspace/configuration `evalens`): "use the
 * eval config's value" travels as null, so the server keeps its own precedence. */
export interface WireSettings {
  engine: string | null;
  judge: string | null;
  timeout: number | null;
  maxParallelRuns: number;
  apiKeyEnvVars: string[];
  server: { path: string; args: string[] };
  rules: Record<string, string>;
  configurationPreference: string;
  skillProfile: string;
  run: { repeats: number; maxCost: number | null; maxTokens: number | null };
  /** The workspace's remembered run overrides (not a setting: "Run Overrides…", workspaceState). Every run
   * command carries them; the server needs them too to judge staleness against the next run's inputs. */
  runOverrides: { engine: string | null; model: string | null; maxCost: number | null };
}

export function toWire(s: EvalensSettings, o: RunOverrides = {}): WireSettings {
  return {
    engine: s.engine && s.engine !== "auto" ? s.engine : null,
    judge: s.judge || null,
    timeout: s.timeout > 0 ? s.timeout : null,
    maxParallelRuns: s.maxParallelRuns,
    apiKeyEnvVars: s.apiKeyEnvVars,
    server: s.server,
    rules: s.rules,
    configurationPreference: s.configurationPreference,
    skillProfile: s.skillProfile,
    run: { repeats: s.run.repeats, maxCost: s.run.maxCost > 0 ? s.run.maxCost : null, maxTokens: s.run.maxTokens > 0 ? s.run.maxTokens : null },
    runOverrides: { engine: o.engine || null, model: o.model || null, maxCost: o.maxCost !== undefined && o.maxCost >= 0 ? o.maxCost : null },
  };
}

function nonNegative(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : fallback;
}

export function readSettings(config: ConfigurationReader): EvalensSettings {
  const d = DEFAULT_SETTINGS;
  return {
    engine: config.get<string>("engine") || d.engine,
    judge: (config.get<string>("judge") ?? d.judge).trim(),
    timeout: positive(config.get("timeout"), 0),
    maxParallelRuns: Math.floor(positive(config.get("maxParallelRuns"), d.maxParallelRuns)),
    server: {
      path: (config.get<string>("server.path") ?? "").trim(),
      args: stringList(config.get("server.args"), []),
    },
    apiKeyEnvVars: stringList(config.get("apiKeyEnvVars"), d.apiKeyEnvVars).filter((n) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n)),
    rules: stringMap(config.get("rules")),
    configurationPreference: PREFERENCES.find((p) => p === config.get<string>("configurationPreference")) ?? d.configurationPreference,
    skillProfile: SKILL_PROFILES.find((p) => p === config.get<string>("skillProfile")) ?? d.skillProfile,
    run: {
      repeats: Math.min(100, Math.floor(nonNegative(config.get("run.repeats"), d.run.repeats))),
      maxCost: nonNegative(config.get("run.maxCost"), 0),
      maxTokens: Math.floor(nonNegative(config.get("run.maxTokens"), 0)),
    },
  };
}

/** Settings whose change needs a new server process (the others are sent as didChangeConfiguration). */
export function needsRestart(before: EvalensSettings, after: EvalensSettings): boolean {
  return (
    before.server.path !== after.server.path ||
    JSON.stringify(before.server.args) !== JSON.stringify(after.server.args) ||
    JSON.stringify(before.apiKeyEnvVars) !== JSON.stringify(after.apiKeyEnvVars)
  );
}

/** The value of one `workspace/configuration` item whose section is `evalens` or `evalens.<key…>`. */
export function configurationValue(section: string, settings: EvalensSettings, o: RunOverrides = {}): unknown {
  const wire = toWire(settings, o) as unknown as Record<string, unknown>;
  const sub = section.slice("evalens".length).replace(/^\./, "");
  if (!sub) {
    return wire;
  }
  const value = sub.split(".").reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined), wire);
  return value === undefined ? null : value;
}

export function isEvalensSection(section: string | undefined): section is string {
  return section === "evalens" || (section ?? "").startsWith("evalens.");
}
