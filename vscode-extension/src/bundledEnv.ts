/**
 * The evalens the `.vsix` carries (issue 45): `bundled/wheels/` holds the evalens wheel built from the checkout and
 * every wheel it needs (scripts/bundle_python.py). On first use the extension makes a private virtual environment in
 * its global storage and installs the wheel there with `--no-index`, as ruff's extension and Microsoft's template for
 * Python-tool extensions ship their tool with the extension: no network, no release on a package index, and no PEP
 * 668 refusal (a venv is not the externally managed system Python).
 *
 * The venv is made `--without-pip` and pip runs from its bundled wheel, because Debian's python3 has no `ensurepip`
 * unless python3-venv is installed. Every interpreter tried is logged with its full path, its version and why it was
 * not used: the extension host's PATH is not the user's shell's.
 */
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import type { Exec } from "./install";
import type { LogLine } from "./logChannel";
import { ISOLATED } from "./serverCommand";

/** The oldest Python evalens runs on (pyproject.toml's requires-python). */
export const MIN_PYTHON: [number, number] = [3, 11];

/** The file system calls the install needs; node's in the extension, a fake in tests. */
export interface EnvFs {
  exists(p: string): boolean;
  list(dir: string): string[];
  read(p: string): string | undefined;
  write(p: string, text: string): void;
  remove(p: string): void;
  digest(p: string): string;
  /** Takes the lock folder `p` (atomic mkdir); false while another window holds it. A lock older than
   * `staleMs` is from a window that died mid-install and is taken over. */
  lock(p: string, staleMs: number): boolean;
}

export const nodeFs: EnvFs = {
  exists: (p) => fs.existsSync(p),
  list: (dir) => (fs.existsSync(dir) ? fs.readdirSync(dir) : []),
  read: (p) => (fs.existsSync(p) ? fs.readFileSync(p, "utf8") : undefined),
  write: (p, text) => {
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  },
  remove: (p) => fs.rmSync(p, { recursive: true, force: true }),
  digest: (p) => crypto.createHash("sha256").update(new Uint8Array(fs.readFileSync(p))).digest("hex"),
  lock: (p, staleMs) => {
    fs.mkdirSync(path.dirname(p), { recursive: true });
    try {
      fs.mkdirSync(p);
      return true;
    } catch {
      const age = Date.now() - (fs.statSync(p, { throwIfNoEntry: false })?.mtimeMs ?? 0);
      if (age > staleMs) {
        fs.rmSync(p, { recursive: true, force: true });
        return nodeFs.lock(p, staleMs);
      }
      return false;
    }
  },
};

/** How long an install may hold the lock before another window takes over (pip offline takes under a minute). */
const LOCK_STALE_MS = 10 * 60_000;

export interface EnvPaths {
  /** The bundled wheels (the extension's `bundled/wheels`). */
  wheels: string;
  /** The private venv (in the extension's global storage). */
  venv: string;
}

/** The venv's interpreter. */
export function venvPython(venv: string, platform: NodeJS.Platform = process.platform): string {
  return platform === "win32" ? path.join(venv, "Scripts", "python.exe") : path.join(venv, "bin", "python");
}

/** What the venv holds, written after an install that imported: the bundled wheel (by digest) or a checkout. */
interface Marker {
  source: "bundle" | "checkout";
  digest?: string;
  checkout?: string;
}

const MARKER = "evalens-install.json";

/** One interpreter tried as the venv's base: what it is, or why it cannot be used. */
export interface Probe {
  python: string;
  executable?: string;
  version?: string;
  error?: string;
}

const PROBE = "import sys; print(sys.executable); print('%d.%d.%d' % sys.version_info[:3])";

function firstError(text: string): string {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  return lines.find((l) => /^error:|Error:/i.test(l)) ?? lines[lines.length - 1] ?? "";
}

/** Runs `python` to learn its full path and version; `error` says why it cannot make evalens's venv. */
export async function probePython(exec: Exec, python: string): Promise<Probe> {
  const r = await exec(python, [ISOLATED, "-c", PROBE], 30_000);
  if (r.code !== 0) {
    return { python, error: `cannot run it (exit ${r.code}${r.stderr.trim() ? `: ${firstError(r.stderr)}` : ""})` };
  }
  const [executable, version] = r.stdout.trim().split(/\r?\n/);
  const [major, minor] = (version ?? "").split(".").map(Number);
  if (!(major > MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor >= MIN_PYTHON[1]))) {
    return { python, executable, version, error: `Python ${version}; evalens needs ${MIN_PYTHON.join(".")}+` };
  }
  return { python, executable, version };
}

export function describeProbe(p: Probe): string {
  const what = p.executable ? `${p.python} (${p.executable}, Python ${p.version})` : p.python;
  return p.error ? `${what}: ${p.error}` : what;
}

/** The interpreters that may make the venv, first the one selected in the Python extension. */
export function baseCandidates(selected?: string, platform: NodeJS.Platform = process.platform): string[] {
  const names = platform === "win32" ? ["python", "py"] : ["python3", "python3.13", "python3.12", "python3.11", "python"];
  return [...new Set([...(selected ? [selected] : []), ...names])];
}

export type EnvResult = { python: string; installed: boolean } | { error: string };

/** Installs into the venv with pip from its bundled wheel (the venv has no pip of its own). */
function pipArgs(wheels: string, pipWheel: string, spec: string): string[] {
  return [
    ISOLATED,
    path.join(pipWheel, "pip"),
    "install",
    "--no-index",
    "--find-links",
    wheels,
    "--disable-pip-version-check",
    "--no-input",
    "--no-cache-dir",
    spec,
  ];
}

export class BundledEnv {
  constructor(
    private readonly exec: Exec,
    readonly paths: EnvPaths,
    private readonly log: (line: LogLine) => void,
    private readonly files: EnvFs = nodeFs,
  ) {}

  /** The bundled evalens wheel, or undefined for a `.vsix` built without one. */
  wheel(): string | undefined {
    const name = this.files.list(this.paths.wheels).find((n) => /^evalens-.*\.whl$/.test(n));
    return name && path.join(this.paths.wheels, name);
  }

  get python(): string {
    return venvPython(this.paths.venv);
  }

  private marker(): Marker | undefined {
    try {
      return JSON.parse(this.files.read(path.join(this.paths.venv, MARKER)) ?? "") as Marker;
    } catch {
      return undefined;
    }
  }

  private async imports(): Promise<boolean> {
    return (await this.exec(this.python, [ISOLATED, "-c", "import evalens.server"], 30_000)).code === 0;
  }

  /**
   * The venv's interpreter, made and installed first when it is missing, broken, or holds another bundled wheel
   * than this `.vsix`'s (an update). A checkout the user installed stays until they choose otherwise.
   */
  async ensure(selected?: string): Promise<EnvResult> {
    const wheel = this.wheel();
    if (!wheel) {
      return { error: `this build of the extension carries no evalens wheel (${this.paths.wheels} is empty)` };
    }
    const digest = this.files.digest(wheel);
    const current = async () => {
      const marker = this.marker();
      const fresh = marker && (marker.source === "checkout" || marker.digest === digest);
      return fresh && this.files.exists(this.python) && (await this.imports());
    };
    if (await current()) {
      return { python: this.python, installed: false };
    }
    return this.locked(async () => {
      if (await current()) {
        return { python: this.python, installed: false }; // another window installed it while this one waited
      }
      const error = await this.install(wheel, selected, { source: "bundle", digest });
      return error ? { error } : { python: this.python, installed: true };
    });
  }

  /** Installs a checkout folder (built offline: its build backend is bundled too) into the private venv. */
  async installCheckout(folder: string, selected?: string): Promise<EnvResult> {
    return this.locked(async () => {
      const error = await this.install(folder, selected, { source: "checkout", checkout: folder });
      return error ? { error } : { python: this.python, installed: true };
    });
  }

  /** One install at a time across windows (each has its own extension host, the venv is shared). */
  private async locked(work: () => Promise<EnvResult>, pollMs = 500): Promise<EnvResult> {
    const lock = `${this.paths.venv}.lock`;
    while (!this.files.lock(lock, LOCK_STALE_MS)) {
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
    try {
      return await work();
    } finally {
      this.files.remove(lock);
    }
  }

  /** A fresh venv from the first usable interpreter, then `spec` into it; the error in words, or undefined. */
  private async install(spec: string, selected: string | undefined, marker: Marker): Promise<string | undefined> {
    const pipWheel = this.files.list(this.paths.wheels).find((n) => /^pip-.*\.whl$/.test(n));
    if (!pipWheel) {
      return `no pip wheel in ${this.paths.wheels}`;
    }
    const tried: string[] = [];
    let base: Probe | undefined;
    for (const candidate of baseCandidates(selected)) {
      const probe = await probePython(this.exec, candidate);
      this.log({ level: probe.error ? "warn" : "info", text: `Python for evalens's environment: ${describeProbe(probe)}` });
      if (!probe.error) {
        base = probe;
        break;
      }
      tried.push(describeProbe(probe));
    }
    if (!base) {
      return `no Python ${MIN_PYTHON.join(".")}+ found to make evalens's environment. Tried: ${tried.join("; ")}`;
    }
    this.files.remove(this.paths.venv);
    const baseExe = base.executable ?? base.python;
    const steps: [string, string[]][] = [
      [baseExe, [ISOLATED, "-m", "venv", "--without-pip", this.paths.venv]],
      [this.python, pipArgs(this.paths.wheels, path.join(this.paths.wheels, pipWheel), spec)],
    ];
    for (const [command, args] of steps) {
      this.log({ level: "info", text: `Running ${command} ${args.join(" ")}` });
      const r = await this.exec(command, args, 10 * 60_000);
      if (r.code !== 0) {
        const reason = firstError(r.stderr || r.stdout);
        this.log({ level: "error", text: `${command} failed (exit ${r.code}):\n${(r.stderr || r.stdout).trim()}` });
        return `${command} ${args.slice(1, 3).join(" ")} failed with ${describeProbe(base)} (exit ${r.code})${reason ? `: ${reason}` : ""}`;
      }
    }
    if (!(await this.imports())) {
      return `evalens was installed into ${this.paths.venv} but ${this.python} cannot import evalens.server`;
    }
    this.files.write(path.join(this.paths.venv, MARKER), JSON.stringify(marker));
    this.log({ level: "info", text: `evalens installed into ${this.paths.venv} (from ${spec}, base ${describeProbe(base)})` });
    return undefined;
  }
}
