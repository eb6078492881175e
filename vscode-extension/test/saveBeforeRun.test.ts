import { strict as assert } from "node:assert";
import { test } from "node:test";
import { EditorDocument, ensureSaved, RUN_SAVED, SAVE_AND_RUN } from "../src/saveBeforeRun";

function doc(uri: string, isDirty: boolean) {
  const d = { uri: { toString: () => uri }, fileName: uri.replace("file://", ""), isDirty, saves: 0, save: async () => {
    d.saves++;
    return true;
  } };
  return d;
}

const CASE = "file:///ws/pkg/evals/cases/a.yaml";

test("nothing unsaved: no question, the run goes ahead", async () => {
  let asked = 0;
  assert.equal(await ensureSaved([doc(CASE, false), doc("file:///ws/other.yaml", true)], [CASE], async () => {
    asked++;
    return undefined;
  }), true);
  assert.equal(asked, 0);
});

test("unsaved edits: Save and Run saves first; Run Saved Version runs as is; dismissing runs nothing", async () => {
  const d = doc(CASE, true);
  const questions: string[] = [];
  const ask = (answer?: string) => async (m: string, ...choices: string[]) => {
    questions.push(m);
    assert.deepEqual(choices, [SAVE_AND_RUN, RUN_SAVED]);
    return answer;
  };
  assert.equal(await ensureSaved([d as EditorDocument], [CASE], ask(SAVE_AND_RUN)), true);
  assert.equal(d.saves, 1);
  assert.match(questions[0], /a\.yaml has unsaved changes/);
  assert.equal(await ensureSaved([d], [CASE], ask(RUN_SAVED)), true);
  assert.equal(await ensureSaved([d], [CASE], ask(undefined)), false);
  assert.equal(d.saves, 1);
});
