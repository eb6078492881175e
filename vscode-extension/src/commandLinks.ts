/** Command links in the server's hover (`[Show run](command:evalens.showRun?…)`): the client declares that it
 * runs them (`capabilities.experimental.evalens.commandLinks`), and trusts exactly these commands in hovers. */
import type { ClientCapabilities, StaticFeature } from "vscode-languageclient/node";

/** The only commands a hover link may run (LanguageClientOptions.markdown.isTrusted). */
export const HOVER_COMMANDS = ["evalens.showRun", "evalens.compareRuns"] as const;

export class CommandLinksFeature implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    const evalens = (experimental.evalens ?? {}) as Record<string, unknown>;
    capabilities.experimental = { ...experimental, evalens: { ...evalens, commandLinks: [...HOVER_COMMANDS] } };
  }

  initialize(): void {}

  getState(): { kind: "static" } {
    return { kind: "static" };
  }

  clear(): void {}
}
