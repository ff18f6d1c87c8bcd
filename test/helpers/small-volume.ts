/**
 * A small real file system for full-disk tests: a tmpfs of a few MB mounted on a fresh temporary directory
 * (root only). Where mounting is refused the tests using it are skipped with the reason — except under CI=true,
 * where CI runs as root on a machine that allows it, so a refused mount fails the run.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** A mounted small volume, or why there is none. */
export type SmallVolume = { dir: string; reason?: undefined } | { dir?: undefined; reason: string };

/** Mounts a tmpfs of `sizeMb` MB on a new directory under /tmp (synchronously: tests decide what to skip at collection). */
export function mountSmallVolume(sizeMb: number): SmallVolume {
  const dir = mkdtempSync(join('/tmp', 'cati-small-volume-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0755`, 'tmpfs', dir], { stdio: 'pipe', timeout: 10_000 });
    return { dir };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const reason = `cannot mount a ${sizeMb} MB tmpfs (needs root and mount permission): ${String((err as { stderr?: unknown }).stderr ?? err).trim()}`;
    if (process.env.CI === 'true') throw new Error(`${reason} — under CI=true the full-disk tests must run`, { cause: err });
    return { reason };
  }
}

/**
 * Why no small volume can be mounted here (undefined when one can): a 1 MB tmpfs is mounted and unmounted at
 * once, so a test file decides what to skip at collection and mounts its volume in `beforeAll` (a volume mounted
 * at collection would stay mounted when a filter skips every test of the file). Throws under CI=true.
 */
export function smallVolumeUnavailable(): string | undefined {
  const probe = mountSmallVolume(1);
  if (probe.dir) unmountSmallVolume(probe.dir);
  return probe.reason;
}

/** Unmounts and removes a volume of mountSmallVolume (lazily, should a file still be open). */
export function unmountSmallVolume(dir: string): void {
  execFileSync('umount', ['-l', dir], { stdio: 'pipe', timeout: 10_000 });
  rmSync(dir, { recursive: true, force: true });
}

/** Bytes still free on the file system of `dir`. */
export function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}

/**
 * Fills the file system of `dir` with the file `filler` until only about `leaveBytes` are free (0: until the
 * disk refuses with ENOSPC). Returns the bytes written; delete the file to free them.
 */
export function fillVolume(dir: string, filler: string, leaveBytes = 0): number {
  const fd = openSync(filler, 'a');
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let written = 0;
  try {
    for (let i = 0; i < 1_000_000; i++) {
      const room = freeBytes(dir) - leaveBytes;
      if (room <= 0) break;
      try {
        written += writeSync(fd, chunk, 0, Math.min(chunk.length, room));
      } catch (err) {
        if ((err as { code?: string }).code === 'ENOSPC') break;
        throw err;
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}
