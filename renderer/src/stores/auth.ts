import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { currentSession, onSessionEnded, request, signIn as apiSignIn, signOut as apiSignOut } from '../api/client.ts';

/** The caller as `GET /auth/me` describes it (docs/people.md#users). */
export interface Me {
  Kind: 'user' | 'key' | 'ui-link';
  Name: string;
  DisplayName: string;
  Role: 'administrator' | 'supervisor' | 'viewer' | null;
  Permissions: string[];
}

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

  onSessionEnded(() => {
    hasSession.value = false;
    ended.value = me.value !== null;
    me.value = null;
  });

  /** Reads `GET /auth/me`; a refused session shows the sign-in page. */
  async function load(): Promise<void> {
    me.value = await request<Me>('GET', '/auth/me');
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

  return { me, hasSession, ended, signedIn: computed(() => hasSession.value && me.value !== null), load, signIn, signOut };
});
