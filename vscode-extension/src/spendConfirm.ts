/** A batch lens (`↻ Run stale (6)`, `▶ Run all evals`, a file's `▶ Run all`) starts real, paid agent runs, so it
 * asks first, with the palette's own question (`spendQuestion`): the units the server says it will run, by name.
 * A single case's `▶ Run eval` does not ask, as the palette's "Run Eval at Cursor" does not. */
import * as path from "node:path";
import * as vscode from "vscode";
import type { CaseCommandArgs } from "./protocol";
import { spendQuestion, SpendUnit } from "./spend";

export interface BatchUnits {
  lensBatchUnits(args: unknown[]): Promise<SpendUnit[] | undefined>;
}

/** What the batch covers, for the question: "stale in cases.yaml", "every eval of eval-config.json". */
export function batchScope(args: unknown[]): string {
  const first = args[0] && typeof args[0] === "object" ? (args[0] as CaseCommandArgs) : {};
  const file = first.uri ? path.posix.basename(vscode.Uri.parse(first.uri).path) : "this file";
  return first.select ? `${first.select} in ${file}` : `every eval of ${file}`;
}

/** True when the batch may run: the user said so, or the server picked nothing (the run then says so). */
export async function confirmLensBatch(hooks: BatchUnits, args: unknown[]): Promise<boolean> {
  const units = await hooks.lensBatchUnits(args);
  if (units !== undefined && units.length === 0) {
    return true;
  }
  const q = units
    ? spendQuestion(units, batchScope(args))
    : {
        message: `Run ${batchScope(args)}? Each eval is a real agent run and may cost money.`,
        detail: "",
        run: "Run",
      };
  return (await vscode.window.showWarningMessage(q.message, { modal: true, detail: q.detail }, q.run)) === q.run;
}
