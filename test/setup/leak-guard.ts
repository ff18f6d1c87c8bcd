/**
 * Runs around every test file (vitest `setupFiles`). The files of one worker share its module cache and process
 * (`isolate: false` in vitest.config.ts), so whatever a file leaves behind reaches the next file of that worker.
 * This guard makes such a leak fail the file that left it, instead of a later file that merely ran after it: an
 * environment variable set or removed, a process listener added, a patched `pg` client method, fake timers left
 * on, or a server still listening.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, vi } from 'vitest';

const EVENTS = ['exit', 'beforeExit', 'SIGINT', 'SIGTERM', 'uncaughtException', 'unhandledRejection', 'warning', 'message'] as const;
const PATCHABLE = [
  ['pg.Client.prototype.query', pg.Client.prototype, 'query'],
  ['pg.Client.prototype.connect', pg.Client.prototype, 'connect'],
  ['pg.Pool.prototype.query', pg.Pool.prototype, 'query'],
  ['pg.Pool.prototype.connect', pg.Pool.prototype, 'connect'],
] as const;

/**
 * Where each process listener was added, from a wrapper installed once per worker: a listener a dependency adds
 * (a module that removes its temporary files at exit when first loaded, playwright's launcher while the worker's
 * shared Chromium runs) is the dependency's own, once per process; one added from the project's code is a leak.
 */
const ADDED_FROM = Symbol.for('cati.leakGuard.addedFrom');
type Origins = WeakMap<(...args: never[]) => unknown, string>;
const origins: Origins = ((globalThis as Record<symbol, Origins>)[ADDED_FROM] ??= installOrigins());

function installOrigins(): Origins {
  const map: Origins = new WeakMap();
  type AddListener = (this: NodeJS.Process, event: string | symbol, listener: (...args: never[]) => unknown) => NodeJS.Process;
  const target = process as unknown as Record<string, AddListener>;
  for (const method of ['on', 'addListener', 'once', 'prependListener', 'prependOnceListener']) {
    const original = target[method]!;
    target[method] = function (event, listener) {
      // The first frame outside this file and Node's own: whoever called process.on.
      const caller = (new Error().stack ?? '').split('\n').slice(2).find((l) => !l.includes('leak-guard') && !l.includes('node:')) ?? '';
      map.set(listener, caller);
      return original.call(this, event, listener);
    };
  }
  return map;
}

/** The process's listeners of `event` that the project's code added (not a dependency, see `origins`). */
const ownListeners = (event: string): number =>
  process.listeners(event as 'exit').filter((fn) => !(origins.get(fn as never) ?? '').includes('/node_modules/')).length;

interface Snapshot {
  env: Record<string, string | undefined>;
  listeners: Record<string, number>;
  methods: unknown[];
  listening: number;
  resources: Record<string, number>;
  cwd: string;
}

/** Servers listening in this process (`TCPServerWrap`: an HTTP server, a net server). */
const listeningServers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap' || r === 'PipeServerWrap').length;

const countBy = (names: string[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const n of names) out[n] = (out[n] ?? 0) + 1;
  return out;
};

/** Handles that keep the process alive, more than before (reported, not failed: they end the worker late). */
function lingering(before: Snapshot): string[] {
  const now = countBy(process.getActiveResourcesInfo());
  return Object.entries(now).filter(([k, n]) => n > (before.resources[k] ?? 0)).map(([k, n]) => `${n - (before.resources[k] ?? 0)} ${k}`);
}

function snapshot(): Snapshot {
  return {
    env: { ...process.env },
    listeners: Object.fromEntries(EVENTS.map((e) => [e, ownListeners(e)])),
    methods: PATCHABLE.map(([, owner, name]) => owner[name]),
    listening: listeningServers(),
    resources: countBy(process.getActiveResourcesInfo()),
    cwd: process.cwd(),
  };
}

/** What differs between `before` and now, one line each (empty: nothing leaked). */
function leaks(before: Snapshot): string[] {
  const found: string[] = [];
  const now = snapshot();
  for (const key of new Set([...Object.keys(before.env), ...Object.keys(now.env)])) {
    if (before.env[key] !== now.env[key]) found.push(`environment variable ${key} changed (${JSON.stringify(before.env[key])} → ${JSON.stringify(now.env[key])})`);
  }
  for (const e of EVENTS) if (now.listeners[e]! > before.listeners[e]!) found.push(`${now.listeners[e]! - before.listeners[e]!} process '${e}' listener(s) added`);
  PATCHABLE.forEach(([label], i) => now.methods[i] !== before.methods[i] && found.push(`${label} replaced`));
  if (vi.isFakeTimers()) found.push('fake timers still on');
  if (now.listening > before.listening) found.push(`${now.listening - before.listening} server(s) still listening`);
  if (now.cwd !== before.cwd) found.push(`working directory changed to ${now.cwd}`);
  return found;
}

let before: Snapshot;
beforeAll(() => {
  before = snapshot();
});
afterAll(async () => {
  // A server's close may end a tick after the file's own afterAll resolved; give sockets a moment to go.
  let found = leaks(before);
  for (let i = 0; i < 20 && found.length; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    found = leaks(before);
  }
  const handles = lingering(before);
  if (handles.length && process.env.CATI_TEST_HANDLES === '1') console.warn(`LINGERING ${expect.getState().testPath}: ${handles.join(', ')}`);
  if (found.length) throw new Error(`This test file leaves state behind for the next file of its worker:\n- ${found.join('\n- ')}`);
});
