/**
 * The desktop app's preload bridge (`window.cati`), or null in a plain browser. Its errors come back from the main
 * process as "Error invoking remote method 'cati:…': Error: <message>"; callers get `<message>` alone.
 */
import type { CatiBridge } from '../../../main/bridge-api.ts';

const PREFIX = /^Error invoking remote method '[^']+': (?:[A-Za-z]*Error: )?/;

/** The bridge with readable errors, or null outside the desktop app. */
export function desktopBridge(): CatiBridge | null {
  const raw = window.cati;
  if (!raw) return null;
  return new Proxy(raw, {
    get(target, name: string) {
      const fn = target[name as keyof CatiBridge] as ((...args: unknown[]) => Promise<unknown>) | undefined;
      if (typeof fn !== 'function') return fn;
      return (...args: unknown[]) =>
        fn(...args).catch((err: unknown) => {
          throw new Error(err instanceof Error ? err.message.replace(PREFIX, '') : String(err));
        });
    },
  });
}

/** The last part of a path (the file name the desktop app saved to). */
export const baseName = (path: string): string => path.split(/[\\/]/).at(-1) ?? path;
