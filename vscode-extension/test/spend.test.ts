import { strict as assert } from "node:assert";
import { test } from "node:test";
import { spendQuestion } from "../src/spend";

test("the spend question counts evals and packages and lists at most 12 names", () => {
  const units = Array.from({ length: 14 }, (_, i) => ({ label: `case-${i}`, packageRoot: i < 10 ? "/a" : "/b" }));
  const q = spendQuestion(units, "every eval in the workspace");
  assert.equal(q.message, "Run 14 evals in 2 packages (every eval in the workspace)? Each one is a real agent run and may cost money.");
  assert.equal(q.run, "Run 14 evals");
  assert.equal(q.detail.split("\n").length, 13);
  assert.equal(q.detail.split("\n").at(-1), "… and 2 more");
  assert.equal(spendQuestion([{ label: "x", packageRoot: "/a" }], "stale").run, "Run 1 eval");
});
