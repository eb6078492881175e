/**
 * "evalens: Compare Engines and Arms…" (issue 41): start a whole matrix × arms run of the package holding the
 * active file, the same comparison `evalens run --engine a,b --arms skill,no-skill` runs (the server's
 * `evalens.runComparison`, over runner/comparison.py). It asks for the engines and the arms, says what it will
 * spend before it starts (every case of the package, once per engine and arm), and afterwards the Test Explorer's
 * cell items and the lenses show the new matrix; its table opens beside the file.
 */
import * as vscode from "vscode";
import type { EvalServer } from "./client";
import { Commands, MatrixAnswer } from "./protocol";
import type { EvalTestController } from "./testController";

export const COMPARE_COMMAND = "evalens.compareEnginesAndArms";

/** How many agent runs the comparison starts: each case of the package once per engine and per arm. */
export function comparisonQuestion(
  cases: number,
  engines: string[],
  arms: string[],
): { message: string; detail: string; run: string } {
  const batches = Math.max(engines.length, 1) * Math.max(arms.length, 1);
  const runs = cases * batches;
  return {
    message: `Compare ${engines.join(", ") || "the default engine"}${arms.length ? ` × ${arms.join(", ")}` : ""}: ${runs} agent run${runs === 1 ? "" : "s"}? Each one is a real agent run and may cost money.`,
    detail: `${cases} eval${cases === 1 ? "" : "s"} × ${batches} batch${batches === 1 ? "" : "es"} (one per engine${arms.length ? " and arm" : ""}).`,
    run: `Run ${runs} evals`,
  };
}

/** The cases of the package holding `uri` (the one whose root is the longest prefix of the file's path). */
function casesOfPackage(tests: EvalTestController, uri: string): number {
  const path = vscode.Uri.parse(uri).fsPath;
  const data = tests.allCases().map((i) => tests.caseData(i));
  const roots = [...new Set(data.map((d) => d?.packageRoot).filter((r): r is string => !!r && path.startsWith(r)))];
  const root = roots.sort((a, b) => b.length - a.length)[0];
  return data.filter((d) => d?.packageRoot === root).length;
}

function listOf(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

export async function compareEnginesAndArms(server: EvalServer, tests: EvalTestController): Promise<MatrixAnswer | null | undefined> {
  const uri = vscode.window.activeTextEditor?.document.uri.toString();
  if (!uri) {
    void vscode.window.showInformationMessage("Open a file of the eval package to compare.");
    return undefined;
  }
  const engines = await vscode.window.showInputBox({
    title: "Compare: engines",
    prompt: "Engines, comma-separated (each runs every case)",
    value: "claude-code,codex",
  });
  if (engines === undefined) {
    return undefined;
  }
  const arms = await vscode.window.showInputBox({
    title: "Compare: arms",
    prompt: "Arms, comma-separated (skill, no-skill, plugin, ref:REF, without:references…); empty for none",
    value: "skill,no-skill",
  });
  if (arms === undefined) {
    return undefined;
  }
  await tests.refreshAll();
  const cases = casesOfPackage(tests, uri);
  const q = comparisonQuestion(cases, listOf(engines), listOf(arms));
  if ((await vscode.window.showWarningMessage(q.message, { modal: true, detail: q.detail }, q.run)) !== q.run) {
    return undefined;
  }
  const answer = await server.executeCommand<MatrixAnswer | null>(Commands.runComparison, {
    uri,
    engines: engines.trim() || undefined,
    arms: arms.trim() || undefined,
  });
  await tests.refreshAll(); // the cases' cell items follow the new matrix run
  if (answer) {
    const table = await vscode.workspace.openTextDocument({ content: answer.table, language: "plaintext" });
    await vscode.window.showTextDocument(table, { viewColumn: vscode.ViewColumn.Beside, preview: true });
  } else {
    void vscode.window.showInformationMessage("The comparison was cancelled, or fewer than two of its batches ran.");
  }
  return answer;
}
