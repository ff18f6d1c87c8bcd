/**
 * A scrub job as the service keeps it, and its answer on the wire (docs/cati-api.md#scrubs).
 */
import type { Actor } from '../audit/audit-log.ts';
import type { Principal } from '../auth/api-keys.ts';
import type { ScrubKind } from './scrub-protocol.ts';

export type ScrubState = 'running' | 'done' | 'failed';

/** What every server knows of a scrub (the `jobs` table, job-table.ts), and what its answer shows. */
export interface ScrubView {
  id: string;
  kind: ScrubKind;
  /** Who may see it: the key, UI session or in-memory key that made it (scrubOwner). */
  owner: string;
  fileName: string;
  /** The text encoding the upload was read in (null: a workbook, or not read yet; docs/files.md#encodings). */
  encoding: string | null;
  state: ScrubState;
  rows: number | null;
  processed: number;
  kept: number;
  removed: number;
  invalid: number;
  /** Of `removed`: repeats removed by `dedupe=true`. */
  duplicates: number;
  /** How many trailing cells of each row of the result files the server added (guarded on download). */
  added: { kept: number; removed: number };
  error: string | null;
  createdAt: number;
  finishedAt: number | null;
  /** Opt-out scrubs: the lists matched, in priority order. */
  listIds: number[];
  /** How many chunks of each result file the database holds (job-files.ts); null until the job is done. */
  files: { kept: number; removed: number } | null;
}

/** A scrub as the server running it keeps it. */
export interface ScrubJob extends ScrubView {
  actor: Actor;
  /** Its directory under `<data-dir>/scrubs` (gone once it failed or was deleted). */
  dir: string;
  /** The upload being read (removed when the job ends or is deleted). */
  uploadPath: string;
  /** Stops a running job (its worker and files); set while it runs. */
  cancel?: () => Promise<void>;
}

/** `GET /cati/scrubs('{Id}')` and `GET /optout/scrubs/{Id}` (docs/cati-api.md#scrubs). */
export function jobAnswer(job: ScrubView): Record<string, unknown> {
  return {
    Id: job.id,
    State: job.state,
    FileName: job.fileName,
    Encoding: job.encoding,
    Rows: job.rows,
    Processed: job.processed,
    Kept: job.kept,
    Removed: job.removed,
    Invalid: job.invalid,
    Duplicates: job.duplicates,
    Error: job.error,
    CreatedAt: new Date(job.createdAt).toISOString(),
    FinishedAt: job.finishedAt === null ? null : new Date(job.finishedAt).toISOString(),
  };
}

/** The fields of a scrub the `jobs` table keeps in `data`. */
export type ScrubData = Omit<ScrubView, 'id' | 'kind' | 'owner' | 'state' | 'error' | 'createdAt' | 'finishedAt'>;

/** A scrub's `data` (job-table.ts). */
export function scrubData(job: ScrubView): ScrubData {
  const { fileName, encoding, rows, processed, kept, removed, invalid, duplicates, added, listIds, files } = job;
  return { fileName, encoding, rows, processed, kept, removed, invalid, duplicates, added, listIds, files };
}

/** The owner of what a principal creates: its key, else the signed-in person, else its UI session, else the in-memory key's name. */
export function scrubOwner(principal: Principal): string {
  if (principal.keyId !== null) return `key:${principal.keyId}`;
  if (principal.user) return `user:${principal.user.id}`;
  if (principal.uiSessionId !== undefined) return `ui:${principal.uiSessionId}`;
  return `memory:${principal.name}`;
}
