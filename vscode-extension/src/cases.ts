/** Which case the cursor is in: the last case whose name line is at or above the cursor. */
import type { DiscoveredCase } from "./protocol";

export function caseAtLine<T extends Pick<DiscoveredCase, "range">>(cases: readonly T[], line: number): T | undefined {
  const sorted = [...cases].sort((a, b) => a.range.start.line - b.range.start.line);
  let found: T | undefined;
  for (const c of sorted) {
    if (c.range.start.line <= line) {
      found = c;
    }
  }
  return found ?? (sorted.length === 1 ? sorted[0] : undefined);
}
