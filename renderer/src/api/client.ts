/**
 * The one HTTP client of the renderer: base URL + Bearer key (from the desktop preload bridge, or from the
 * session key the `#token=` of the headless server's UI link is exchanged for), JSON in and out, and one error type.
 */
import type { Session } from '../../../main/bridge-api.ts';
import { t } from '../i18n/index.ts';

/** Every failed API call becomes this: the HTTP status and a message fit to show to the user. */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null = null,
    /** The request asked for a change (not a read): unanswered, the person must learn it was not confirmed. */
    readonly change = false,
  ) {
    super(message);
    this.name = 'ApiRequestError';
  }
  /** When the request was sent (ms since the epoch): an unreachable server that answered since is no longer news. */
  sentAt = Date.now();
}

/** When the server last answered anything (ms since the epoch; 0 before the first answer). */
let lastAnswerAt = 0;
/** Whether the last request found the server unreachable (no HTTP answer). */
let unreachableNow = false;
const backListeners = new Set<() => void>();
/** Calls `listener` when the server answers again after a request found it unreachable; answers the unsubscribe. */
export function onServerBack(listener: () => void): () => void {
  backListeners.add(listener);
  return () => backListeners.delete(listener);
}
/** Whether the server has answered since `time` (a failure from before then is no longer true). */
export const answeredSince = (time: number): boolean => lastAnswerAt > time;

function noteAnswer(): void {
  lastAnswerAt = Date.now();
  if (!unreachableNow) return;
  unreachableNow = false;
  for (const listener of backListeners) listener();
}

const STORAGE_KEY = 'cati.session';
let session: Session | null = null;

/** Reads `#token=` from the address, removes it from the address bar, and returns it. */
export function takeTokenFromLocation(loc: Location = window.location, hist: History = window.history): string | null {
  const match = /(?:^#|&)token=([^&]+)/.exec(loc.hash);
  if (!match?.[1]) return null;
  hist.replaceState(null, '', `${loc.pathname}${loc.search}`);
  return decodeURIComponent(match[1]);
}

/** Why no session could be made from the address's UI link, for the start page (null when there was none). */
let linkProblem: string | null = null;

/**
 * Spends the UI link's single-use token for a session key (`POST /auth/ui-token`); the link is useless afterwards.
 * Throws an Error with a sentence for the user when the server refuses it.
 */
async function exchangeToken(baseUrl: string, token: string): Promise<string> {
  const res = await fetch(`${baseUrl}/auth/ui-token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ token }),
    cache: 'no-store',
  });
  if (res.status === 401 || res.status === 400) {
    throw new Error(t('api.linkExpired', { command: '`npm run keys -- ui-link`' }));
  }
  if (!res.ok) throw await toError(res);
  return ((await res.json()) as { key: string }).key;
}

/** Establishes the session once: preload bridge first, then the UI link's token, then this tab's storage. */
export async function initSession(): Promise<Session | null> {
  if (window.cati) {
    session = await window.cati.getSession();
    return session;
  }
  const baseUrl = window.location.origin;
  const token = takeTokenFromLocation();
  if (token) {
    try {
      const apiKey = await exchangeToken(baseUrl, token);
      sessionStorage.setItem(STORAGE_KEY, apiKey);
    } catch (err) {
      linkProblem = (err as Error).message;
    }
  }
  const stored = sessionStorage.getItem(STORAGE_KEY);
  session = stored ? { baseUrl, apiKey: stored } : null;
  return session;
}

/** Why the UI link in the address gave no session (expired, used), or null. */
export const sessionProblem = (): string | null => linkProblem;

/** The current session (null until initSession found a key). */
export const currentSession = (): Session | null => session;

/** Forgets the key of this tab (after a 401 the person signs in again). */
export function clearSession(): void {
  session = null;
  sessionStorage.removeItem(STORAGE_KEY);
}

/** Told when the server refuses the session (expired, revoked, signed out elsewhere): the sign-in page shows. */
const endedListeners = new Set<() => void>();
/** Calls `listener` whenever a request is refused with 401; answers the unsubscribe. */
export function onSessionEnded(listener: () => void): () => void {
  endedListeners.add(listener);
  return () => endedListeners.delete(listener);
}

/** Where sign-in goes: the server of the session (desktop, client mode), else this page's. */
const serverUrl = () => session?.baseUrl ?? lastBaseUrl ?? window.location.origin;
let lastBaseUrl: string | null = null;

/**
 * Signs in with a name and password (`POST /auth/login`, docs/people.md#users); the session key lives in this tab.
 * Throws an Error with a sentence for the person when refused (wrong name or password, locked, too many tries).
 */
export async function signIn(name: string, password: string): Promise<void> {
  const baseUrl = serverUrl();
  let res: Response;
  try {
    res = await fetch(`${baseUrl}/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ Name: name, Password: password }),
      cache: 'no-store',
    });
  } catch (err) {
    throw new Error(t('api.unreachable', { message: (err as Error).message }), { cause: err });
  }
  if (res.status === 401) throw new Error(t('api.wrongPassword'));
  if (res.status === 429) {
    const minutes = Math.max(1, Math.ceil(Number(res.headers.get('Retry-After') ?? '60') / 60));
    throw new Error(t('api.tooManySignIns', { minutes }, minutes));
  }
  if (!res.ok) throw await toError(res);
  const { Key } = (await res.json()) as { Key: string };
  sessionStorage.setItem(STORAGE_KEY, Key);
  session = { ...(session ?? {}), baseUrl, apiKey: Key };
}

/** Signs out (`POST /auth/logout` ends the session on the server) and forgets the key. */
export async function signOut(): Promise<void> {
  try {
    if (session) await send('POST', '/auth/logout');
  } finally {
    lastBaseUrl = session?.baseUrl ?? lastBaseUrl;
    clearSession();
  }
}

export interface RequestOptions {
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as multipart/form-data. */
  form?: FormData;
  /** Query parameters; undefined and '' values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  /** Aborts the request (and the reading of a streamed body). */
  signal?: AbortSignal;
  /** The request makes a change though sent as GET (the seed's `Controller.Lock()` and the like); other methods always do. */
  change?: boolean;
}

/** Builds `/path?query` with every parameter encoded. */
export function buildPath(path: string, query: RequestOptions['query'] = {}): string {
  const params = Object.entries(query)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return params.length ? `${path}${path.includes('?') ? '&' : '?'}${params.join('&')}` : path;
}

/** The code of the ApiRequestError thrown for a request the caller's role may not send (it is never sent). */
export const ROLE_REFUSED = 'role-refused';

/** Says why the signed-in caller may not send a request (null: it may); set by the auth store (docs/screens.md#roles). */
type AccessCheck = (method: string, pathWithQuery: string, change: boolean) => string | null;
let accessCheck: AccessCheck | null = null;
/** Installs the check every request passes before it is sent. */
export function setAccessCheck(check: AccessCheck | null): void {
  accessCheck = check;
}

/** Throws, without sending anything, when the caller's role may not send this request. */
function checkAccess(method: string, path: string, options: RequestOptions): void {
  const why = accessCheck?.(method, buildPath(path, options.query), options.change === true);
  if (why) throw new ApiRequestError(403, why, ROLE_REFUSED, method !== 'GET' || options.change === true);
}

/** Sends a request and returns the raw response when it succeeded; throws ApiRequestError otherwise. */
export async function send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
  if (!session) throw new ApiRequestError(401, t('api.noSession'));
  checkAccess(method, path, options);
  const sentKey = session.apiKey;
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers, Authorization: `Bearer ${sentKey}` };
  let body: BodyInit | undefined;
  if (options.form) body = options.form;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] = 'application/json';
  }
  let res: Response;
  const sentAt = Date.now();
  try {
    res = await fetch(session.baseUrl + buildPath(path, options.query), { method, headers, body, cache: 'no-store', signal: options.signal });
  } catch (err) {
    // A change that got no answer may or may not have been made: the person is told it was not confirmed.
    const message = (err as Error).message;
    const read = (method === 'GET' || method === 'HEAD') && !options.change;
    const failure = new ApiRequestError(0, read ? t('api.readUnreachable', { message }) : t('api.changeUnconfirmed', { message }), null, !read);
    failure.sentAt = sentAt;
    if (!options.signal?.aborted) unreachableNow = true;
    throw failure;
  }
  noteAnswer();
  if (res.status === 401 && session?.apiKey === sentKey) {
    lastBaseUrl = session.baseUrl;
    clearSession();
    for (const listener of endedListeners) listener();
  }
  if (!res.ok) throw await toError(res);
  return res;
}

/** Sends a request and parses the JSON answer (undefined for an empty body such as 204). */
export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const res = await send(method, path, options);
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Turns an error response (OData `{error:{code,message}}`, `{message}` or empty) into an ApiRequestError. */
export async function toError(res: Response): Promise<ApiRequestError> {
  let message = '';
  let code: string | null = null;
  const text = await res.text().catch(() => '');
  if (text) {
    try {
      const parsed = JSON.parse(text) as { error?: { code?: string; message?: string }; message?: string };
      message = parsed.error?.message ?? parsed.message ?? '';
      code = parsed.error?.code ?? null;
    } catch {
      message = text.length <= 300 && !text.trimStart().startsWith('<') ? text : '';
    }
  }
  if (!message) message = defaultMessage(res.status);
  return new ApiRequestError(res.status, message, code);
}

function defaultMessage(status: number): string {
  switch (status) {
    case 401:
      return t('api.sessionEnded');
    case 403:
      return t('api.forbidden');
    case 404:
      return t('api.notFound');
    case 413:
      return t('api.tooLarge');
    default:
      return t('api.status', { status });
  }
}

/** Short text for any thrown value, for the message area. */
export function describeError(err: unknown): string {
  if (err instanceof ApiRequestError) return err.status ? `${err.message} (HTTP ${err.status})` : err.message;
  return err instanceof Error ? err.message : String(err);
}

/** What an upload reports: bytes sent of the total, then that the server has it all and is processing. */
export interface UploadProgress {
  progress(sent: number, total: number): void;
  processing(): void;
}

/**
 * Sends a multipart form with XMLHttpRequest (fetch cannot report upload progress), reporting the bytes sent
 * and the moment the server has the whole body; answers the parsed JSON or throws ApiRequestError.
 */
export function uploadForm<T>(path: string, form: FormData, on: UploadProgress, query: RequestOptions['query'] = {}): Promise<T> {
  if (!session) return Promise.reject(new ApiRequestError(401, t('api.noSession')));
  try {
    checkAccess('POST', path, { query });
  } catch (err) {
    return Promise.reject(err as Error);
  }
  const { baseUrl, apiKey } = session;
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', baseUrl + buildPath(path, query));
    xhr.setRequestHeader('Authorization', `Bearer ${apiKey}`);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.addEventListener('progress', (e) => on.progress(e.loaded, e.lengthComputable ? e.total : 0));
    xhr.upload.addEventListener('load', () => on.processing());
    xhr.addEventListener('error', () => reject(new ApiRequestError(0, t('api.uploadUnconfirmed'), null, true)));
    xhr.addEventListener('load', () => {
      const answer = new Response(xhr.responseText || null, { status: xhr.status });
      if (xhr.status >= 200 && xhr.status < 300) resolve((xhr.responseText ? JSON.parse(xhr.responseText) : undefined) as T);
      else void toError(answer).then(reject);
    });
    xhr.send(form);
  });
}
