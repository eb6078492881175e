/** What the client declares in `capabilities.experimental.evalens`: command links in the server's hover
 * (`[Show run](command:evalens.showRun?…)`, and it trusts exactly these commands in hovers), and that run results
 * live in the Test Explorer (`testResults`: no verdict diagnostics in Problems). */
import type { ClientCapabilities, StaticFeature } from "vscode-languageclient/node";
import type { ClientExperimentalCapabilities } from "./protocol";

/** The only commands a hover link may run (LanguageClientOptions.markdown.isTrusted). */
export const HOVER_COMMANDS = ["evalens.showRun", "evalens.compareRuns"] as const;

export class CommandLinksFeature implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    const evalens = (experimental.evalens ?? {}) as Record<string, unknown>;
    const declared: ClientExperimentalCapabilities = {
      commandLinks: [...HOVER_COMMANDS],
      testResults: true, // run results live in the Test Explorer, not as diagnostics in Problems
    };
    capabilities.experimental = { ...experimental, evalens: { ...evalens, ...declared } };
  }

  initialize(): void {}

  getState(): { kind: "static" } {
    return { kind: "static" };
  }

  clear(): void {}
}
