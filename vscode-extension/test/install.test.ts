import { strict as assert } from "node:assert";
import { test } from "node:test";
import { checkInterpreter, Exec, INSTALL_CHOICE, InstallUi, isEvalensImportable, offerInstall, SETTINGS_CHOICE } from "../src/install";

function fakeUi(answer: string | undefined) {
  const seen = { asked: [] as string[], info: [] as string[], error: [] as string[], settings: 0, progress: [] as string[] };
  const ui: InstallUi = {
    ask: async (message) => {
      seen.asked.push(message);
      return answer;
    },
    withProgress: async (title, work) => {
      seen.progress.push(title);
      return work();
    },
    info: (m) => seen.info.push(m),
    error: (m) => seen.error.push(m),
    openSettings: async () => {
      seen.settings++;
    },
    log: () => undefined,
  };
  return { ui, seen };
}

/** An interpreter where evalens becomes importable once pip install ran (or never, when pip fails). */
function fakePython(pipWorks: boolean) {
  let installed = false;
  const calls: string[][] = [];
  const exec: Exec = async (command, args) => {
    calls.push([command, ...args]);
    if (args[0] === "-c") {
      return { code: installed ? 0 : 1, stdout: "", stderr: "ModuleNotFoundError: No module named 'evalens'" };
    }
    if (args.slice(0, 3).join(" ") === "-m pip install") {
      installed = pipWorks;
      return { code: pipWorks ? 0 : 1, stdout: "Successfully installed evalens", stderr: pipWorks ? "" : "no matching distribution" };
    }
    return { code: 127, stdout: "", stderr: "unexpected" };
  };
  return { exec, calls };
}

test("importability is checked with the interpreter itself", async () => {
  const { exec, calls } = fakePython(true);
  assert.equal(await isEvalensImportable(exec, "/venv/bin/python"), false);
  assert.deepEqual(calls[0], ["/venv/bin/python", "-c", "import evalens.server"]);
});

test("a missing interpreter is told apart from a missing module", async () => {
  const gone: Exec = async () => ({ code: -1, stdout: "", stderr: "spawn python3 ENOENT" });
  assert.equal(await checkInterpreter(gone, "python3"), "noInterpreter");
  const { exec } = fakePython(true);
  assert.equal(await checkInterpreter(exec, "python3"), "notInstalled");
});

test("accepting the offer pip-installs into that interpreter and verifies the import", async () => {
  const { exec, calls } = fakePython(true);
  const { ui, seen } = fakeUi(INSTALL_CHOICE);
  assert.equal(await offerInstall(exec, "/venv/bin/python", ui), "installed");
  assert.match(seen.asked[0], /evalens is not installed for \/venv\/bin\/python/);
  assert.deepEqual(calls[0], ["/venv/bin/python", "-m", "pip", "install", "--upgrade", "evalens"]);
  assert.deepEqual(calls[1], ["/venv/bin/python", "-c", "import evalens.server"]);
  assert.equal(seen.info.length, 1);
});

test("a failing pip reports an error and no restart", async () => {
  const { exec } = fakePython(false);
  const { ui, seen } = fakeUi(INSTALL_CHOICE);
  assert.equal(await offerInstall(exec, "python3", ui), "failed");
  assert.match(seen.error[0], /pip install evalens failed \(exit 1\)/);
});

test("declining installs nothing; Open Settings opens them", async () => {
  const { exec, calls } = fakePython(true);
  assert.equal(await offerInstall(exec, "python3", fakeUi(undefined).ui), "declined");
  const s = fakeUi(SETTINGS_CHOICE);
  assert.equal(await offerInstall(exec, "python3", s.ui), "settings");
  assert.equal(s.seen.settings, 1);
  assert.equal(calls.length, 0);
});
