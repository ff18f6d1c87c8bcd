import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { ApiRequestError, currentSession, onSessionEnded, request, setAccessCheck, signIn as apiSignIn, signOut as apiSignOut } from '../api/client.ts';
import { refusal } from '../api/route-access.ts';
import { applyLanguage, setLocalLanguage, type Language } from '../i18n/index.ts';

/** The caller as `GET /auth/me` describes it (docs/people.md). */
export interface Me {
  Kind: 'user' | 'key' | 'ui-link';
  Name: string;
  DisplayName: string;
  Role: 'administrator' | 'supervisor' | 'viewer' | null;
  Permissions: string[];
  /** The person's language for the screens; null (or absent) = the browser's (docs/screens.md#language). */
  Language?: Language | null;
}

/** Where a language choice was kept: with the person on the server, or only in this browser. */
export type LanguageKept = 'person' | 'browser';

/** A focus of the window re-reads who the caller is at most this often (a role changed elsewhere). */
const RECHECK_AFTER_MS = 10_000;

/**
 * Who is signed in: the session's owner as the server describes it, whether the session still holds, and why
 * the sign-in page shows (none yet, or the session ended). The screen stays in the address meanwhile, so after
 * signing in again the person is back where they were.
 */
export const useAuthStore = defineStore('auth', () => {
  const me = ref<Me | null>(null);
  const hasSession = ref(currentSession() !== null);
  /** Set when a session ended under the person's hands (not on a first visit or after Sign out). */
  const ended = ref(false);

  // Every request passes the role's check before it is sent: nothing the role is refused reaches the server.
  setAccessCheck((method, path, change) => (me.value ? refusal(me.value, method, path, change) : null));

  onSessionEnded(() => {
    hasSession.value = false;
    ended.value = me.value !== null;
    me.value = null;
  });

  let readAt = 0;
  /** Reads `GET /auth/me`; a refused session shows the sign-in page. */
  async function load(): Promise<void> {
    readAt = Date.now();
    me.value = await request<Me>('GET', '/auth/me');
  }

  /**
   * Reads `GET /auth/me` again (after a 403, on focus): answers whether the role or permissions changed, in which
   * case the screens have already followed (controls appear or go) and a refusal needs no error notice.
   */
  async function recheck(): Promise<boolean> {
    if (!me.value || !currentSession()) return false;
    const before = me.value;
    try {
      await load();
    } catch {
      return false;
    }
    const after = me.value;
    return !after || after.Role !== before.Role || [...after.Permissions].sort().join() !== [...before.Permissions].sort().join();
  }

  // A role changed by an administrator while this window was in the background shows when the person comes back.
  if (typeof window !== 'undefined') {
    window.addEventListener('focus', () => {
      if (Date.now() - readAt > RECHECK_AFTER_MS) void recheck();
    });
  }

  /** Signs in with a name and password and reads who that is. */
  async function signIn(name: string, password: string): Promise<void> {
    await apiSignIn(name, password);
    hasSession.value = true;
    ended.value = false;
    await load();
  }

  /** Ends the session on the server and shows the sign-in page. */
  async function signOut(): Promise<void> {
    try {
      await apiSignOut();
    } finally {
      me.value = null;
      hasSession.value = false;
      ended.value = false;
    }
  }

  /**
   * Stores the person's language (`PATCH /auth/me`; null = the browser's again) and shows it. A key or UI-link
   * session has no person to keep it with (the server refuses with 400 or 409): then only this browser keeps it.
   */
  async function setLanguage(language: Language | null): Promise<LanguageKept> {
    if (me.value?.Kind === 'user') {
      try {
        const answer = await request<Partial<Me> | undefined>('PATCH', '/auth/me', { body: { Language: language } });
        me.value = { ...me.value, ...(answer && typeof answer === 'object' ? answer : {}), Language: language };
        setLocalLanguage(language); // the sign-in page speaks it too, next time
        applyLanguage(language);
        return 'person';
      } catch (err) {
        if (!(err instanceof ApiRequestError) || (err.status !== 400 && err.status !== 409)) throw err;
      }
    }
    setLocalLanguage(language);
    if (me.value) me.value = { ...me.value, Language: null };
    applyLanguage(null);
    return 'browser';
  }

  return { me, hasSession, ended, signedIn: computed(() => hasSession.value && me.value !== null), load, recheck, signIn, signOut, setLanguage };
});
