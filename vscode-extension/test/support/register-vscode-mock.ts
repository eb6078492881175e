/** `node --require` hook: `require("vscode")` resolves to the in-memory fake in ./vscode-mock. */
import Module = require("node:module");
import * as path from "node:path";

const mockPath = path.join(__dirname, "vscode-mock.js");
const moduleWithResolve = Module as unknown as {
  _resolveFilename: (request: string, ...rest: unknown[]) => string;
};
const original = moduleWithResolve._resolveFilename;
moduleWithResolve._resolveFilename = function (request: string, ...rest: unknown[]): string {
  return request === "vscode" ? mockPath : original.call(this, request, ...rest);
};
