/**
 * The language client writes to an `OutputChannel`: its own lines as `[Error - 12:00:01 PM] text` and the server's
 * stderr as raw chunks. Written into a `LogOutputChannel` as they are, every line has two timestamps and one level
 * (info). This channel parses both and logs each line once, at its own level, with the log channel's timestamp.
 */
import type * as vscode from "vscode";

export type Level = "trace" | "debug" | "info" | "warn" | "error";

export interface LogLine {
  level: Level;
  text: string;
}

const CLIENT_LEVELS: Record<string, Level> = { trace: "trace", debug: "debug", info: "info", warn: "warn", error: "error" };
/** The server's stderr format (`evalens lsp` without `--log-file`): `LEVEL logger: message`. */
const SERVER_LEVELS: Record<string, Level> = {
  DEBUG: "debug",
  INFO: "info",
  WARNING: "warn",
  ERROR: "error",
  CRITICAL: "error",
};

/** Events the client reports as errors although nothing went wrong. */
function normalEvent(text: string): boolean {
  return /^Server process exited with code 0\.?$/.test(text);
}

/** One line the language client wrote itself (`[Level - time] text`), or undefined for anything else. */
export function parseClientLine(line: string): LogLine | undefined {
  const m = /^\[(Trace|Debug|Info|Warn|Error)\s*-\s*[^\]]*\]\s?(.*)$/.exec(line);
  if (!m) {
    return undefined;
  }
  const text = m[2];
  return { level: normalEvent(text) ? "info" : CLIENT_LEVELS[m[1].toLowerCase()], text };
}

/** One line of the server's stderr; lines without a level (a traceback's body) keep the previous line's level. */
export function parseServerLine(line: string, previous: Level | undefined): LogLine {
  const m = /^(DEBUG|INFO|WARNING|ERROR|CRITICAL) (.*)$/.exec(line);
  if (m) {
    return { level: SERVER_LEVELS[m[1]], text: m[2] };
  }
  return { level: previous ?? "warn", text: line };
}

/** Splits pip's output: stdout is progress (info), stderr of a failed install is the error itself. */
export function pipLogLines(stdout: string, stderr: string, failed: boolean): LogLine[] {
  const lines = (text: string, level: Level) =>
    text
      .split(/\r?\n/)
      .map((l) => l.trimEnd())
      .filter((l) => l.trim())
      .map((text) => ({ level, text }));
  return [...lines(stdout, "info"), ...lines(stderr, failed ? "error" : "warn")];
}

export function write(log: vscode.LogOutputChannel, line: LogLine): void {
  log[line.level](line.text);
}

/** The `OutputChannel` handed to the LanguageClient: every line lands in `log` once, at its level. */
export class LeveledChannel implements vscode.OutputChannel {
  readonly name: string;
  private partial = "";
  private lastServerLevel: Level | undefined;

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.name = log.name;
  }

  /** Server stderr arrives in chunks that need not end at a line break. */
  append(value: string): void {
    const text = this.partial + value;
    const lines = text.split(/\r?\n/);
    this.partial = lines.pop() ?? "";
    lines.forEach((l) => this.line(l));
  }

  appendLine(value: string): void {
    this.append(`${value}\n`);
  }

  private line(raw: string): void {
    if (!raw.trim()) {
      return;
    }
    const client = parseClientLine(raw);
    if (client) {
      this.lastServerLevel = undefined;
      write(this.log, client);
      return;
    }
    const server = parseServerLine(raw, this.lastServerLevel);
    this.lastServerLevel = server.level;
    write(this.log, server);
  }

  replace(value: string): void {
    this.partial = "";
    this.append(value);
  }

  clear(): void {
    this.partial = "";
  }

  show(columnOrPreserve?: vscode.ViewColumn | boolean, preserveFocus?: boolean): void {
    if (typeof columnOrPreserve === "boolean") {
      this.log.show(columnOrPreserve);
    } else {
      this.log.show(preserveFocus);
    }
  }

  hide(): void {
    this.log.hide();
  }

  /** The log channel belongs to the extension, not to one client: a restart must not close it. */
  dispose(): void {
    if (this.partial.trim()) {
      this.line(this.partial);
    }
    this.partial = "";
  }
}
