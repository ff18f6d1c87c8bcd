import { request } from '../api/client.ts';
import type { ODataCollection } from '../api/odata.ts';

/** Sessions read at most to find who is logged in now. */
const SESSIONS_LIMIT = 10000;

/** Ids of the interviewers logged in now: their open sessions (`LogoutTime eq null`). */
export async function fetchLoggedInIds(): Promise<Set<number>> {
  const page = await request<ODataCollection<{ InterviewerId: number }>>('GET', '/cati/interviewersessionhistory', {
    query: { $filter: 'LogoutTime eq null', $select: 'InterviewerId', $top: SESSIONS_LIMIT },
  });
  return new Set(page.value.map((s) => s.InterviewerId));
}
