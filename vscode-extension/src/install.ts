/**
 * Checks that evalens is importable by the server's interpreter and, when it is not, offers every way that works:
 * pip into that interpreter, pipx (its own environment, then `evalens.server.path` names the executable), pip from
 * a checkout folder, or setting `evalens.server.path` by hand. A failed pip (an externally managed Python refuses
 * it) offers the others again instead of ending at "see the log".
 */
import { execFile } from "node:child_process";
import * as path from "node:path";
import { LogLine, pipLogLines } from "./logChannel";
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

/** The pip command that installs evalens (or a checkout, editable) into the given interpreter, isolated: `-m pip`
 * in the workspace folder would import a repository's own `pip/` first. */
export function pipInstallArgs(spec = "evalens"): string[] {
  const pip = [ISOLATED, "-m", "pip", "install"];
  return spec === "evalens" ? [...pip, "--upgrade", spec] : [...pip, "-e", spec];
}

/** The few UI calls the install offer needs; VS Code's window API in the extension, fakes in tests. */
export interface InstallUi {
  ask(message: string, ...choices: string[]): Promise<string | undefined>;
  /** An error notification with choices (the extension adds "Show Log"). */
  fail(message: string, ...choices: string[]): Promise<string | undefined>;
  withProgress<T>(title: string, work: () => Promise<T>): Promise<T>;
  info(message: string): void;
  openSettings(): Promise<void>;
  /** Sets `evalens.server.path` (user settings). */
  setServerPath(value: string): Promise<void>;
  pickFolder(): Promise<string | undefined>;
  log(line: LogLine): void;
}

export type InstallOutcome = "installed" | "failed" | "declined" | "settings";

export const PIP_CHOICE = "Install with pip";
export const PIPX_CHOICE = "Install with pipx";
export const CHECKOUT_CHOICE = "Install from a checkout…";
export const SETTINGS_CHOICE = "Set evalens.server.path";

/** Where the interpreter came from, in words (for the notification and the status bar tooltip). */
export type PythonOrigin = "setting" | "python-extension" | "path";

export function describeOrigin(python: string, origin: PythonOrigin): string {
  switch (origin) {
    case "setting":
      return `${python} (from evalens.server.path)`;
    case "python-extension":
      return `${python} (the interpreter selected in the Python extension)`;
    default:
      return `${python} (python3 found on PATH)`;
  }
}

async function hasPipx(exec: Exec): Promise<boolean> {
  return (await exec("pipx", ["--version"], 15_000)).code === 0;
}

function lastLine(text: string): string {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  return lines.find((l) => /^error:/i.test(l)) ?? lines[lines.length - 1] ?? "";
}

async function runLogged(exec: Exec, ui: InstallUi, title: string, command: string, args: string[]): Promise<ProcessResult> {
  ui.log({ level: "info", text: `Running ${command} ${args.join(" ")}` });
  const result = await ui.withProgress(title, () => exec(command, args, 10 * 60_000));
  pipLogLines(result.stdout, result.stderr, result.code !== 0).forEach((l) => ui.log(l));
  return result;
}

/** pip into `python` (PyPI or an editable checkout); true when evalens imports afterwards. */
async function pipInstall(
  exec: Exec,
  python: string,
  ui: InstallUi,
  spec: string,
  cwd?: string,
): Promise<string | undefined> {
  const r = await runLogged(exec, ui, `Installing evalens into ${python}…`, python, pipInstallArgs(spec));
  if (r.code === 0 && (await isEvalensImportable(exec, python, cwd))) {
    return undefined;
  }
  return `pip install failed for ${python} (exit ${r.code})${r.stderr.trim() ? `: ${lastLine(r.stderr)}` : ""}`;
}

/** pipx install, then point `evalens.server.path` at the executable pipx put in its bin folder. */
async function pipxInstall(exec: Exec, ui: InstallUi): Promise<string | undefined> {
  const r = await runLogged(exec, ui, "Installing evalens with pipx…", "pipx", ["install", "--force", "evalens"]);
  if (r.code !== 0) {
    return `pipx install evalens failed (exit ${r.code})${r.stderr.trim() ? `: ${lastLine(r.stderr)}` : ""}`;
  }
  const bin = (await exec("pipx", ["environment", "--value", "PIPX_BIN_DIR"], 15_000)).stdout.trim();
  const exe = bin ? path.join(bin, process.platform === "win32" ? "evalens.exe" : "evalens") : "evalens";
  await ui.setServerPath(exe);
  ui.log({ level: "info", text: `evalens.server.path set to ${exe}` });
  return undefined;
}

/**
 * Offers the ways to get evalens for `python`; the caller restarts the server on "installed". After a failure the
 * other ways are offered again (with the reason), so an externally managed Python does not end the story.
 */
export async function offerInstall(
  exec: Exec,
  python: string,
  ui: InstallUi,
  origin: PythonOrigin = "path",
  cwd?: string,
): Promise<InstallOutcome> {
  const pipx = await hasPipx(exec);
  let tried = new Set<string>();
  let message =
    `evalens is not installed for ${describeOrigin(python, origin)}. Install it there with pip` +
    (pipx ? ", install it with pipx," : ",") +
    " or set evalens.server.path to a Python or an evalens executable that has it.";
  let failed = false;
  for (;;) {
    const choices = [PIP_CHOICE, ...(pipx ? [PIPX_CHOICE] : []), CHECKOUT_CHOICE, SETTINGS_CHOICE].filter(
      (c) => !tried.has(c) || c === SETTINGS_CHOICE || c === CHECKOUT_CHOICE,
    );
    const pick = failed ? await ui.fail(message, ...choices) : await ui.ask(message, ...choices);
    if (pick === SETTINGS_CHOICE) {
      await ui.openSettings();
      return "settings";
    }
    let error: string | undefined;
    if (pick === PIP_CHOICE) {
      error = await pipInstall(exec, python, ui, "evalens", cwd);
    } else if (pick === PIPX_CHOICE) {
      error = await pipxInstall(exec, ui);
    } else if (pick === CHECKOUT_CHOICE) {
      const folder = await ui.pickFolder();
      if (!folder) {
        return failed ? "failed" : "declined";
      }
      error = await pipInstall(exec, python, ui, folder, cwd);
    } else {
      return failed ? "failed" : "declined";
    }
    if (error === undefined) {
      ui.info("evalens installed; starting the server.");
      return "installed";
    }
    ui.log({ level: "error", text: error });
    tried = new Set([...tried, pick]);
    failed = true;
    message = `${error}. Try another way:`;
  }
}
