/** Checks that evalens is importable by the server's interpreter and offers to pip install it there. */
import { execFile } from "node:child_process";

export interface ProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

export type Exec = (command: string, args: string[], timeoutMs: number) => Promise<ProcessResult>;

export const execProcess: Exec = (command, args, timeoutMs) =>
  new Promise((resolve) => {
    execFile(command, args, { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr || (error && code === -1 ? error.message : "")) });
    });
  });

export type InterpreterCheck = "ok" | "notInstalled" | "noInterpreter";

/** Whether `python -c "import evalens.server"` works, fails, or the interpreter itself cannot be run. */
export async function checkInterpreter(exec: Exec, python: string): Promise<InterpreterCheck> {
  const r = await exec(python, ["-c", "import evalens.server"], 30_000);
  if (r.code === 0) {
    return "ok";
  }
  return r.code === -1 || r.code === 126 || r.code === 127 ? "noInterpreter" : "notInstalled";
}

/** True when `python -c "import evalens.server"` succeeds. */
export async function isEvalensImportable(exec: Exec, python: string): Promise<boolean> {
  return (await checkInterpreter(exec, python)) === "ok";
}

/** The pip command that installs evalens into the given interpreter. */
export function pipInstallArgs(spec = "evalens"): string[] {
  return ["-m", "pip", "install", "--upgrade", spec];
}

/** The few UI calls the install offer needs; VS Code's window API in the extension, fakes in tests. */
export interface InstallUi {
  ask(message: string, ...choices: string[]): Promise<string | undefined>;
  withProgress<T>(title: string, work: () => Promise<T>): Promise<T>;
  info(message: string): void;
  error(message: string): void;
  openSettings(): Promise<void>;
  log(line: string): void;
}

export type InstallOutcome = "installed" | "failed" | "declined" | "settings";

export const INSTALL_CHOICE = "Install with pip";
export const SETTINGS_CHOICE = "Open Settings";

/** Asks before installing evalens into `python` with pip; the caller restarts the server on "installed". */
export async function offerInstall(exec: Exec, python: string, ui: InstallUi): Promise<InstallOutcome> {
  const pick = await ui.ask(
    `evalens is not installed for ${python}. Install it into that environment?`,
    INSTALL_CHOICE,
    SETTINGS_CHOICE,
  );
  if (pick === SETTINGS_CHOICE) {
    await ui.openSettings();
    return "settings";
  }
  if (pick !== INSTALL_CHOICE) {
    return "declined";
  }
  const args = pipInstallArgs();
  ui.log(`Running ${python} ${args.join(" ")}`);
  const result = await ui.withProgress(`Installing evalens into ${python}…`, () => exec(python, args, 10 * 60_000));
  ui.log(result.stdout);
  if (result.code !== 0 || !(await isEvalensImportable(exec, python))) {
    ui.log(result.stderr);
    ui.error(`pip install evalens failed (exit ${result.code}); see the evalens log.`);
    return "failed";
  }
  ui.info("evalens installed; starting the server.");
  return "installed";
}
