import { strict as assert } from "node:assert";
import { test } from "node:test";
import type { ClientCapabilities } from "vscode-languageclient/node";
import { CommandLinksFeature, HOVER_COMMANDS } from "../src/commandLinks";

test("the client declares the hover command links it runs, keeping other experimental capabilities", () => {
  const capabilities: ClientCapabilities = { experimental: { other: 1, evalens: { kept: true } } };
  new CommandLinksFeature().fillClientCapabilities(capabilities);
  assert.deepEqual(capabilities.experimental, {
    other: 1,
    evalens: { kept: true, commandLinks: ["evalens.showRun", "evalens.compareRuns"] },
  });
  assert.deepEqual([...HOVER_COMMANDS], ["evalens.showRun", "evalens.compareRuns"]);
});
