/**
 * A faithful fake of the part of the `electron` module main/ uses: event emitters that really register and call
 * handlers (webContents, app, BrowserWindow), the session's permission and header handlers, IPC handlers, dialogs
 * answered from queues, and records of what was opened externally. Tests drive main's real handlers through it:
 *
 *   vi.mock('electron', async () => (await import('../helpers/fake-electron.ts')).electronModule());
 *
 * and import `fake` from this file to emit events and inspect state (vitest gives both the same module instance).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';

type Handler = (...args: any[]) => any;

/** An Electron-style event: `preventDefault()` sets `defaultPrevented`; extra fields (url, …) as Electron passes them. */
export interface FakeEvent {
  defaultPrevented: boolean;
  preventDefault(): void;
  [field: string]: unknown;
}

/** Makes an event object like Electron's, carrying `fields` (e.g. `{ url }` for will-navigate details). */
export function makeEvent(fields: Record<string, unknown> = {}): FakeEvent {
  const event: FakeEvent = {
    ...fields,
    defaultPrevented: false,
    preventDefault() {
      event.defaultPrevented = true;
    },
  };
  return event;
}

class FakeWebRequest {
  headersReceived: Handler | null = null;
  onHeadersReceived(listener: Handler | null) {
    this.headersReceived = listener;
  }
}

class FakeSession {
  permissionRequest: Handler | null = null;
  permissionCheck: Handler | null = null;
  readonly webRequest = new FakeWebRequest();
  setPermissionRequestHandler(handler: Handler | null) {
    this.permissionRequest = handler;
  }
  setPermissionCheckHandler(handler: Handler | null) {
    this.permissionCheck = handler;
  }
}

class FakeWebContents extends EventEmitter {
  windowOpenHandler: Handler | null = null;
  url = '';
  constructor(readonly session: FakeSession) {
    super();
  }
  setWindowOpenHandler(handler: Handler) {
    this.windowOpenHandler = handler;
  }
  getURL() {
    return this.url;
  }
  /** Emits like Electron and answers the event, so a test sees whether a handler prevented it. */
  dispatch(name: string, fields: Record<string, unknown> = {}, ...rest: unknown[]): FakeEvent {
    const event = makeEvent(fields);
    this.emit(name, event, ...rest);
    return event;
  }
}

class FakeBrowserWindow extends EventEmitter {
  readonly webContents: FakeWebContents;
  readonly loaded: string[] = [];
  shown = false;
  destroyed = false;
  minimized = false;
  focused = 0;
  constructor(readonly options: any) {
    super();
    this.webContents = new FakeWebContents(state.defaultSession);
    state.windows.push(this);
    state.app.emit('web-contents-created', makeEvent(), this.webContents);
  }
  /** Like Electron: records the URL, and the first page load makes the window ready to show. */
  loadURL(url: string) {
    this.loaded.push(url);
    this.webContents.url = url;
    if (this.loaded.length === 1) queueMicrotask(() => this.emit('ready-to-show'));
    return Promise.resolve();
  }
  show() {
    this.shown = true;
  }
  isMinimized() {
    return this.minimized;
  }
  restore() {
    this.minimized = false;
  }
  focus() {
    this.focused++;
  }
  isDestroyed() {
    return this.destroyed;
  }
  close() {
    this.destroyed = true;
    this.emit('closed');
  }
}

class FakeApp extends EventEmitter {
  paths = new Map<string, string>();
  quitCalls = 0;
  relaunchCalls: unknown[] = [];
  exitCodes: number[] = [];
  isPackaged = false;
  /** What the OS locale is (app.getSystemLocale / getLocale). */
  systemLocale = 'en-US';
  getSystemLocale() {
    return this.systemLocale;
  }
  getLocale() {
    return this.systemLocale;
  }
  getPath(name: string) {
    const path = this.paths.get(name);
    if (path === undefined) throw new Error(`the fake app has no path '${name}' (tests pass userDataDir)`);
    return path;
  }
  setPath(name: string, path: string) {
    this.paths.set(name, path);
  }
  getAppPath() {
    return process.cwd();
  }
  getVersion() {
    return '0.0.0-test';
  }
  whenReady() {
    return Promise.resolve();
  }
  requestSingleInstanceLock() {
    return state.singleInstance;
  }
  quit() {
    this.quitCalls++;
  }
  relaunch(options?: unknown) {
    this.relaunchCalls.push(options ?? null);
  }
  exit(code = 0) {
    this.exitCodes.push(code);
  }
}

/**
 * What Electron sets up in a utility process before its module runs: `process.parentPort`, whose 'message' events
 * carry `{ data }` and whose postMessage reaches the parent's 'message' listeners. As in Electron, messages wait
 * until the port has a 'message' listener (Node's IPC holds them until the process has one).
 */
const PARENT_PORT = `data:text/javascript,${encodeURIComponent(
  "import { EventEmitter } from 'node:events'; const port = new EventEmitter(); port.once('newListener', () => process.on('message', (data) => port.emit('message', { data }))); port.postMessage = (m) => process.send(m); process.parentPort = port;",
)}`;

/** `utilityProcess.fork`: a Node child process with the module at `modulePath`, its `args` and `execArgv`. */
class FakeUtilityProcess extends EventEmitter {
  private readonly child: ChildProcess;
  readonly stdout: NodeJS.ReadableStream | null;
  readonly stderr: NodeJS.ReadableStream | null;
  constructor(
    readonly modulePath: string,
    readonly args: string[],
    readonly options: { execArgv?: string[]; stdio?: string; serviceName?: string },
  ) {
    super();
    const piped = options.stdio === 'pipe';
    this.child = fork(modulePath, args, { execArgv: [...(options.execArgv ?? []), '--import', PARENT_PORT], serialization: 'advanced', stdio: ['ignore', piped ? 'pipe' : 'inherit', piped ? 'pipe' : 'inherit', 'ipc'] });
    this.stdout = this.child.stdout;
    this.stderr = this.child.stderr;
    this.child.on('message', (m) => this.emit('message', m));
    // Electron reports an exit code (a process ended by a signal included).
    this.child.on('exit', (code) => this.emit('exit', code ?? 1));
  }
  get pid(): number | undefined {
    return this.child.exitCode === null && this.child.signalCode === null ? this.child.pid : undefined;
  }
  postMessage(message: unknown) {
    this.child.send(message as Parameters<ChildProcess['send']>[0]);
  }
  kill(): boolean {
    return this.child.kill();
  }
}

interface DialogCall {
  kind: 'error' | 'message' | 'save' | 'open';
  options: any;
}

const state = {
  windows: [] as FakeBrowserWindow[],
  handlers: new Map<string, Handler>(),
  defaultSession: new FakeSession(),
  app: new FakeApp(),
  singleInstance: true,
  /** Opened with shell.openExternal, in order. */
  external: [] as string[],
  dialogs: [] as DialogCall[],
  /** Answers for showMessageBox (`response` index), taken in order; empty → the cancelId. */
  messageBoxResponses: [] as number[],
  /** Answers for showSaveDialog / showOpenDialog: a path, or null for Cancel; empty → Cancel. */
  savePaths: [] as (string | null)[],
  openPaths: [] as (string | null)[],
  safeStorageAvailable: true,
  /** Every utilityProcess.fork, in order. */
  utilityProcesses: [] as FakeUtilityProcess[],
};

/** Resets every recorded thing between tests. */
function reset(): void {
  state.windows.length = 0;
  state.handlers.clear();
  // The module's exports are bound once: reset these objects in place instead of replacing them.
  Object.assign(state.defaultSession, new FakeSession());
  state.app.removeAllListeners();
  Object.assign(state.app, new FakeApp());
  state.app.setMaxListeners(50);
  state.singleInstance = true;
  state.external.length = 0;
  state.dialogs.length = 0;
  state.messageBoxResponses.length = 0;
  state.savePaths.length = 0;
  state.openPaths.length = 0;
  state.safeStorageAvailable = true;
  state.utilityProcesses.length = 0;
}

const electron = {
  app: state.app,
  BrowserWindow: FakeBrowserWindow,
  session: { defaultSession: state.defaultSession },
  ipcMain: {
    handle: (channel: string, fn: Handler) => {
      if (state.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
      state.handlers.set(channel, fn);
    },
    removeHandler: (channel: string) => state.handlers.delete(channel),
  },
  dialog: {
    showErrorBox: (title: string, content: string) => {
      state.dialogs.push({ kind: 'error', options: { title, content } });
    },
    showMessageBox: async (...args: any[]) => {
      const options = args.at(-1);
      state.dialogs.push({ kind: 'message', options });
      return { response: state.messageBoxResponses.shift() ?? options.cancelId ?? 0, checkboxChecked: false };
    },
    showSaveDialog: async (...args: any[]) => {
      state.dialogs.push({ kind: 'save', options: args.at(-1) });
      const path = state.savePaths.shift() ?? null;
      return path === null ? { canceled: true, filePath: '' } : { canceled: false, filePath: path };
    },
    showOpenDialog: async (...args: any[]) => {
      state.dialogs.push({ kind: 'open', options: args.at(-1) });
      const path = state.openPaths.shift() ?? null;
      return path === null ? { canceled: true, filePaths: [] } : { canceled: false, filePaths: [path] };
    },
  },
  shell: {
    openExternal: async (url: string) => {
      state.external.push(url);
    },
  },
  utilityProcess: {
    fork: (modulePath: string, args: string[] = [], options: ConstructorParameters<typeof FakeUtilityProcess>[2] = {}) => {
      const child = new FakeUtilityProcess(modulePath, args, options);
      state.utilityProcesses.push(child);
      return child;
    },
  },
  safeStorage: {
    isEncryptionAvailable: () => state.safeStorageAvailable,
    encryptString: (text: string) => Buffer.from(`enc:${text}`, 'utf8'),
    decryptString: (data: Buffer) => {
      const text = data.toString('utf8');
      if (!text.startsWith('enc:')) throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
      return text.slice(4);
    },
  },
};

/**
 * Calls a registered ipcMain handler the way the preload bridge's `ipcRenderer.invoke` reaches it: with an event
 * whose sender frame is at `senderUrl` (main refuses callers from other origins).
 */
async function invoke(channel: string, senderUrl: string, ...args: unknown[]): Promise<any> {
  const handler = state.handlers.get(channel);
  if (!handler) throw new Error(`No handler registered for '${channel}'`);
  return handler({ senderFrame: { url: senderUrl } }, ...args);
}

/** The fake's state and controls. */
export const fake = { state, reset, electron, invoke };

/** What `vi.mock('electron', …)` should answer: the named exports and the default export. */
export function electronModule() {
  return { ...electron, default: electron };
}

export type { FakeBrowserWindow, FakeWebContents, FakeSession, FakeUtilityProcess };
