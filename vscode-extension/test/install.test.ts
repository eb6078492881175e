import { strict as assert } from "node:assert";
import * as path from "node:path";
import { test } from "node:test";
import { BundledEnv, EnvFs, probePython, venvPython } from "../src/bundledEnv";
import {
  BUNDLED_CHOICE,
  CHECKOUT_CHOICE,
  checkInterpreter,
  Exec,
  InstallUi,
  isEvalensImportable,
  offerInstall,
  SETTINGS_CHOICE,
} from "../src/install";
import type { LogLine } from "../src/logChannel";
import { chooseServer } from "../src/serverChoice";
import { readSettings } from "../src/settings";

const WHEELS = "/ext/bundled/wheels";
const VENV = "/storage/venv";
const VPY = venvPython(VENV, "linux");
/** What pip's install leaves in the venv (the fake import check looks for it, so a copied venv imports too). */
const SITE = path.join(VENV, "lib", "site-packages", "evalens");

/** A file system holding the bundled wheels (or not) and whatever the install writes. */
function fakeFs(wheels = ["evalens-0.1.0-py3-none-any.whl", "pip-26.3-py3-none-any.whl", "pygls-2.1.1-py3-none-any.whl"]) {
  const files = new Map<string, string>(wheels.map((w) => [path.join(WHEELS, w), `bytes of ${w}`]));
  const fs: EnvFs = {
    exists: (p) => [...files.keys()].some((k) => k === p || k.startsWith(p + "/")),
    list: (dir) => [...files.keys()].filter((k) => path.dirname(k) === dir).map((k) => path.basename(k)),
    read: (p) => files.get(p),
    write: (p, text) => void files.set(p, text),
    remove: (p) => [...files.keys()].filter((k) => k === p || k.startsWith(p + "/")).forEach((k) => files.delete(k)),
    digest: (p) => `sha-${files.get(p)}`,
    lock: (p) => {
      if (files.has(p)) {
        return false;
      }
      files.set(p, "lock");
      return true;
    },
  };
  return { fs, files };
}

interface FakePython {
  /** What `python -c PROBE` answers: [sys.executable, version]; undefined: not on PATH. */
  pythons: Record<string, [string, string] | undefined>;
  /** The venv's creation fails with this stderr. */
  venvFails?: string;
}

/** Interpreters on a fake PATH; the venv's python imports evalens once pip ran in it, and `files` gets its python. */
function fakeExec(spec: FakePython, files: Map<string, string>) {
  const calls: string[][] = [];
  const exec: Exec = async (command, args) => {
    calls.push([command, ...args]);
    const code = args.slice(0, 2).join(" ");
    if (command === VPY) {
      if (code === "-I -c") {
        return files.has(SITE) && files.has(VPY) ? { code: 0, stdout: "", stderr: "" } : { code: 1, stdout: "", stderr: "ModuleNotFoundError: No module named 'evalens'" };
      }
      if (args[1].endsWith(path.join("pip-26.3-py3-none-any.whl", "pip")) && args[2] === "install") {
        files.set(SITE, "");
        return { code: 0, stdout: "Successfully installed evalens-0.1.0", stderr: "" };
      }
    }
    const known = spec.pythons[command] ?? Object.values(spec.pythons).find((p) => p?.[0] === command);
    if (!known) {
      return { code: -1, stdout: "", stderr: `spawn ${command} ENOENT` };
    }
    if (code === "-I -c" && args[2].startsWith("import sys")) {
      return { code: 0, stdout: `${known[0]}\n${known[1]}\n`, stderr: "" };
    }
    if (code === "-I -c") {
      return { code: 1, stdout: "", stderr: "Traceback…\nModuleNotFoundError: No module named 'evalens'" };
    }
    if (args.slice(0, 3).join(" ") === "-I -m venv") {
      if (spec.venvFails) {
        return { code: 1, stdout: "", stderr: spec.venvFails };
      }
      files.set(VPY, "");
      return { code: 0, stdout: "", stderr: "" };
    }
    if (args.slice(0, 4).join(" ") === "-I -m pip install") {
      return { code: 1, stdout: "", stderr: "error: externally-managed-environment" };
    }
    return { code: 127, stdout: "", stderr: "unexpected" };
  };
  return { exec, calls };
}

function env(spec: FakePython, wheels?: string[]) {
  const { fs, files } = fakeFs(wheels);
  const { exec, calls } = fakeExec(spec, files);
  const log: LogLine[] = [];
  return { env: new BundledEnv(exec, { wheels: WHEELS, venv: VENV }, (l) => log.push(l), fs), exec, calls, log, files };
}

const DEBIAN: FakePython = { pythons: { python3: ["/usr/bin/python3", "3.11.2"] } };

test("the private venv is made --without-pip from the first Python 3.11+ and the bundled wheel installed offline", async () => {
  const t = env({ pythons: { python3: ["/usr/bin/python3", "3.9.2"], "python3.12": ["/usr/local/bin/python3.12", "3.12.4"] } });
  const r = await t.env.ensure();
  assert.deepEqual(r, { python: VPY, installed: true });
  const venv = t.calls.find((c) => c.includes("venv"))!;
  assert.deepEqual(venv, ["/usr/local/bin/python3.12", "-I", "-m", "venv", "--without-pip", VENV]);
  const pip = t.calls.find((c) => c[0] === VPY && c.includes("install"))!;
  assert.deepEqual(pip.slice(1, 8), ["-I", path.join(WHEELS, "pip-26.3-py3-none-any.whl", "pip"), "install", "--no-index", "--find-links", WHEELS, "--disable-pip-version-check"]);
  assert.equal(pip[pip.length - 1], path.join(WHEELS, "evalens-0.1.0-py3-none-any.whl"));
  assert.ok(!t.calls.some((c) => c.includes("pip") && c[0] !== VPY), "nothing is pip-installed into a system Python");
  // the log names each interpreter tried, with its full path and version, and why it was passed over
  const texts = t.log.map((l) => l.text).join("\n");
  assert.match(texts, /python3 \(\/usr\/bin\/python3, Python 3\.9\.2\): Python 3\.9\.2; evalens needs 3\.11\+/);
  assert.match(texts, /python3\.12 \(\/usr\/local\/bin\/python3\.12, Python 3\.12\.4\)/);
});

test("a second start reuses the venv; another bundled wheel (an update) reinstalls it", async () => {
  const t = env(DEBIAN);
  await t.env.ensure();
  const before = t.calls.length;
  assert.deepEqual(await t.env.ensure(), { python: VPY, installed: false });
  assert.ok(!t.calls.slice(before).some((c) => c.includes("venv")), "no second venv");
  t.files.set(path.join(WHEELS, "evalens-0.1.0-py3-none-any.whl"), "bytes of a newer build");
  assert.deepEqual(await t.env.ensure(), { python: VPY, installed: true });
});

test("no usable Python: the error lists every interpreter tried and why", async () => {
  const t = env({ pythons: { python3: ["/usr/bin/python3", "3.10.12"] } });
  const r = await t.env.ensure();
  assert.ok("error" in r);
  assert.match(r.error, /no Python 3\.11\+ found/);
  assert.match(r.error, /python3 \(\/usr\/bin\/python3, Python 3\.10\.12\): Python 3\.10\.12; evalens needs 3\.11\+/);
  assert.match(r.error, /python3\.13: cannot run it \(exit -1: spawn python3\.13 ENOENT\)/);
});

test("a failing venv step names the interpreter, its version and the error", async () => {
  const t = env({ ...DEBIAN, venvFails: "Error: [Errno 13] Permission denied: '/storage/venv'" });
  const r = await t.env.ensure();
  assert.ok("error" in r);
  assert.match(r.error, /\/usr\/bin\/python3 -m venv failed with python3 \(\/usr\/bin\/python3, Python 3\.11\.2\) \(exit 1\): Error: \[Errno 13\] Permission denied/);
  assert.ok(t.log.some((l) => l.level === "error" && /Permission denied/.test(l.text)));
});

test("a build without the bundled wheel says so instead of installing", async () => {
  const t = env(DEBIAN, ["pip-26.3-py3-none-any.whl"]);
  const r = await t.env.ensure();
  assert.ok("error" in r && /carries no evalens wheel/.test(r.error));
  assert.equal(t.calls.length, 0);
});

test("probing reports the full path and version, or why the interpreter cannot run", async () => {
  const t = env(DEBIAN);
  assert.deepEqual(await probePython(t.exec, "python3"), { python: "python3", executable: "/usr/bin/python3", version: "3.11.2" });
  assert.match((await probePython(t.exec, "python9")).error!, /cannot run it.*ENOENT/);
});

const settings = (serverPath = "") => readSettings({ get: (key: string) => (key === "server.path" ? serverPath : undefined) } as never);

function deps(t: ReturnType<typeof env>) {
  const progress: number[] = [];
  return {
    progress,
    deps: {
      exec: t.exec,
      env: t.env,
      log: (l: LogLine) => t.log.push(l),
      installing: <T>(work: () => Promise<T>) => {
        progress.push(1);
        return work();
      },
    },
  };
}

test("with no setting, a system Python that refuses pip gets the bundled evalens in its own venv", async () => {
  const t = env(DEBIAN);
  const d = deps(t);
  const choice = await chooseServer(d.deps, settings(), undefined, "/ws");
  assert.ok("cmd" in choice);
  assert.equal(choice.cmd.source, "bundled");
  assert.deepEqual([choice.cmd.command, ...choice.cmd.args], [VPY, "-I", "-m", "evalens", "lsp"]);
  assert.equal(d.progress.length, 1, "the first-use install shows progress");
});

test("evalens.server.path wins; a Python without evalens gets the offer, and the log names it fully", async () => {
  const t = env(DEBIAN);
  const choice = await chooseServer(deps(t).deps, settings("python3"), undefined, "/ws");
  assert.ok("offer" in choice && choice.offer.command === "python3");
  assert.ok(!t.calls.some((c) => c.includes("venv")), "the user's choice is not replaced silently");
  assert.ok(t.log.some((l) => /python3 \(\/usr\/bin\/python3, Python 3\.11\.2\): ModuleNotFoundError: No module named 'evalens'/.test(l.text)));
  const exe = await chooseServer(deps(t).deps, settings("/opt/evalens/bin/evalens"), undefined);
  assert.ok("cmd" in exe && exe.cmd.command === "/opt/evalens/bin/evalens" && exe.cmd.args[0] === "lsp");
});

test("the Python extension's interpreter is used when it has evalens, else the bundled one", async () => {
  const t = env(DEBIAN);
  const withEvalens: Exec = async (command, args, timeout, cwd) =>
    command === "/home/u/.venv/bin/python" ? { code: 0, stdout: "", stderr: "" } : t.exec(command, args, timeout, cwd);
  const has = await chooseServer({ ...deps(t).deps, exec: withEvalens }, settings(), "/home/u/.venv/bin/python");
  assert.ok("cmd" in has && has.cmd.source === "python-extension");
  const lacks = await chooseServer(deps(t).deps, settings(), "python3");
  assert.ok("cmd" in lacks && lacks.cmd.source === "bundled");
});

/** A UI that answers each modal question with the next of `answers`. */
function fakeUi(...answers: (string | undefined)[]) {
  const seen = { asked: [] as { message: string; detail: string; choices: string[] }[], info: [] as string[], cleared: 0, settings: 0, log: [] as LogLine[] };
  const ui: InstallUi = {
    ask: (message, detail, ...choices) => {
      seen.asked.push({ message, detail, choices });
      return Promise.resolve(answers.shift());
    },
    withProgress: (_title, work) => work(),
    info: (m) => seen.info.push(m),
    openSettings: async () => void seen.settings++,
    clearServerPath: async () => void seen.cleared++,
    pickFolder: async () => "/src/evalens",
    log: (line) => seen.log.push(line),
  };
  return { ui, seen };
}

test("the offer installs the bundled evalens offline and clears evalens.server.path; no pip into the user's Python", async () => {
  const t = env(DEBIAN);
  const { ui, seen } = fakeUi(BUNDLED_CHOICE);
  assert.equal(await offerInstall("/usr/bin/python3", ui, t.env, "setting"), "installed");
  assert.match(seen.asked[0].message, /not installed for \/usr\/bin\/python3 \(from evalens\.server\.path\)/);
  assert.deepEqual(seen.asked[0].choices, [BUNDLED_CHOICE, CHECKOUT_CHOICE, SETTINGS_CHOICE]);
  assert.equal(seen.cleared, 1);
  assert.ok(!t.calls.some((c) => c.join(" ").includes("-m pip")), t.calls.join("\n"));
});

test("a checkout goes into the private venv offline; a failure asks again with the reason", async () => {
  const t = env({ ...DEBIAN, venvFails: "Error: no space left" });
  const { ui, seen } = fakeUi(CHECKOUT_CHOICE, undefined);
  assert.equal(await offerInstall("python3", ui, t.env), "failed");
  assert.match(seen.asked[1].message, /venv failed .*no space left\. Try another way:/);
  const ok = env(DEBIAN);
  assert.equal(await offerInstall("python3", fakeUi(CHECKOUT_CHOICE).ui, ok.env), "installed");
  assert.equal(ok.calls.find((c) => c[0] === VPY && c.includes("install"))!.pop(), "/src/evalens");
});

test("declining installs nothing; the settings choice opens the settings", async () => {
  const t = env(DEBIAN);
  assert.equal(await offerInstall("python3", fakeUi(undefined).ui, t.env), "declined");
  const s = fakeUi(SETTINGS_CHOICE);
  assert.equal(await offerInstall("python3", s.ui, t.env), "settings");
  assert.equal(s.seen.settings, 1);
  assert.equal(t.calls.length, 0);
});

test("importability is checked isolated with the interpreter itself, in the folder the server runs in", async () => {
  const seen: (string | undefined)[] = [];
  const exec: Exec = async (command, args, _t, cwd) => {
    seen.push(cwd);
    return { code: command === "/venv/bin/python" && args[0] === "-I" ? 0 : 1, stdout: "", stderr: "" };
  };
  assert.equal(await isEvalensImportable(exec, "/venv/bin/python", "/ws"), true);
  assert.equal(await checkInterpreter(exec, "python3", "/ws"), "notInstalled");
  const gone: Exec = async () => ({ code: -1, stdout: "", stderr: "spawn python3 ENOENT" });
  assert.equal(await checkInterpreter(gone, "python3"), "noInterpreter");
  assert.deepEqual(seen, ["/ws", "/ws"]);
});

test("a window that finds another's install under way waits, then uses it instead of installing again", async () => {
  const t = env(DEBIAN);
  t.files.set(`${VENV}.lock`, "lock"); // another window is installing
  const waiting = t.env.ensure();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.ok(!t.calls.some((c) => c.includes("venv")), "no second install while the lock is held");
  const other = env(DEBIAN); // the other window's install, finished into the same files
  await other.env.ensure();
  for (const [k, v] of other.files) t.files.set(k, v);
  t.files.delete(`${VENV}.lock`);
  const r = await waiting;
  assert.deepEqual(r, { python: VPY, installed: false });
  assert.ok(!t.calls.some((c) => c.includes("venv")), "it did not install again");
  assert.ok(!t.files.has(`${VENV}.lock`), "the lock is released");
});
