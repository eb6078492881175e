import { strict as assert } from "node:assert";
import { test } from "node:test";
import type { CloseAction, ErrorAction, ErrorHandler } from "vscode-languageclient/node";
import { startupAwareErrorHandler } from "../src/startupErrors";

// vscode-languageclient's values (the library needs the real vscode module, so it is not loaded here)
const CONTINUE = 1 as ErrorAction;
const SHUTDOWN = 2 as ErrorAction;
const DO_NOT_RESTART = 1 as CloseAction;
const RESTART = 2 as CloseAction;

const restarting: ErrorHandler = {
  error: () => ({ action: CONTINUE }),
  closed: () => ({ action: RESTART }),
};

test("a server that dies before it ever ran is not restarted and raises no toast of its own", async () => {
  let ran = false;
  const handler = startupAwareErrorHandler(() => ran, () => restarting, {
    shutdown: SHUTDOWN,
    doNotRestart: DO_NOT_RESTART,
  });
  assert.deepEqual(await handler.closed(), { action: DO_NOT_RESTART, handled: true });
  assert.deepEqual(await handler.error(new Error("write EPIPE"), undefined, 1), { action: SHUTDOWN, handled: true });
  ran = true; // once it ran, a crash is restarted as usual
  assert.deepEqual(await handler.closed(), { action: RESTART });
  assert.deepEqual(await handler.error(new Error("x"), undefined, 1), { action: CONTINUE });
});
