/**
 * A run reads the file on disk. When the editor holds unsaved edits, running the saved version silently is a
 * trap (failed-check marks land on lines that have moved), so ask first: "Save and Run" or "Run Saved Version".
 */
import * as vscode from "vscode";
import { normalizeUri } from "./testController";

export const SAVE_AND_RUN = "Save and Run";
export const RUN_SAVED = "Run Saved Version";

export interface EditorDocument {
  readonly uri: { toString(): string };
  readonly fileName: string;
  readonly isDirty: boolean;
  save(): Thenable<boolean>;
}

export type Ask = (message: string, ...choices: string[]) => Thenable<string | undefined>;

/** True when the run may go ahead: nothing unsaved, saved on request, or the saved version chosen. */
export async function ensureSaved(open: readonly EditorDocument[], uris: string[], ask: Ask): Promise<boolean> {
  const wanted = new Set(uris.map(normalizeUri));
  const dirty = open.filter((d) => d.isDirty && wanted.has(normalizeUri(d.uri.toString())));
  if (dirty.length === 0) {
    return true;
  }
  const names = dirty.map((d) => d.fileName.split(/[\\/]/).pop()).join(", ");
  const pick = await ask(
    `${names} ${dirty.length === 1 ? "has" : "have"} unsaved changes; a run reads the saved file.`,
    SAVE_AND_RUN,
    RUN_SAVED,
  );
  if (pick === SAVE_AND_RUN) {
    const saved = await Promise.all(dirty.map((d) => d.save()));
    return saved.every(Boolean);
  }
  return pick === RUN_SAVED;
}

/** `ensureSaved` over VS Code's open documents, asking with a modal-free warning. */
export function vscodeSaveGuard(uris: string[]): Promise<boolean> {
  return ensureSaved(vscode.workspace.textDocuments ?? [], uris, (m, ...c) => vscode.window.showWarningMessage(m, ...c));
}
