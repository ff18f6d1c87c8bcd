/**
 * A screen that others change (the dialer, another supervisor, a script) loads what it shows each time it is shown
 * (onShown), and follows `/events` while it is shown (docs/events.md#events): an event of one of its kinds, or `reset`, reloads
 * it, at most once per RELOAD_GAP_MS however many events come (an import of 10,000 numbers). A screen kept alive but
 * not shown does not reload. Events missed while the stream was down are replayed on reconnection (Last-Event-ID),
 * or a `reset` says to reload; after an outage (the stream opens again) the screen reloads too (docs/screens.md#recovery).
 */
import { onMounted, onUnmounted } from 'vue';
import { RECONNECTED_EVENT, useLiveEventsStore } from '../stores/live-events.ts';
import { onShown, useShown } from './shown-again.ts';

export const RELOAD_GAP_MS = 300;

export function useLiveReload(events: readonly string[], reload: () => unknown): void {
  onShown(reload);
  const live = useLiveEventsStore();
  const kinds = new Set([...events, 'reset', RECONNECTED_EVENT]);
  const shown = useShown();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  let again = false;
  let unsubscribe: (() => void) | undefined;
  // One reload waits RELOAD_GAP_MS for the events that come with it; one that comes while a reload runs asks for another.
  const schedule = () => {
    if (running) again = true;
    else timer ??= setTimeout(run, RELOAD_GAP_MS);
  };
  const run = async () => {
    timer = undefined;
    running = true;
    try {
      if (shown.value) await reload();
    } finally {
      running = false;
      if (again) {
        again = false;
        schedule();
      }
    }
  };
  onMounted(() => {
    unsubscribe = live.subscribe((m) => {
      if (shown.value && kinds.has(m.event)) schedule();
    });
    live.start();
  });
  onUnmounted(() => {
    unsubscribe?.();
    clearTimeout(timer);
  });
}

/**
 * A screen shown when the server comes back after an outage reloads what it shows by itself (docs/screens.md#recovery):
 * the live stream, tried again every few seconds while the server is away, says when it is back. Starts the stream.
 */
export function useReloadOnReturn(reload: () => unknown): void {
  const live = useLiveEventsStore();
  const shown = useShown();
  let unsubscribe: (() => void) | undefined;
  onMounted(() => {
    unsubscribe = live.subscribe((m) => {
      if (shown.value && m.event === RECONNECTED_EVENT) void reload();
    });
    live.start();
  });
  onUnmounted(() => unsubscribe?.());
}
