/** Owns the language server process: resolves how to start it, starts, restarts and stops the LanguageClient. */
import * as vscode from "vscode";
import {
  CancellationToken as LspCancellationToken,
  CloseAction,
  ErrorAction,
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  TransportKind,
} from "vscode-languageclient/node";
import { documentSelectorFor, fileKinds } from "./documentSelector";
import { CommandLinksFeature, HOVER_COMMANDS } from "./commandLinks";
import { FileKindsFeature } from "./fileKindsFeature";
import { startupAwareErrorHandler } from "./startupErrors";
import { BundledEnv } from "./bundledEnv";
import { describeOrigin, execProcess, Exec, InstallUi, offerInstall } from "./install";
import { chooseServer } from "./serverChoice";
import { LeveledChannel, write } from "./logChannel";
import { newCaseThenReveal } from "./newCase";
import { provideCodeActionsWithSnippets } from "./snippetEdits";
import { confirmLensBatch } from "./spendConfirm";
import type { SpendUnit } from "./spend";
import type { InterpreterSource } from "./interpreter";
import { Commands, isLensBatch, lensRunTarget, Notifications, RunStateParams, RunTurnParams, VerdictChangedParams } from "./protocol";
import { RunOverrides, withOverrides } from "./overrides";
import { describeServerCommand, ServerCommand } from "./serverCommand";
import { configurationValue, EvalensSettings, isEvalensSection, needsRestart, readSettings, toWire } from "./settings";
import { explainRestricted, isTrusted, refusedUntrusted, restrictLenses } from "./trust";

export type ServerState = "stopped" | "starting" | "running" | "failed" | "notInstalled";

/** A run started outside the Test Explorer, i.e. the server's `▶ Run eval` code lens. */
export interface LensRunHooks {
  lensRunStarted(uri: string, name: string, runs?: number): void;
  lensRunFinished(uri: string, name: string, result: unknown, error?: unknown): void;
  /** A lens that runs many units (Run all, a whole file): one Test Results run for all of them. */
  lensBatchStarted(): LensBatch;
  /** The units a batch lens would run (server-picked), to ask before spending; undefined: unknown. */
  lensBatchUnits(args: unknown[]): Promise<SpendUnit[] | undefined>;
  lensBatchFinished(batch: LensBatch, result: unknown, error?: unknown): void;
}

/** What the Test Explorer keeps of a lens batch while it runs (opaque to the client). */
export type LensBatch = object;

/** What the rest of the extension needs from the server; the test controller and commands see only this. */
export interface EvalServer {
  readonly state: ServerState;
  readonly onDidChangeState: vscode.Event<ServerState>;
  readonly onVerdictChanged: vscode.Event<VerdictChangedParams>;
  readonly onRunState: vscode.Event<RunStateParams>;
  /** The agent's turns while a unit runs (`evalens/runTurn`). */
  readonly onRunTurn: vscode.Event<RunTurnParams>;
  /** What changed since remembered runs moved (`evalens/staleChanged`): stale results are dimmed anew. */
  readonly onStaleChanged?: vscode.Event<void>;
  /** Which process runs (or would run) the server and where it came from, in words; undefined before a start. */
  readonly serverDescription?: string;
  executeCommand<T>(command: string, argument: object, token?: vscode.CancellationToken): Promise<T>;
  supports(command: string): boolean;
  /** The workspace's run overrides, which executeCommand adds to run commands. */
  readonly overrides?: () => RunOverrides;
}

export function currentSettings(scope?: vscode.ConfigurationScope): EvalensSettings {
  return readSettings(vscode.workspace.getConfiguration("evalens", scope));
}

export class ServerManager implements EvalServer, vscode.Disposable {
  private client: LanguageClient | undefined;
  private _state: ServerState = "stopped";
  private settings: EvalensSettings = currentSettings();
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  private readonly verdictEmitter = new vscode.EventEmitter<VerdictChangedParams>();
  private readonly runStateEmitter = new vscode.EventEmitter<RunStateParams>();
  private readonly runTurnEmitter = new vscode.EventEmitter<RunTurnParams>();
  private readonly staleEmitter = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [];
  private restartTimer: NodeJS.Timeout | undefined;
  private starting: Promise<void> | undefined;
  lensHooks: LensRunHooks | undefined;
  /** Asks to save unsaved eval files before a lens run reads them (see saveBeforeRun.ts). */
  saveGuard: (uris: string[]) => Promise<boolean> = async () => true;
  /** The workspace's run overrides (engine, model, runs, budget), added to every run command sent. */
  overrides: () => RunOverrides = () => ({});
  serverDescription: string | undefined;
  private readonly channel: LeveledChannel;

  readonly onDidChangeState = this.stateEmitter.event;
  readonly onVerdictChanged = this.verdictEmitter.event;
  readonly onRunState = this.runStateEmitter.event;
  readonly onRunTurn = this.runTurnEmitter.event;
  readonly onStaleChanged = this.staleEmitter.event;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly interpreters: InterpreterSource,
    /** The evalens the .vsix carries and its private venv (bundledEnv.ts). */
    private readonly env: BundledEnv,
    private readonly exec: Exec = execProcess,
  ) {
    this.channel = new LeveledChannel(log);
    this.disposables.push(
      this.stateEmitter,
      this.verdictEmitter,
      this.runStateEmitter,
      this.runTurnEmitter,
      this.staleEmitter,
      vscode.workspace.onDidChangeConfiguration((e) => this.configurationChanged(e)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.log.info("Workspace trusted; restarting the server with the workspace's settings and interpreter");
        this.scheduleRestart();
      }),
      interpreters.onDidChange(() => {
        if (!this.settings.server.path) {
          this.log.info("Python interpreter changed; restarting the server");
          this.scheduleRestart();
        }
      }),
    );
  }

  get state(): ServerState {
    return this._state;
  }

  private setState(state: ServerState): void {
    if (state !== this._state) {
      this._state = state;
      this.stateEmitter.fire(state);
    }
  }

  supports(command: string): boolean {
    const commands = this.client?.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
    return commands.includes(command);
  }

  async executeCommand<T>(command: string, argument: object, token?: vscode.CancellationToken): Promise<T> {
    if (!this.client || this._state !== "running") {
      throw new Error(`the evalens server is ${this._state}`);
    }
    if (refusedUntrusted(command, [argument])) {
      explainRestricted();
      throw new Error("this workspace is not trusted (Restricted Mode): evalens starts no agent here");
    }
    return (await this.client.sendRequest(
      ExecuteCommandRequest.type,
      { command, arguments: [withOverrides(command, argument, this.overrides())] },
      token as LspCancellationToken | undefined,
    )) as T;
  }

  /** Starts the server unless it is already starting or running. */
  start(): Promise<void> {
    if (!this.starting) {
      this.starting = this.doStart().finally(() => {
        this.starting = undefined;
      });
    }
    return this.starting;
  }

  private async doStart(): Promise<void> {
    if (this.client) {
      return;
    }
    this.setState("starting");
    this.settings = currentSettings();
    const folder = vscode.workspace.workspaceFolders?.[0];
    const cwd = folder?.uri.fsPath;
    // Restricted Mode: the Python extension's interpreter is often the workspace's own .venv (trust.ts)
    const selected =
      this.settings.server.path || !isTrusted() ? undefined : await this.interpreters.interpreter(folder?.uri);
    const choice = await chooseServer(
      {
        exec: this.exec,
        env: this.env,
        log: (line) => write(this.log, line),
        installing: (work) =>
          Promise.resolve(
            vscode.window.withProgress(
              { location: vscode.ProgressLocation.Notification, title: "evalens: setting up its Python environment…" },
              work,
            ),
          ),
      },
      this.settings,
      selected,
      cwd,
    );
    if ("error" in choice) {
      this.setState("failed");
      this.serverDescription = undefined;
      void this.showStartFailure(choice.error);
      return;
    }
    const cmd = "cmd" in choice ? choice.cmd : choice.offer;
    this.serverDescription = cmd.python ? describeOrigin(cmd.python, cmd.source) : describeServerCommand(cmd);
    if ("offer" in choice) {
      this.setState("notInstalled");
      this.log.error(`evalens is not importable by ${cmd.python}`);
      void this.offerInstall(cmd);
      return;
    }
    this.log.info(`Starting the evalens server: ${describeServerCommand(cmd)}`);
    const serverOptions: ServerOptions = {
      command: cmd.command,
      args: cmd.args,
      transport: TransportKind.stdio,
      options: { cwd, env: { ...process.env } },
    };
    // The kinds in force (the last server's, else the built-in copy); replaced in place by the ones this
    // server publishes before the client registers its features (FileKindsFeature).
    const documentSelector = documentSelectorFor(fileKinds());
    let hasRun = false;
    let client: LanguageClient | undefined;
    const clientOptions: LanguageClientOptions = {
      errorHandler: startupAwareErrorHandler(
        () => hasRun,
        () => client!.createDefaultErrorHandler(),
        { shutdown: ErrorAction.Shutdown, doNotRestart: CloseAction.DoNotRestart },
      ),
      documentSelector,
      outputChannel: this.channel,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: toWire(this.settings, this.overrides()),
      // the hover's "Show run" / "Compare with previous run" links run these commands, and only these
      markdown: { isTrusted: { enabledCommands: [...HOVER_COMMANDS] } },
      // No client-side file watcher: the server registers watchers for its file kinds itself.
      middleware: {
        workspace: {
          configuration: (params, token, next) => this.answerConfiguration(params.items, () => next(params, token)),
        },
        executeCommand: (command, args, next) => this.executeLensCommand(command, args, next),
        provideCodeLenses: (document, token, next) => Promise.resolve(next(document, token)).then((l) => restrictLenses(l)),
        provideCodeActions: (document, range, context, token, next) =>
          provideCodeActionsWithSnippets(() => next(document, range, context, token)),
      },
    };
    client = new LanguageClient("evalens", "evalens", serverOptions, clientOptions);
    client.registerFeature(new FileKindsFeature(documentSelector, this.log));
    client.registerFeature(new CommandLinksFeature());
    this.client = client;
    client.onDidChangeState((e) => {
      if (this.client !== client) {
        return;
      }
      if (e.newState === State.Running) {
        hasRun = true;
        this.setState("running");
      } else if (e.newState === State.Starting) {
        this.setState("starting");
      } else if (e.newState === State.Stopped) {
        this.setState(this._state === "starting" ? "failed" : "stopped");
      }
    });
    client.onNotification(Notifications.verdictChanged, (p: VerdictChangedParams) => this.verdictEmitter.fire(p));
    client.onNotification(Notifications.runState, (p: RunStateParams) => this.runStateEmitter.fire(p));
    client.onNotification(Notifications.runTurn, (p: RunTurnParams) => this.runTurnEmitter.fire(p));
    client.onNotification(Notifications.staleChanged, () => this.staleEmitter.fire());
    try {
      await client.start();
      this.setState("running");
      const commands = client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
      this.log.info(`evalens server running; commands: ${commands.join(", ") || "(none)"}`);
    } catch (err) {
      this.log.error(`The evalens server failed to start: ${String(err)}`);
      this.setState("failed");
      this.client = undefined;
      void vscode.window
        .showErrorMessage(`The evalens server failed to start: ${String(err)}`, "Show Log")
        .then((pick) => pick && this.log.show());
    }
  }

  /** `workspace/configuration` for section `evalens` is answered with the normalised settings object. */
  private async answerConfiguration(
    items: { section?: string; scopeUri?: string }[],
    fallback: () => unknown,
  ): Promise<unknown[]> {
    const others = items.some((i) => !isEvalensSection(i.section)) ? ((await fallback()) as unknown[]) : [];
    return items.map((item, index) => {
      if (!isEvalensSection(item.section)) {
        return others[index] ?? null;
      }
      const scope = item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined;
      return configurationValue(item.section, currentSettings(scope), this.overrides());
    });
  }

  /** Lens clicks go through the client's `evalens.runCase` command: tell the Test Explorer about real runs
   * (a dry run has no verdict and must not replace the last one). */
  private async executeLensCommand(
    command: string,
    args: unknown[],
    next: (command: string, args: unknown[]) => vscode.ProviderResult<unknown>,
  ): Promise<unknown> {
    if (command === Commands.newCase) {
      return newCaseThenReveal(command, args, next); // the cursor goes to the new case's prompt
    }
    if (refusedUntrusted(command, args)) {
      explainRestricted(); // a lens made before trust changed, or a hover link: nothing starts
      return undefined;
    }
    args = args.length ? [withOverrides(command, args[0], this.overrides()), ...args.slice(1)] : args;
    const target = command === Commands.runCase ? lensRunTarget(args) : undefined;
    if (target && !(await this.saveGuard([target.uri]))) {
      return undefined; // the user chose neither to save nor to run the saved file
    }
    if (isLensBatch(command, args) && this.lensHooks) {
      if (!(await confirmLensBatch(this.lensHooks, args))) {
        return undefined; // asked as the palette asks ("Run 6 evals (stale in cases.yaml)?"), and declined
      }
      const batch = this.lensHooks.lensBatchStarted();
      try {
        const result = await next(command, args);
        this.lensHooks.lensBatchFinished(batch, result);
        return result;
      } catch (err) {
        this.lensHooks.lensBatchFinished(batch, undefined, err);
        throw err;
      }
    }
    if (!target || target.dryRun || !this.lensHooks) {
      return next(command, args);
    }
    this.lensHooks.lensRunStarted(target.uri, target.name, target.runs);
    try {
      const result = await next(command, args);
      this.lensHooks.lensRunFinished(target.uri, target.name, result);
      return result;
    } catch (err) {
      this.lensHooks.lensRunFinished(target.uri, target.name, undefined, err);
      throw err;
    }
  }

  /** A modal (its buttons are never cut, it waits for the user) naming what failed; the log has every step. */
  private async showStartFailure(error: string): Promise<void> {
    const pick = await vscode.window.showErrorMessage(
      "evalens could not start its language server.",
      { modal: true, detail: `${error}\n\nThe evalens log lists every interpreter tried.` },
      "Show Log",
      "Open Settings",
      "Retry",
    );
    if (pick === "Show Log") {
      this.log.show();
    } else if (pick === "Open Settings") {
      await vscode.commands.executeCommand("workbench.action.openSettings", "evalens.server");
    } else if (pick === "Retry") {
      this.scheduleRestart();
    }
  }

  private async offerInstall(cmd: ServerCommand): Promise<void> {
    const ui: InstallUi = {
      ask: (message, detail, ...choices) =>
        Promise.resolve(vscode.window.showWarningMessage(message, { modal: true, detail }, ...choices)),
      withProgress: (title, work) =>
        Promise.resolve(vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, work)),
      info: (message) => void vscode.window.showInformationMessage(message),
      openSettings: async () => {
        await vscode.commands.executeCommand("workbench.action.openSettings", "evalens.server.path");
      },
      clearServerPath: async () => {
        const config = vscode.workspace.getConfiguration("evalens");
        const set = config.inspect<string>("server.path");
        const folders = vscode.workspace.workspaceFolders ?? [];
        for (const f of folders) {
          const scoped = vscode.workspace.getConfiguration("evalens", f.uri);
          if (scoped.inspect<string>("server.path")?.workspaceFolderValue) {
            await scoped.update("server.path", undefined, vscode.ConfigurationTarget.WorkspaceFolder);
          }
        }
        if (set?.workspaceValue) {
          await config.update("server.path", undefined, vscode.ConfigurationTarget.Workspace);
        }
        if (set?.globalValue) {
          await config.update("server.path", undefined, vscode.ConfigurationTarget.Global);
        }
      },
      pickFolder: async () =>
        (
          await vscode.window.showOpenDialog({
            canSelectFolders: true,
            canSelectFiles: false,
            canSelectMany: false,
            openLabel: "Install this evalens checkout",
          })
        )?.[0]?.fsPath,
      log: (line) => write(this.log, line),
    };
    if ((await offerInstall(cmd.python ?? "python3", ui, this.env, cmd.source)) === "installed") {
      this.scheduleRestart(); // one restart, also when the install changed evalens.server.path
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.stop(3000);
      } catch (err) {
        this.log.warn(`Stopping the server: ${String(err)}`);
      }
      try {
        await client.dispose();
      } catch {
        /* already disposed */
      }
    }
    this.setState("stopped");
  }

  async restart(): Promise<void> {
    this.log.info("Restarting the evalens server");
    await this.starting;
    await this.stop();
    await this.start();
  }

  private scheduleRestart(): void {
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => void this.restart(), 500);
  }

  private configurationChanged(e: vscode.ConfigurationChangeEvent): void {
    if (!e.affectsConfiguration("evalens")) {
      return;
    }
    const next = currentSettings();
    const restart = needsRestart(this.settings, next);
    this.settings = next;
    if (restart) {
      this.scheduleRestart();
    } else if (this.client && this._state === "running") {
      void this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: { evalens: toWire(next, this.overrides()) } });
    }
  }

  /** The run overrides changed: the server hears them as part of the `evalens` section (it re-checks which
   * verdicts are stale against the next run, which takes them). */
  overridesChanged(): void {
    if (this.client && this._state === "running") {
      void this.client.sendNotification(DidChangeConfigurationNotification.type, {
        settings: { evalens: toWire(this.settings, this.overrides()) },
      });
    }
  }

  async dispose(): Promise<void> {
    clearTimeout(this.restartTimer);
    await this.stop();
    this.disposables.forEach((d) => d.dispose());
  }
}
