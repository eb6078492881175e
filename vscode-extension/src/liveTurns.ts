/** The agent's turns as they arrive (`evalens/runTurn`), as lines for the Test Results terminal. */
import type { RunTurnParams } from "./protocol";

const MARKS: Record<RunTurnParams["kind"], string> = {
  text: "💬",
  tool: "▸",
  result: "  ↳",
  hook: "⛔",
  error: "!",
  note: "…",
};
const RED = "\x1b[31m";
const DIM = "\x1b[2m";
const RESET = "\x1b[0m";
/** Lines of one turn shown in the terminal (the run view has all of it). */
export const TURN_LINES = 6;

/** One turn as plain lines (no colour): `▸ Write output/result.txt`; the terminal and the live run page show it. */
export function turnText(p: RunTurnParams, eol = "\n"): string {
  let body = p.text.replace(/\s+$/, "");
  if (p.kind === "tool") {
    body = `${p.tool ?? "tool"} ${body}`.trimEnd();
  } else if (p.kind === "result" && p.isError) {
    body = `failed: ${body}`;
  } else if (p.kind === "hook") {
    body = `${p.tool ?? "hook"} ${p.blocked ? "blocked" : "failed"}: ${body}`;
  }
  const lines = body.split(/\r?\n/);
  const shown = lines.slice(0, TURN_LINES);
  if (lines.length > TURN_LINES) {
    shown.push(`… ${lines.length - TURN_LINES} more lines`);
  }
  const run = p.run > 1 ? `#${p.run} ` : "";
  return `${run}${MARKS[p.kind] ?? ""} ${shown.join(`${eol}    `)}`;
}

/** Whether a turn is shown as trouble (red): a hook that blocked, an error, a failed tool call. */
export function isTrouble(p: RunTurnParams): boolean {
  return p.kind === "hook" || p.kind === "error" || p.isError === true;
}

/** One turn as terminal text (CRLF line ends, ANSI colour): `▸ Write output/result.txt`. */
export function turnOutput(p: RunTurnParams): string {
  const text = turnText(p, "\r\n");
  const colour = isTrouble(p) ? RED : p.kind === "result" || p.kind === "note" ? DIM : "";
  return `${colour ? colour + text + RESET : text}\r\n`;
}
