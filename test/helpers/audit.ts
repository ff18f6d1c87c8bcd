import { expect } from 'vitest';
import type { AuditRow } from '../../server/audit/audit-query.ts';
import type { TestServer } from './server.ts';

export type { AuditRow };

async function newest(t: TestServer, top: number): Promise<AuditRow[]> {
  const r = await t.json<{ value: AuditRow[] }>('GET', `/admin/audit?$top=${top}`);
  expect(r.status).toBe(200);
  return r.body.value;
}

/**
 * Runs `change` and answers the audit rows it wrote (read over HTTP, oldest first), so a test sees only
 * its own rows whatever ran before it.
 */
export async function audited<T>(t: TestServer, change: () => Promise<T>): Promise<{ result: T; rows: AuditRow[] }> {
  const mark = (await newest(t, 1))[0]?.Id ?? 0;
  const result = await change();
  const rows = (await newest(t, 1000)).filter((r) => r.Id > mark).reverse();
  return { result, rows };
}
