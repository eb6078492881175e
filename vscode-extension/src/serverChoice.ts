/**
 * Which evalens the server runs, in the order a newcomer needs (issue 45): what the user pointed at wins
 * (`evalens.server.path`), then the Python extension's interpreter if it already has evalens, else the evalens the
 * `.vsix` carries, installed on first use into the extension's private venv. Only a build without the bundled wheel
 * falls back to `python3` on PATH. Each interpreter that cannot serve is logged with its full path, version and the
 * error, because the extension host's PATH is not the user's shell's.
 */
import type { BundledEnv } from "./bundledEnv";
import { describeProbe, probePython } from "./bundledEnv";
import { checkInterpreter, Exec } from "./install";
import type { LogLine } from "./logChannel";
import { bundledServerCommand, ISOLATED, resolveServerCommand, ServerCommand } from "./serverCommand";
import type { EvalensSettings } from "./settings";

export type ServerChoice =
  /** Start this command. */
  | { cmd: ServerCommand }
  /** The user's interpreter runs but lacks evalens: offer the offline ways (install.ts). */
  | { offer: ServerCommand }
  /** Nothing can run the server; `error` says what was tried and why it failed. */
  | { error: string };

export interface ChoiceDeps {
  exec: Exec;
  env: BundledEnv;
  log(line: LogLine): void;
  /** Runs the first-use install with a progress notification (the install takes seconds, not a keystroke). */
  installing<T>(work: () => Promise<T>): Promise<T>;
}

/** `python` cannot serve; the log line names its full path and version when it runs at all. */
async function whyNot(deps: ChoiceDeps, python: string, what: string, cwd?: string): Promise<string> {
  const probe = await probePython(deps.exec, python);
  const r = await deps.exec(python, [ISOLATED, "-c", "import evalens.server"], 30_000, cwd);
  const error = probe.error ?? (r.stderr.trim().split(/\r?\n/).pop() || `exit ${r.code}`);
  const text = `${what}: ${describeProbe({ ...probe, error })}`;
  deps.log({ level: "error", text });
  return text;
}

export async function chooseServer(
  deps: ChoiceDeps,
  settings: EvalensSettings,
  selected: string | undefined,
  cwd?: string,
): Promise<ServerChoice> {
  if (settings.server.path) {
    const cmd = resolveServerCommand(settings);
    if (!cmd.python) {
      return { cmd };
    }
    const check = await checkInterpreter(deps.exec, cmd.python, cwd);
    if (check === "ok") {
      return { cmd };
    }
    const why = await whyNot(deps, cmd.python, "evalens.server.path cannot run the server", cwd);
    return check === "notInstalled" ? { offer: cmd } : { error: why };
  }
  if (selected) {
    if ((await checkInterpreter(deps.exec, selected, cwd)) === "ok") {
      return { cmd: resolveServerCommand(settings, selected) };
    }
    deps.log({ level: "info", text: `The Python extension's interpreter ${selected} has no evalens; using the bundled one` });
  }
  if (deps.env.wheel()) {
    const result = await deps.installing(() => deps.env.ensure(selected));
    if ("error" in result) {
      deps.log({ level: "error", text: `The bundled evalens could not be installed: ${result.error}` });
      return { error: result.error };
    }
    return { cmd: bundledServerCommand(settings, result.python) };
  }
  const cmd = resolveServerCommand(settings);
  const check = await checkInterpreter(deps.exec, cmd.python!, cwd);
  if (check === "ok") {
    return { cmd };
  }
  const why = await whyNot(deps, cmd.python!, "No bundled evalens in this build, and python3 on PATH cannot run the server", cwd);
  return check === "notInstalled" ? { offer: cmd } : { error: why };
}
