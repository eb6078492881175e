/**
 * "evalens: Compare Engines and Arms…" (issue 41): start a whole matrix × arms run of the package holding the
 * active file, the same comparison `evalens run --engine a,b --arms skill,no-skill` runs (the server's
 * `evalens.runComparison`, over runner/comparison.py). It asks for the engines and the arms, says what it will
 * spend before it starts (the server's count, `evalens.planComparison`), and afterwards the Test Explorer's
 * cell items and the lenses show the new matrix; its table opens beside the file.
 */
import * as vscode from "vscode";
import type { EvalServer } from "./client";
import { Commands, ComparisonPlan, MatrixAnswer } from "./protocol";
import type { EvalTestController } from "./testController";

export const COMPARE_COMMAND = "evalens.compareEnginesAndArms";

/**
 * How many agent runs the comparison starts. `planned`: the server's count (`evalens.planComparison`: the
 * units each batch really runs, an eval file's own and not every unit of its folder, times each unit's runs);
 * without it (an older server), each case of the package once per engine and per arm.
 */
export function comparisonQuestion(
  cases: number,
  engines: string[],
  arms: string[],
  planned?: ComparisonPlan | null,
): { message: string; detail: string; run: string } {
  const batches = planned?.batches ?? Math.max(engines.length, 1) * Math.max(arms.length, 1);
  const units = planned?.units ?? cases;
  const each = planned?.runs ?? 1;
  const runs = planned?.agentRuns ?? units * batches;
  const times = each > 1 ? ` × ${each} runs` : "";
  return {
    message: `Compare ${engines.join(", ") || "the default engine"}${arms.length ? ` × ${arms.join(", ")}` : ""}: ${runs} agent run${runs === 1 ? "" : "s"}? Each one is a real agent run and may cost money.`,
    detail: `${units} eval${units === 1 ? "" : "s"}${times} × ${batches} batch${batches === 1 ? "" : "es"} (one per engine${arms.length ? " and arm" : ""}).`,
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
  const planned = server.supports(Commands.planComparison)
    ? await server
        .executeCommand<ComparisonPlan>(Commands.planComparison, {
          uri,
          engines: engines.trim() || undefined,
          arms: arms.trim() || undefined,
        })
        .catch((e: unknown) => {
          void vscode.window.showErrorMessage(`evalens: ${e instanceof Error ? e.message : String(e)}`);
          return undefined;
        })
    : null;
  if (planned === undefined) {
    return undefined; // the comparison cannot start (its arms, its file): the server said why
  }
  const q = comparisonQuestion(cases, listOf(engines), listOf(arms), planned);
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
