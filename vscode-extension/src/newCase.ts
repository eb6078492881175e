/** "New eval case for this skill" (the SKILL.md lens and code action): the server writes the case with a workspace
 * edit (`evalens.newCase`) and answers where its prompt is; the editor opens the file with the cursor there. */
import * as vscode from "vscode";
import { LspPosition, NewCaseResult } from "./protocol";

type Next = (command: string, args: unknown[]) => vscode.ProviderResult<unknown>;

/** Runs `evalens.newCase` with `reveal: false` (this editor puts the cursor itself) and reveals the prompt. */
export async function newCaseThenReveal(command: string, args: unknown[], next: Next): Promise<unknown> {
  const first = args[0] && typeof args[0] === "object" ? (args[0] as Record<string, unknown>) : {};
  const result = (await next(command, [{ ...first, reveal: false }])) as NewCaseResult | undefined;
  if (result && typeof result.uri === "string" && result.position) {
    await revealPosition(result.uri, result.position);
  }
  return result;
}

/** Opens `uri` (not as a preview) with the cursor at `position`. */
export async function revealPosition(uri: string, position: LspPosition): Promise<void> {
  const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
  const { line, character } = position;
  await vscode.window.showTextDocument(document, {
    selection: new vscode.Range(line, character, line, character),
    preview: false,
  });
}
