import { strict as assert } from "node:assert";
import { test } from "node:test";
import * as vscode from "vscode";
import { PythonExtensionInterpreter } from "../src/interpreter";
import { installedExtensions } from "./support/vscode-mock";

const log = { info() {}, warn() {}, error() {} } as unknown as vscode.LogOutputChannel;

function fakePythonExtension(executable: string, version = { major: 3, minor: 12 }) {
  const changed = new vscode.EventEmitter<unknown>();
  const state = { executable };
  installedExtensions["ms-python.python"] = {
    isActive: true,
    activate: async () => undefined,
    exports: {
      environments: {
        getActiveEnvironmentPath: () => ({ id: state.executable, path: state.executable }),
        resolveEnvironment: async (env: { path: string }) => ({ executable: { uri: vscode.Uri.file(env.path) }, version }),
        onDidChangeActiveEnvironmentPath: changed.event,
      },
    },
  };
  return { changed, state };
}

test("without the Python extension there is no interpreter", async () => {
  delete installedExtensions["ms-python.python"];
  assert.equal(await new PythonExtensionInterpreter(log).interpreter(), undefined);
});

test("the Python extension's active interpreter is used, and a new selection fires onDidChange", async () => {
  const { changed, state } = fakePythonExtension("/home/u/.venv/bin/python");
  const source = new PythonExtensionInterpreter(log);
  assert.equal(await source.interpreter(), "/home/u/.venv/bin/python");
  let fired = 0;
  source.onDidChange(() => fired++);
  state.executable = "/opt/py312/bin/python3";
  changed.fire({});
  assert.equal(fired, 1);
  assert.equal(await source.interpreter(), "/opt/py312/bin/python3");
  source.dispose();
  delete installedExtensions["ms-python.python"];
});
