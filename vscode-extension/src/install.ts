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

/** True when `python -c "import evalens.server"` succeeds. */
export async function isEvalensImportable(exec: Exec, python: string): Promise<boolean> {
  const r = await exec(python, ["-c", "import evalens.server"], 30_000);
  return r.code === 0;
}

/** The pip command that installs evalens into the given interpreter. */
export function pipInstallArgs(spec = "evalens"): string[] {
  return ["-m", "pip", "install", "--upgrade", spec];
}
