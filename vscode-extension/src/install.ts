/**
 * Checks that evalens is importable by the server's interpreter and, when the interpreter the user named in
 * `evalens.server.path` lacks it, offers the ways that work offline (issue 45): the evalens bundled with the
 * extension (its private venv, bundledEnv.ts), a checkout installed into that venv, or another setting. Nothing is
 * pip-installed into the user's interpreter or fetched from a package index: an externally managed Python (PEP 668)
 * refuses the one, evalens has no release on the other.
 */
import { execFile } from "node:child_process";
import type { BundledEnv } from "./bundledEnv";
import type { LogLine } from "./logChannel";
import { ISOLATED } from "./serverCommand";

export interface ProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `cwd`: where the process runs (the import check must run where the server will: `-c` puts cwd on sys.path). */
export type Exec = (command: string, args: string[], timeoutMs: number, cwd?: string) => Promise<ProcessResult>;

export const execProcess: Exec = (command, args, timeoutMs, cwd) =>
  new Promise((resolve) => {
    execFile(command, args, { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024, cwd }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr || (error && code === -1 ? error.message : "")) });
    });
  });

export type InterpreterCheck = "ok" | "notInstalled" | "noInterpreter";

/**
 * Whether `python -I -c "import evalens.server"` works, fails, or the interpreter itself cannot be run, checked in
 * `cwd`, the folder the server will run in, isolated as the server starts (`-I`): the folder is then not on
 * sys.path, so a repository's own `evalens/` package neither answers the check nor runs (issue 42).
 */
export async function checkInterpreter(exec: Exec, python: string, cwd?: string): Promise<InterpreterCheck> {
  const r = await exec(python, [ISOLATED, "-c", "import evalens.server"], 30_000, cwd);
  if (r.code === 0) {
    return "ok";
  }
  return r.code === -1 || r.code === 126 || r.code === 127 ? "noInterpreter" : "notInstalled";
}

/** True when `python -c "import evalens.server"` succeeds. */
export async function isEvalensImportable(exec: Exec, python: string, cwd?: string): Promise<boolean> {
  return (await checkInterpreter(exec, python, cwd)) === "ok";
}

/** The few UI calls the install offer needs; VS Code's window API in the extension, fakes in tests. */
export interface InstallUi {
  /** A modal question (its buttons are never cut and it waits for the user); `detail` below the message. */
  ask(message: string, detail: string, ...choices: string[]): Promise<string | undefined>;
  withProgress<T>(title: string, work: () => Promise<T>): Promise<T>;
  info(message: string): void;
  openSettings(): Promise<void>;
  /** Removes `evalens.server.path` wherever it is set, so the bundled evalens runs. */
  clearServerPath(): Promise<void>;
  pickFolder(): Promise<string | undefined>;
  log(line: LogLine): void;
}

export type InstallOutcome = "installed" | "failed" | "declined" | "settings";

export const BUNDLED_CHOICE = "Use the bundled evalens";
export const CHECKOUT_CHOICE = "Install a checkout…";
export const SETTINGS_CHOICE = "Open Settings";

/** Where the interpreter came from, in words (for the notification and the status bar tooltip). */
export type PythonOrigin = "setting" | "python-extension" | "path" | "bundled";

export function describeOrigin(python: string, origin: PythonOrigin): string {
  switch (origin) {
    case "setting":
      return `${python} (from evalens.server.path)`;
    case "python-extension":
      return `${python} (the interpreter selected in the Python extension)`;
    case "bundled":
      return `${python} (evalens's private environment, from the wheel the extension carries)`;
    default:
      return `${python} (python3 found on PATH)`;
  }
}

/**
 * Offers the offline ways to get evalens when `python` (the user's choice) lacks it; the caller restarts the server
 * on "installed". After a failure the question comes again with the reason, so one failure does not end it.
 */
export async function offerInstall(
  python: string,
  ui: InstallUi,
  env: BundledEnv,
  origin: PythonOrigin = "setting",
): Promise<InstallOutcome> {
  const bundled = env.wheel() !== undefined;
  let message = `evalens is not installed for ${describeOrigin(python, origin)}.`;
  let failed = false;
  for (;;) {
    const detail =
      (bundled ? `"${BUNDLED_CHOICE}" installs the evalens this extension carries into its own environment, offline. ` : "") +
      `"${CHECKOUT_CHOICE}" installs an evalens source folder there. Or point evalens.server.path at a Python or an evalens executable that has it.`;
    const choices = [...(bundled ? [BUNDLED_CHOICE] : []), CHECKOUT_CHOICE, SETTINGS_CHOICE];
    const pick = await ui.ask(message, detail, ...choices);
    if (pick === SETTINGS_CHOICE) {
      await ui.openSettings();
      return "settings";
    }
    let result;
    if (pick === BUNDLED_CHOICE) {
      result = await ui.withProgress("evalens: installing the bundled evalens (offline)…", () => env.ensure());
    } else if (pick === CHECKOUT_CHOICE) {
      const folder = await ui.pickFolder();
      if (!folder) {
        return failed ? "failed" : "declined";
      }
      result = await ui.withProgress(`evalens: installing ${folder} (offline)…`, () => env.installCheckout(folder));
    } else {
      return failed ? "failed" : "declined";
    }
    if ("python" in result) {
      await ui.clearServerPath();
      ui.info(`evalens installed in its own environment (${result.python}); starting the server.`);
      return "installed";
    }
    ui.log({ level: "error", text: result.error });
    failed = true;
    message = `${result.error}. Try another way:`;
  }
}
