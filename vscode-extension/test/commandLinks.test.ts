import { strict as assert } from "node:assert";
import { test } from "node:test";
import type { ClientCapabilities } from "vscode-languageclient/node";
import { CommandLinksFeature, HOVER_COMMANDS } from "../src/commandLinks";

test("the client declares the hover command links it runs and its Test Explorer, keeping other capabilities", () => {
  const capabilities: ClientCapabilities = { experimental: { other: 1, evalens: { kept: true } } };
  new CommandLinksFeature().fillClientCapabilities(capabilities);
  assert.deepEqual(capabilities.experimental, {
    other: 1,
    evalens: { kept: true, commandLinks: ["evalens.showRun", "evalens.compareRuns"], testResults: true },
  });
  assert.deepEqual([...HOVER_COMMANDS], ["evalens.showRun", "evalens.compareRuns"]);
});
