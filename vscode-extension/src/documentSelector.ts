/** The file kinds the evalens server handles, as the server published them at initialize
 * (`capabilities.experimental.evalens.fileKinds`, declared once in evalens/core/kinds.py). Until a server
 * answers, the copy generated from that declaration (fileKinds.generated.ts) stands in. */
import { BUILTIN_FILE_KINDS } from "./fileKinds.generated";
import type { FileKind } from "./protocol";

export interface FileFilter {
  scheme: string;
  pattern: string;
  language?: string;
}

/** The document selector for a list of kinds: each glob, on disk and in untitled buffers. */
export function documentSelectorFor(kinds: readonly FileKind[]): FileFilter[] {
  return kinds.flatMap((kind) => [
    { scheme: "file", pattern: kind.glob },
    { scheme: "untitled", pattern: kind.glob },
  ]);
}

/** One glob for file watchers: `{a,b,c}` of the kinds' globs (VS Code globs allow one level of braces). */
export function watcherGlobFor(kinds: readonly FileKind[]): string {
  return `{${kinds.map((k) => k.glob).join(",")}}`;
}

/** The file kinds in an initialize result's capabilities (undefined when the server publishes none). */
export function publishedFileKinds(capabilities: { experimental?: unknown } | undefined): FileKind[] | undefined {
  const experimental = capabilities?.experimental as { evalens?: { fileKinds?: unknown } } | undefined;
  const kinds = experimental?.evalens?.fileKinds;
  if (!Array.isArray(kinds)) {
    return undefined;
  }
  const valid = kinds.filter(
    (k): k is FileKind =>
      !!k && typeof k.glob === "string" && typeof k.languageId === "string" && Array.isArray(k.formats),
  );
  return valid.length > 0 ? valid : undefined;
}

/** Minimal glob matcher for the kinds' globs (`**`, `*`, `?`, `{a,b}`), used to filter edit events. */
export function globToRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      i++;
      if (glob[i + 1] === "/") {
        i++;
        re += "(?:.*/)?";
      } else {
        re += ".*";
      }
    } else if (c === "*") {
      re += "[^/]*";
    } else if (c === "?") {
      re += "[^/]";
    } else if (c === "{") {
      re += "(?:";
    } else if (c === "}") {
      re += ")";
    } else if (c === ",") {
      re += "|";
    } else {
      re += c.replace(/[.+^$()|[\]\\]/g, "\\$&");
    }
  }
  return new RegExp(`^${re}$`);
}

let current: readonly FileKind[] = BUILTIN_FILE_KINDS;
let matchers: RegExp[] = current.map((k) => globToRegExp(k.glob));

/** The kinds in force: the running server's, else the built-in copy. */
export function fileKinds(): readonly FileKind[] {
  return current;
}

/** Use the kinds a server published (true when they differ from those in force). */
export function setFileKinds(kinds: readonly FileKind[]): boolean {
  const changed = JSON.stringify(kinds) !== JSON.stringify(current);
  current = kinds;
  matchers = kinds.map((k) => globToRegExp(k.glob));
  return changed;
}

/** True when a path (forward slashes) is one of the eval file kinds. */
export function isEvalFile(fsPath: string): boolean {
  const p = fsPath.replace(/\\/g, "/");
  return matchers.some((m) => m.test(p));
}

/** Watch every file the extension may care about; events are filtered with `isEvalFile`, so the globs
 * the server publishes apply without re-creating the watcher. */
export const BROAD_WATCH_GLOB = "**/*.{yaml,yml,json,md,markdown}";
