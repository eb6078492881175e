/** Every file kind the evalens server understands; the client attaches to these and nothing else. */

export interface FileFilter {
  scheme: string;
  pattern: string;
  language?: string;
}

export const EVAL_FILE_PATTERNS: readonly string[] = [
  "**/evals/**/*.{yaml,yml,json}", // UAAPS eval-config.json, cases/*.yaml, grading / history json
  "**/tasks.yaml", // skilljack
  "**/task.md", // skilljack task packages
  "**/eval.config.yaml",
  "**/evals.json", // writing-skills / skill-creator
  "**/*trigger*.json", // skill-creator trigger evals
  "**/grading.json",
  "**/*history*.json",
  "**/SKILL.md",
];

export const DOCUMENT_SELECTOR: FileFilter[] = EVAL_FILE_PATTERNS.flatMap((pattern) => [
  { scheme: "file", pattern },
  { scheme: "untitled", pattern },
]);

/** One glob for file watchers: `{a,b,c}` of the patterns above (VS Code globs allow one level of braces). */
export const EVAL_FILES_GLOB = "{**/evals/**/*.yaml,**/evals/**/*.yml,**/evals/**/*.json,**/tasks.yaml,**/task.md,**/eval.config.yaml,**/evals.json,**/*trigger*.json,**/grading.json,**/*history*.json,**/SKILL.md}";

/** Minimal glob matcher for the patterns above (`**`, `*`, `{a,b}`), used to filter edit events. */
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
    } else if (c === "," ) {
      re += "|";
    } else {
      re += c.replace(/[.+^$()|[\]\\]/g, "\\$&");
    }
  }
  return new RegExp(`^${re}$`);
}

const MATCHERS = EVAL_FILE_PATTERNS.map(globToRegExp);

/** True when a path (forward slashes) is one of the eval file kinds. */
export function isEvalFile(fsPath: string): boolean {
  const p = fsPath.replace(/\\/g, "/");
  return MATCHERS.some((m) => m.test(p));
}
