/** The evalens server's custom commands and notifications (see vscode-extension/README.md, "Server contract").
 * Their types are generated from server/wire.py into protocol.generated.ts (`python -m evalens.server.wire_ts
 * --write`; tests/server/test_wire.py fails when it is out of date); this module re-exports them beside the helpers
 * the extension builds on them. */
import { Commands } from "./protocol.generated";

export * from "./protocol.generated";

/** Identity of a case across discovery, runs and notifications. */
export function caseKey(uri: string, name: string): string {
  return `${uri}#${name}`;
}

/** A lens command that runs many units as one batch: `evalens.runAll`, `evalens.runFile`, or `evalens.runCase` on a
 * whole file (`name: "*"`), not a dry run. */
export function isLensBatch(command: string, args: unknown[]): boolean {
  const first = args[0] && typeof args[0] === "object" ? (args[0] as Record<string, unknown>) : {};
  if (first.dryRun === true) {
    return false;
  }
  return command === Commands.runAll || command === Commands.runFile || (command === Commands.runCase && first.name === "*");
}

/** Arguments of an `evalens.runCase` lens command: one object `{uri, name}` (positional `[uri, name]` also accepted);
 * `runs` when the lens asks for repeats ("Run 5×"), so the turns of each run say "run k/N". */
export function lensRunTarget(args: unknown[]): { uri: string; name: string; dryRun: boolean; runs?: number } | undefined {
  const [first, second] = args;
  if (first && typeof first === "object") {
    const o = first as Record<string, unknown>;
    if (typeof o.uri === "string" && typeof o.name === "string") {
      const runs = typeof o.runs === "number" && o.runs > 1 ? { runs: o.runs } : {};
      return { uri: o.uri, name: o.name, dryRun: o.dryRun === true, ...runs };
    }
  }
  if (typeof first === "string" && typeof second === "string") {
    return { uri: first, name: second, dryRun: false };
  }
  return undefined;
}
