/** The language client feature that applies the file kinds a server publishes at initialize. */
import type { LogOutputChannel } from "vscode";
import type { ServerCapabilities, StaticFeature } from "vscode-languageclient/node";
import { documentSelectorFor, FileFilter, publishedFileKinds, setFileKinds } from "./documentSelector";

/** Reads the file kinds the server publishes at initialize (`capabilities.experimental.evalens.fileKinds`)
 * and makes them the document selector before the client's features register with it. */
export class FileKindsFeature implements StaticFeature {
  constructor(
    private readonly selector: FileFilter[],
    private readonly log: Pick<LogOutputChannel, "info">,
  ) {}

  fillClientCapabilities(): void {}

  preInitialize(capabilities: ServerCapabilities): void {
    const kinds = publishedFileKinds(capabilities);
    if (!kinds) {
      this.log.info("The evalens server publishes no file kinds; using the built-in list");
      return;
    }
    if (setFileKinds(kinds)) {
      this.log.info(`The evalens server handles: ${kinds.map((k) => k.glob).join(", ")}`);
    }
    this.selector.splice(0, this.selector.length, ...documentSelectorFor(kinds));
  }

  initialize(): void {}

  getState(): { kind: "static" } {
    return { kind: "static" };
  }

  clear(): void {}
}
