/**
 * Break alerts: when a break on the floor passes its limit (the server's `BreakOverLimit`, or the ticking time
 * passing the type's `MaxMinutes`), one in-app notice and one desktop notification (Web Notifications API) —
 * once per break, keyed by session and break start, remembered for the tab so a reload does not repeat them.
 */
import { defineStore } from 'pinia';
import { ref, watch } from 'vue';
import { currentLanguage, t } from '../i18n/index.ts';
import { formatDuration, type FloorRow } from './floor-format.ts';
import { useFloorStore } from './floor.ts';
import { useNoticesStore } from './notices.ts';

const STORAGE_KEY = 'cati.breakAlerts';
const REMEMBERED = 500;

/** The key of one break: its session and its start. */
export const breakKey = (r: Pick<FloorRow, 'SessionId' | 'StateSince'>): string => `${r.SessionId}@${Date.parse(r.StateSince)}`;

type Permission = NotificationPermission | 'unsupported';
const currentPermission = (): Permission => ('Notification' in window ? Notification.permission : 'unsupported');

export const useBreakAlertsStore = defineStore('break-alerts', () => {
  const permission = ref<Permission>(currentPermission());
  const alerted = new Set<string>(JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? '[]') as string[]);

  function remember(key: string) {
    alerted.add(key);
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify([...alerted].slice(-REMEMBERED)));
  }

  /** Asks for the desktop-notification permission (call it from a click: browsers ignore other requests). */
  async function askPermission() {
    if (permission.value === 'unsupported') return;
    permission.value = await Notification.requestPermission();
  }

  function alert(r: FloorRow, seconds: number, limit: number | null | undefined) {
    const who = r.DisplayName ?? r.Name ?? t('breaks.interviewer', { id: r.InterviewerId });
    const fields = { who, break: r.BreakTypeName ?? t('breaks.break'), time: formatDuration(seconds), limit: limit ?? '' };
    const what = limit !== null && limit !== undefined ? t('breaks.overLimitOf', fields) : t('breaks.overLimit', fields);
    useNoticesStore().warning(t('breaks.notice', { what }));
    if (currentPermission() === 'granted') {
      try {
        new Notification(t('breaks.title'), { body: what, tag: breakKey(r), lang: currentLanguage() });
      } catch {
        // Some platforms allow notifications only from a service worker; the in-app notice stands.
      }
    }
  }

  let started = false;
  /** Watches the floor (once, however often the screen mounts): every over-limit break is announced once. */
  function start() {
    if (started) return;
    started = true;
    const floor = useFloorStore();
    watch(
      () => [floor.visible, floor.now] as const,
      () => {
        for (const r of floor.visible) {
          if (r.State !== 'OnBreak' || floor.levelOf(r) !== 'over') continue;
          const key = breakKey(r);
          if (alerted.has(key)) continue;
          remember(key);
          alert(r, floor.secondsInState(r), r.BreakTypeId === null ? null : floor.limits.get(r.BreakTypeId));
        }
      },
      { immediate: true },
    );
  }

  return { permission, askPermission, start };
});
