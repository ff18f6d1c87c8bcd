import { computed, reactive, ref, watch } from 'vue';
import { useShown } from '../composables/shown-again.ts';
import { ApiRequestError, describeError } from '../api/client.ts';

/**
 * What a screen knows about the data it shows (docs/screens.md#truth): `idle` before the first load, `loading` while one runs,
 * `ready` / `empty` once an answer arrived, `error` when the server refused or failed, `offline` when it could not be
 * reached. After a failure the last good data stays on screen, marked `stale`.
 */
export type ResourceStatus = 'idle' | 'loading' | 'ready' | 'empty' | 'error' | 'offline';

/**
 * How many regions on screen say in place that the server cannot be reached (LoadState while offline): the notice
 * area then leaves out its own "cannot be reached" notice, so the problem is said once (docs/screens.md#truth).
 */
export const offlineInPlace = ref(0);

/**
 * Counts the calling component into offlineInPlace while `saying()` is true and its screen is shown (a screen kept
 * alive but not shown does not count). Only `saying` is watched: an effect that also read the counter it changes
 * would wake every other such component, and two of them would wake each other without end (a frozen window).
 */
export function useSaysOfflineInPlace(saying: () => boolean): void {
  const shown = useShown();
  watch(
    () => shown.value && saying(),
    (now, _before, onCleanup) => {
      if (!now) return;
      offlineInPlace.value++;
      onCleanup(() => offlineInPlace.value--);
    },
    { immediate: true },
  );
}

/** True when an error means the server could not be reached at all (no HTTP answer). */
export const isUnreachable = (err: unknown): boolean => err instanceof ApiRequestError && err.status === 0;

/** The one loading state of a store's data (a reactive object: read `state.status`, not `.value`): status, the failure's text, whether what is shown is stale, and when it last loaded. */
export function useResourceState() {
  const status = ref<ResourceStatus>('idle');
  const error = ref<string | null>(null);
  /** The data on screen is from an earlier load (the last one failed). */
  const stale = ref(false);
  /** When the last good answer arrived (ms since the epoch); null before the first. */
  const loadedAt = ref<number | null>(null);
  let latest = 0;

  /**
   * Runs a load and records its outcome: only the newest load's outcome is recorded (a superseded one changes
   * nothing). `isEmpty` is asked after a success; a failure is rethrown after it was recorded.
   */
  async function track<T>(work: () => Promise<T>, isEmpty: () => boolean): Promise<T> {
    const seq = ++latest;
    status.value = 'loading';
    try {
      const result = await work();
      if (seq === latest) {
        status.value = isEmpty() ? 'empty' : 'ready';
        error.value = null;
        stale.value = false;
        loadedAt.value = Date.now();
      }
      return result;
    } catch (err) {
      if (seq === latest) {
        status.value = isUnreachable(err) ? 'offline' : 'error';
        error.value = describeError(err);
        stale.value = loadedAt.value !== null;
      }
      throw err;
    }
  }

  /** Nothing received yet for what is asked now: the screen says "Loading…" (never "nothing found"). */
  const pending = computed(() => status.value === 'idle' || status.value === 'loading');
  /** The last load failed (refused or unreachable). */
  const failed = computed(() => status.value === 'error' || status.value === 'offline');

  /** Forgets what was shown (before loading something else, e.g. another tab): back to idle, nothing stale. */
  function reset() {
    latest++;
    status.value = 'idle';
    error.value = null;
    stale.value = false;
    loadedAt.value = null;
  }

  return reactive({ status, error, stale, loadedAt, pending, failed, track, reset });
}

export type ResourceState = ReturnType<typeof useResourceState>;

/** Runs a load whose failure the screen shows itself (through its resource state), so no notice is pushed. */
export async function quietly(load: () => Promise<unknown>): Promise<void> {
  try {
    await load();
  } catch {
    // Recorded in the resource state and shown in place, with Retry.
  }
}
