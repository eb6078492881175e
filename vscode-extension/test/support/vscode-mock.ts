/**
 * A small in-memory stand-in for the parts of the `vscode` API the extension logic uses (Testing API, Uri,
 * ranges, events, configuration, status bar). Unit tests only: the e2e test runs the real VS Code.
 */
import * as path from "node:path";
import { URL } from "node:url";

export type Listener<T> = (e: T) => unknown;

export class Disposable {
  constructor(private readonly fn: () => void = () => undefined) {}
  dispose(): void {
    this.fn();
  }
}

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  readonly event = (listener: Listener<T>) => {
    this.listeners.push(listener);
    return new Disposable(() => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    });
  };
  fire(e: T): void {
    [...this.listeners].forEach((l) => l(e));
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
  ) {}
  static file(p: string): Uri {
    return new Uri("file", path.posix.normalize(p.replace(/\\/g, "/")));
  }
  static parse(s: string): Uri {
    const u = new URL(s);
    return new Uri(u.protocol.replace(/:$/, ""), decodeURIComponent(u.pathname));
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}://${this.path.split("/").map(encodeURIComponent).join("/")}`;
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(sl: number, sc: number, el: number, ec: number) {
    this.start = new Position(sl, sc);
    this.end = new Position(el, ec);
  }
}

export class SnippetString {
  constructor(readonly value: string) {}
}

export class SnippetTextEdit {
  constructor(
    readonly range: Range,
    readonly snippet: SnippetString,
  ) {}
  static replace(range: Range, snippet: SnippetString): SnippetTextEdit {
    return new SnippetTextEdit(range, snippet);
  }
}

export class WorkspaceEdit {
  readonly entries: [Uri, unknown[]][] = [];
  set(uri: Uri, edits: unknown[]): void {
    this.entries.push([uri, edits]);
  }
}

export class CodeAction {
  edit?: WorkspaceEdit;
  data?: unknown;
  constructor(readonly title: string) {}
}

export class CodeLens {
  constructor(
    public range: Range,
    public command?: { title: string; command: string; tooltip?: string; arguments?: unknown[] },
  ) {}
}

export class Location {
  constructor(
    readonly uri: Uri,
    readonly range: Range,
  ) {}
}

export class TestMessage {
  location?: Location;
  expectedOutput?: string;
  actualOutput?: string;
  constructor(readonly message: string) {}
}

export enum TestRunProfileKind {
  Run = 1,
  Debug = 2,
  Coverage = 3,
}

export class TestRunRequest {
  constructor(
    readonly include?: TestItem[],
    readonly exclude?: TestItem[],
    readonly profile?: unknown,
  ) {}
}

export class TestItemCollection {
  private readonly map = new Map<string, TestItem>();
  get size(): number {
    return this.map.size;
  }
  add(item: TestItem): void {
    this.map.set(item.id, item);
  }
  delete(id: string): void {
    this.map.delete(id);
  }
  get(id: string): TestItem | undefined {
    return this.map.get(id);
  }
  replace(items: TestItem[]): void {
    this.map.clear();
    items.forEach((i) => this.add(i));
  }
  forEach(fn: (item: TestItem, collection: TestItemCollection) => void): void {
    [...this.map.values()].forEach((i) => fn(i, this));
  }
  [Symbol.iterator](): Iterator<[string, TestItem]> {
    return this.map[Symbol.iterator]();
  }
}

export class TestTag {
  constructor(readonly id: string) {}
}

export class TestItem {
  readonly children = new TestItemCollection();
  range?: Range;
  description?: string;
  tags: readonly TestTag[] = [];
  constructor(
    readonly id: string,
    public label: string,
    readonly uri?: Uri,
  ) {}
}

export interface RecordedEvent {
  kind: "enqueued" | "started" | "passed" | "failed" | "errored" | "skipped" | "output" | "end";
  id?: string;
  duration?: number;
  messages?: TestMessage[];
  text?: string;
}

export class FakeTestRun {
  readonly events: RecordedEvent[] = [];
  ended = false;
  constructor(
    readonly request: TestRunRequest,
    readonly name: string | undefined,
    readonly persist: boolean,
  ) {}
  enqueued(item: TestItem) {
    this.events.push({ kind: "enqueued", id: item.id });
  }
  started(item: TestItem) {
    this.events.push({ kind: "started", id: item.id });
  }
  passed(item: TestItem, duration?: number) {
    this.events.push({ kind: "passed", id: item.id, duration });
  }
  failed(item: TestItem, messages: TestMessage | TestMessage[], duration?: number) {
    this.events.push({ kind: "failed", id: item.id, duration, messages: ([] as TestMessage[]).concat(messages) });
  }
  errored(item: TestItem, messages: TestMessage | TestMessage[], duration?: number) {
    this.events.push({ kind: "errored", id: item.id, duration, messages: ([] as TestMessage[]).concat(messages) });
  }
  skipped(item: TestItem) {
    this.events.push({ kind: "skipped", id: item.id });
  }
  appendOutput(text: string, _loc?: Location, item?: TestItem) {
    this.events.push({ kind: "output", id: item?.id, text });
  }
  end() {
    this.ended = true;
    this.events.push({ kind: "end" });
  }
}

export class FakeTestController {
  readonly items = new TestItemCollection();
  readonly runs: FakeTestRun[] = [];
  readonly profiles: { label: string; handler: unknown; isDefault?: boolean }[] = [];
  resolveHandler?: (item?: TestItem) => Promise<void>;
  refreshHandler?: () => Promise<void>;
  constructor(
    readonly id: string,
    readonly label: string,
  ) {}
  createTestItem(id: string, label: string, uri?: Uri): TestItem {
    return new TestItem(id, label, uri);
  }
  createRunProfile(label: string, _kind: TestRunProfileKind, handler: unknown, isDefault?: boolean) {
    const profile = { label, handler, isDefault };
    this.profiles.push(profile);
    return profile;
  }
  createTestRun(request: TestRunRequest, name?: string, persist = true): FakeTestRun {
    const run = new FakeTestRun(request, name, persist);
    this.runs.push(run);
    return run;
  }
  /** The ids of each invalidateTestResults call (results marked outdated, which VS Code dims). */
  readonly invalidated: string[][] = [];
  invalidateTestResults(items?: TestItem | readonly TestItem[]): void {
    this.invalidated.push(items === undefined ? ["*"] : ([] as TestItem[]).concat(items as TestItem).map((i) => i.id));
  }
  dispose(): void {}
}

export const createdControllers: FakeTestController[] = [];
export const tests = {
  createTestController(id: string, label: string) {
    const c = new FakeTestController(id, label);
    createdControllers.push(c);
    return c;
  },
};

export class CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  readonly token = {
    isCancellationRequested: false,
    onCancellationRequested: this.emitter.event,
  };
  cancel(): void {
    if (!this.token.isCancellationRequested) {
      this.token.isCancellationRequested = true;
      this.emitter.fire();
    }
  }
  dispose(): void {}
}

class FakeWatcher extends Disposable {
  private readonly created = new EventEmitter<Uri>();
  private readonly changed = new EventEmitter<Uri>();
  private readonly deleted = new EventEmitter<Uri>();
  readonly onDidCreate = this.created.event;
  readonly onDidChange = this.changed.event;
  readonly onDidDelete = this.deleted.event;
}

export const configurationValues: Record<string, unknown> = {};
export const workspaceEvents = {
  changeText: new EventEmitter<{ document: { uri: Uri }; contentChanges: unknown[] }>(),
  save: new EventEmitter<{ uri: Uri }>(),
  configuration: new EventEmitter<{ affectsConfiguration(section: string): boolean }>(),
  grantTrust: new EventEmitter<void>(),
};

export const workspace = {
  workspaceFolders: undefined as { uri: Uri; name: string; index: number }[] | undefined,
  /** Workspace trust: tests set it false for Restricted Mode. */
  isTrusted: true,
  onDidGrantWorkspaceTrust: workspaceEvents.grantTrust.event,
  /** As VS Code's: the innermost workspace folder holding `uri`. */
  getWorkspaceFolder(uri: Uri) {
    const inside = (workspace.workspaceFolders ?? []).filter(
      (f) => f.uri.scheme === uri.scheme && (uri.path === f.uri.path || uri.path.startsWith(`${f.uri.path.replace(/\/$/, "")}/`)),
    );
    return inside.sort((a, b) => b.uri.path.length - a.uri.path.length)[0];
  },
  getConfiguration(section: string) {
    return {
      get<T>(key: string): T | undefined {
        return configurationValues[`${section}.${key}`] as T | undefined;
      },
    };
  },
  onDidChangeTextDocument: workspaceEvents.changeText.event,
  onDidSaveTextDocument: workspaceEvents.save.event,
  onDidChangeConfiguration: workspaceEvents.configuration.event,
  createFileSystemWatcher: () => new FakeWatcher(),
  async openTextDocument(uri: Uri) {
    return { uri };
  },
};

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export const registeredCommands = new Map<string, (...args: unknown[]) => unknown>();
export const executedCommands: unknown[][] = [];
export const commands = {
  registerCommand(id: string, fn: (...args: unknown[]) => unknown) {
    registeredCommands.set(id, fn);
    return new Disposable(() => registeredCommands.delete(id));
  },
  async executeCommand(...args: unknown[]) {
    executedCommands.push(args);
    return undefined;
  },
};

export enum ViewColumn {
  Active = -1,
  Beside = -2,
  One = 1,
}

/** A webview panel: what a test reads back is its title and html. */
export class FakeWebviewPanel {
  readonly webview = { html: "", cspSource: "vscode-resource:" };
  revealed = 0;
  private readonly disposeListeners: (() => void)[] = [];
  constructor(
    readonly viewType: string,
    public title: string,
  ) {}
  reveal() {
    this.revealed++;
  }
  onDidDispose(listener: () => void) {
    this.disposeListeners.push(listener);
    return new Disposable(() => undefined);
  }
  dispose() {
    this.disposeListeners.forEach((l) => l());
  }
}

export const window = {
  activeTextEditor: undefined as unknown,
  shown: [] as { uri: string; selection: unknown; preview: unknown }[],
  async showTextDocument(document: { uri: Uri }, options: { selection?: unknown; preview?: boolean } = {}) {
    window.shown.push({ uri: document.uri.toString(), selection: options.selection, preview: options.preview });
    return { document, selection: options.selection };
  },
  panels: [] as FakeWebviewPanel[],
  createWebviewPanel(viewType: string, title: string) {
    const panel = new FakeWebviewPanel(viewType, title);
    window.panels.push(panel);
    return panel;
  },
  createStatusBarItem(id: string, alignment: StatusBarAlignment, priority: number) {
    return { id, alignment, priority, text: "", tooltip: "", name: "", command: "", backgroundColor: undefined as unknown, show() {}, dispose() {} };
  },
  messages: [] as string[],
  async showInformationMessage(m: string) {
    window.messages.push(m);
    return undefined;
  },
  /** What the next showWarningMessage calls answer (undefined: dismissed), and the options they got. */
  warningAnswers: [] as (string | undefined)[],
  warningOptions: [] as unknown[],
  async showWarningMessage(m: string, ...rest: unknown[]) {
    window.messages.push(m);
    if (rest.length && typeof rest[0] === "object") {
      window.warningOptions.push(rest[0]);
    }
    return window.warningAnswers.shift();
  },
  async showErrorMessage(m: string) {
    window.messages.push(m);
    return undefined;
  },
};

/** Installed extensions by id; tests put a fake Python extension here. */
export const installedExtensions: Record<string, { isActive: boolean; exports: unknown; activate(): Promise<unknown> }> = {};
export const extensions = { getExtension: (id: string) => installedExtensions[id] };
