import { strict as assert } from "node:assert";
import { test } from "node:test";
import {
  CHECKOUT_CHOICE,
  checkInterpreter,
  Exec,
  InstallUi,
  isEvalensImportable,
  offerInstall,
  PIP_CHOICE,
  PIPX_CHOICE,
  SETTINGS_CHOICE,
} from "../src/install";
import type { LogLine } from "../src/logChannel";

/** A UI that answers each question with the next of `answers`. */
function fakeUi(...answers: (string | undefined)[]) {
  const seen = {
    asked: [] as { message: string; choices: string[]; error: boolean }[],
    info: [] as string[],
    settings: 0,
    serverPath: [] as string[],
    progress: [] as string[],
    log: [] as LogLine[],
  };
  const next = (message: string, choices: string[], error: boolean) => {
    seen.asked.push({ message, choices, error });
    return Promise.resolve(answers.shift());
  };
  const ui: InstallUi = {
    ask: (message, ...choices) => next(message, choices, false),
    fail: (message, ...choices) => next(message, choices, true),
    withProgress: async (title, work) => {
      seen.progress.push(title);
      return work();
    },
    info: (m) => seen.info.push(m),
    openSettings: async () => {
      seen.settings++;
    },
    setServerPath: async (value) => {
      seen.serverPath.push(value);
    },
    pickFolder: async () => "/src/evalens",
    log: (line) => seen.log.push(line),
  };
  return { ui, seen };
}

/** An interpreter where evalens becomes importable once pip install ran (or never, when pip fails); pipx optional. */
function fakePython(pipWorks: boolean, pipx = false) {
  let installed = false;
  const calls: string[][] = [];
  const exec: Exec = async (command, args) => {
    calls.push([command, ...args]);
    if (command === "pipx") {
      if (!pipx) {
        return { code: -1, stdout: "", stderr: "spawn pipx ENOENT" };
      }
      if (args[0] === "environment") {
        return { code: 0, stdout: "/home/u/.local/bin\n", stderr: "" };
      }
      return { code: 0, stdout: args[0] === "--version" ? "1.4.3" : "installed package evalens", stderr: "" };
    }
    if (args.slice(0, 2).join(" ") === "-I -c") {
      // only an isolated check counts: a plain `-c` would import the workspace's own evalens/
      return { code: installed ? 0 : 1, stdout: "", stderr: "ModuleNotFoundError: No module named 'evalens'" };
    }
    if (args.slice(0, 4).join(" ") === "-I -m pip install") {
      installed = pipWorks;
      return pipWorks
        ? { code: 0, stdout: "Successfully installed evalens", stderr: "" }
        : { code: 1, stdout: "", stderr: "error: externally-managed-environment\n\n× This environment is externally managed" };
    }
    return { code: 127, stdout: "", stderr: "unexpected" };
  };
  return { exec, calls: () => calls.filter((c) => !(c[0] === "pipx" && c[1] === "--version")) };
}

test("importability is checked with the interpreter itself", async () => {
  const { exec, calls } = fakePython(true);
  assert.equal(await isEvalensImportable(exec, "/venv/bin/python"), false);
  assert.deepEqual(calls()[0], ["/venv/bin/python", "-I", "-c", "import evalens.server"]);
});

test("a missing interpreter is told apart from a missing module", async () => {
  const gone: Exec = async () => ({ code: -1, stdout: "", stderr: "spawn python3 ENOENT" });
  assert.equal(await checkInterpreter(gone, "python3"), "noInterpreter");
  const { exec } = fakePython(true);
  assert.equal(await checkInterpreter(exec, "python3"), "notInstalled");
});

test("the offer names where the interpreter came from and every way that works", async () => {
  const { exec } = fakePython(true, true);
  const { ui, seen } = fakeUi(undefined);
  assert.equal(await offerInstall(exec, "python3", ui, "path"), "declined");
  assert.match(seen.asked[0].message, /not installed for python3 \(python3 found on PATH\)/);
  assert.match(seen.asked[0].message, /evalens\.server\.path/);
  assert.deepEqual(seen.asked[0].choices, [PIP_CHOICE, PIPX_CHOICE, CHECKOUT_CHOICE, SETTINGS_CHOICE]);
  const noPipx = fakeUi(undefined);
  await offerInstall(fakePython(true, false).exec, "/venv/bin/python", noPipx.ui, "python-extension");
  assert.match(noPipx.seen.asked[0].message, /selected in the Python extension/);
  assert.deepEqual(noPipx.seen.asked[0].choices, [PIP_CHOICE, CHECKOUT_CHOICE, SETTINGS_CHOICE]);
});

test("pip installs into that interpreter and verifies the import", async () => {
  const { exec, calls } = fakePython(true);
  const { ui, seen } = fakeUi(PIP_CHOICE);
  assert.equal(await offerInstall(exec, "/venv/bin/python", ui), "installed");
  assert.deepEqual(calls()[0], ["/venv/bin/python", "-I", "-m", "pip", "install", "--upgrade", "evalens"]);
  assert.deepEqual(calls()[1], ["/venv/bin/python", "-I", "-c", "import evalens.server"]);
  assert.equal(seen.info.length, 1);
  assert.ok(seen.log.every((l) => l.level !== "error"));
});

test("a failing pip logs pip's error as an error and offers the other ways, pipx included", async () => {
  const { exec, calls } = fakePython(false, true);
  const { ui, seen } = fakeUi(PIP_CHOICE, PIPX_CHOICE);
  assert.equal(await offerInstall(exec, "python3", ui), "installed");
  assert.equal(seen.asked[1].error, true);
  assert.match(seen.asked[1].message, /pip install failed for python3 \(exit 1\): error: externally-managed-environment/);
  assert.deepEqual(seen.asked[1].choices, [PIPX_CHOICE, CHECKOUT_CHOICE, SETTINGS_CHOICE]);
  assert.ok(seen.log.some((l) => l.level === "error" && /externally-managed/.test(l.text)));
  assert.deepEqual(calls().slice(-2), [["pipx", "install", "--force", "evalens"], ["pipx", "environment", "--value", "PIPX_BIN_DIR"]]);
  assert.deepEqual(seen.serverPath, ["/home/u/.local/bin/evalens"]);
});

test("a checkout is installed editable into the interpreter", async () => {
  const { exec, calls } = fakePython(true);
  const { ui } = fakeUi(CHECKOUT_CHOICE);
  assert.equal(await offerInstall(exec, "python3", ui), "installed");
  assert.deepEqual(calls()[0], ["python3", "-I", "-m", "pip", "install", "-e", "/src/evalens"]);
});

test("declining installs nothing; the settings choice opens evalens.server.path", async () => {
  const { exec, calls } = fakePython(true);
  assert.equal(await offerInstall(exec, "python3", fakeUi(undefined).ui), "declined");
  const s = fakeUi(SETTINGS_CHOICE);
  assert.equal(await offerInstall(exec, "python3", s.ui), "settings");
  assert.equal(s.seen.settings, 1);
  assert.equal(calls().length, 0);
});

test("giving up after a failure is a failure, not a decline", async () => {
  const { exec } = fakePython(false);
  assert.equal(await offerInstall(exec, "python3", fakeUi(PIP_CHOICE, undefined).ui), "failed");
});

test("importability is checked in the folder the server runs in, also after an install", async () => {
  const seen: (string | undefined)[] = [];
  let installed = false;
  const exec: Exec = async (_command, args, _timeout, cwd) => {
    if (args.slice(0, 2).join(" ") === "-I -c") {
      seen.push(cwd);
      // an editable checkout installed while /ws is the cwd (the check runs there, isolated)
      return { code: installed && cwd === "/ws" ? 0 : 1, stdout: "", stderr: "ModuleNotFoundError" };
    }
    if (args.slice(0, 2).join(" ") === "-I -m") {
      installed = true;
      return { code: 0, stdout: "", stderr: "" };
    }
    return { code: -1, stdout: "", stderr: "spawn pipx ENOENT" };
  };
  assert.equal(await checkInterpreter(exec, "python3", "/ws"), "notInstalled");
  const { ui } = fakeUi(PIP_CHOICE);
  assert.equal(await offerInstall(exec, "python3", ui, "path", "/ws"), "installed");
  assert.deepEqual(seen, ["/ws", "/ws"]);
});
