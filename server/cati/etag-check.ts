import { checkIfMatch } from '../odata/format.ts';

/** The request's If-Match header against a row's current version: absent or `*` passes, stale → 412. */
export function checkVersion(current: number, ifMatch: string | undefined): void {
  checkIfMatch(ifMatch, current);
}
