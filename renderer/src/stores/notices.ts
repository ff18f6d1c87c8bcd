import { defineStore } from 'pinia';
import { ref } from 'vue';
import { answeredSince, ApiRequestError, currentSession, describeError, onServerBack, ROLE_REFUSED } from '../api/client.ts';
import { isUnreachable } from './resource-state.ts';
import { useAuthStore } from './auth.ts';

export interface Notice {
  id: number;
  kind: 'error' | 'success' | 'warning';
  text: string;
  /** A read found the server unreachable (no HTTP answer): left out while a region on screen says so in place. */
  unreachable?: boolean;
}

const SUCCESS_VISIBLE_MS = 6000;

/** Messages shown to the user in one live region: API errors and confirmations. */
export const useNoticesStore = defineStore('notices', () => {
  const items = ref<Notice[]>([]);
  let next = 1;
  // "Cannot be reached" is over once the server answers again: those notices go by themselves (docs/screens.md#recovery).
  onServerBack(() => (items.value = items.value.filter((n) => !n.unreachable)));

  /** One notice per problem: the same message while it is still shown is not added again (a retry failing the same way). */
  function push(kind: Notice['kind'], text: string, unreachable = false) {
    if (items.value.some((n) => n.kind === kind && n.text === text)) return;
    const id = next++;
    items.value = [...items.value.slice(-4), { id, kind, text, unreachable }];
    // Confirmations fade; errors stay until dismissed.
    if (kind === 'success') setTimeout(() => dismiss(id), SUCCESS_VISIBLE_MS);
  }
  function dismiss(id: number) {
    items.value = items.value.filter((n) => n.id !== id);
  }
  /**
   * An error, shown unless something truer says it: a refused session is told by the sign-in page that replaces the
   * screen (not once per failed request); a request the role may not send was never sent (its control is gone);
   * a 403 from the server re-reads who the caller is, and when the role changed the screens follow it instead of an
   * error notice (docs/screens.md#roles).
   */
  function error(err: unknown): void {
    if (err instanceof ApiRequestError) {
      if (err.status === 401 && !currentSession()) return;
      if (err.code === ROLE_REFUSED) return;
      // A request that found the server down, answered by the server since (a late failure): no longer true.
      if (isUnreachable(err) && !err.change && answeredSince(err.sentAt)) return;
      if (err.status === 403) {
        void useAuthStore()
          .recheck()
          .then((changed) => changed || push('error', describeError(err)));
        return;
      }
    }
    push('error', describeError(err), isUnreachable(err) && !(err as ApiRequestError).change);
  }

  return {
    items,
    dismiss,
    success: (text: string) => push('success', text),
    error,
    /** Something needing attention that is not a failure (a break over its limit); stays until dismissed. */
    warning: (text: string) => push('warning', text),
    clear: () => (items.value = []),
  };
});

/** Runs an action, reporting a thrown error to the notices store; returns undefined when it failed. */
export async function attempt<T>(action: () => Promise<T>): Promise<T | undefined> {
  try {
    return await action();
  } catch (err) {
    useNoticesStore().error(err);
    return undefined;
  }
}
