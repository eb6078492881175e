/**
 * Decides which process runs the language server: the explicit setting, the Python extension's interpreter when it
 * has evalens, else the evalens bundled with the extension in its private venv (bundledEnv.ts), else python3.
 */
import type { EvalensSettings } from "./settings";

export type ServerSource = "setting" | "python-extension" | "path" | "bundled";

export interface ServerCommand {
  command: string;
  args: string[];
  source: ServerSource;
  /** The interpreter that must be able to `import evalens`; undefined when an `evalens` executable is used. */
  python?: string;
}

/** `python`, `python3`, `python3.12`, `pypy3`, `python.exe`, … */
export function looksLikePython(executable: string): boolean {
  const base = (executable.split(/[\\/]/).pop() ?? "").toLowerCase().replace(/\.exe$/, "");
  return /^(python|pypy)(\d+(\.\d+)?)?$/.test(base);
}

/**
 * Python starts isolated (`-I`): the server runs in the workspace folder, and a plain `python -m` puts that folder
 * first on `sys.path`, so a repository's own `evalens/` package (or a `json.py` that evalens imports) would run
 * instead of the installed evalens as soon as the folder is opened (issue 42).
 */
export const ISOLATED = "-I";

/**
 * `evalens.server.path` wins; it may name an `evalens` executable (→ `evalens lsp`) or a Python interpreter
 * (→ `python -I -m evalens lsp`). Else the Python extension's interpreter, else `python3` on PATH.
 */
export function resolveServerCommand(settings: EvalensSettings, extensionInterpreter?: string): ServerCommand {
  const extra = settings.server.args;
  const configured = settings.server.path;
  if (configured) {
    if (looksLikePython(configured)) {
      return { command: configured, args: [ISOLATED, "-m", "evalens", "lsp", ...extra], source: "setting", python: configured };
    }
    return { command: configured, args: ["lsp", ...extra], source: "setting" };
  }
  if (extensionInterpreter) {
    return {
      command: extensionInterpreter,
      args: [ISOLATED, "-m", "evalens", "lsp", ...extra],
      source: "python-extension",
      python: extensionInterpreter,
    };
  }
  return { command: "python3", args: [ISOLATED, "-m", "evalens", "lsp", ...extra], source: "path", python: "python3" };
}

/** The server from the private venv's interpreter (always a Python, isolated as every Python start is). */
export function bundledServerCommand(settings: EvalensSettings, python: string): ServerCommand {
  return { command: python, args: [ISOLATED, "-m", "evalens", "lsp", ...settings.server.args], source: "bundled", python };
}

export function describeServerCommand(cmd: ServerCommand): string {
  const origin = {
    setting: "from evalens.server.path",
    "python-extension": "interpreter selected in the Python extension",
    path: "python3 on PATH",
    bundled: "the evalens bundled with the extension, in its private environment",
  }[cmd.source];
  return `${[cmd.command, ...cmd.args].join(" ")} (${origin})`;
}
