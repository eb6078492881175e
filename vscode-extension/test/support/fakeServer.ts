/** An EvalServer whose commands answer from plain functions: lets the test controller run without Python. */
import * as vscode from "vscode";
import type { EvalServer, ServerState } from "../../src/client";
import type { RunStateParams, RunTurnParams, VerdictChangedParams } from "../../src/protocol";

export type Handler = (argument: Record<string, unknown>, token?: vscode.CancellationToken) => unknown;

export class FakeServer implements EvalServer {
  state: ServerState = "running";
  readonly calls: { command: string; argument: Record<string, unknown> }[] = [];
  readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  readonly verdictEmitter = new vscode.EventEmitter<VerdictChangedParams>();
  readonly runStateEmitter = new vscode.EventEmitter<RunStateParams>();
  readonly runTurnEmitter = new vscode.EventEmitter<RunTurnParams>();
  readonly onDidChangeState = this.stateEmitter.event;
  readonly onVerdictChanged = this.verdictEmitter.event;
  readonly onRunState = this.runStateEmitter.event;
  readonly onRunTurn = this.runTurnEmitter.event;

  constructor(readonly handlers: Record<string, Handler>) {}

  supports(command: string): boolean {
    return command in this.handlers;
  }

  async executeCommand<T>(command: string, argument: object, token?: vscode.CancellationToken): Promise<T> {
    this.calls.push({ command, argument: argument as Record<string, unknown> });
    const handler = this.handlers[command];
    if (!handler) {
      throw new Error(`unknown command ${command}`);
    }
    return (await handler(argument as Record<string, unknown>, token)) as T;
  }

  setState(state: ServerState): void {
    this.state = state;
    this.stateEmitter.fire(state);
  }
}

export function range(line: number, startChar = 0, endChar = 10) {
  return { start: { line, character: startChar }, end: { line, character: endChar } };
}
