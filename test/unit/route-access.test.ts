/** What a request needs, from the caller's side (renderer/src/api/route-access.ts; docs/screens.md#roles). */
import { describe, expect, it } from 'vitest';
import { refusal } from '../../renderer/src/api/route-access.ts';

const administrator = { Role: 'administrator', Permissions: ['cati_administrate', 'cati_integrate', 'optout_administrate', 'company_administrate'] };
const supervisor = { Role: 'supervisor', Permissions: ['cati_administrate', 'optout_administrate'] };
const viewer = { Role: 'viewer', Permissions: ['cati_read'] };
const readKey = { Role: null, Permissions: ['cati_read'] };

describe('refusal', () => {
  it('lets everyone read the company settings, only administrators change them or reach the rest of /admin/', () => {
    for (const me of [administrator, supervisor, viewer, readKey]) expect(refusal(me, 'GET', '/admin/settings')).toBeNull();
    expect(refusal(supervisor, 'PATCH', '/admin/settings')).toMatch(/may not/);
    expect(refusal(supervisor, 'GET', '/admin/settings/phone-region-preview?region=NL')).toMatch(/may not/);
    expect(refusal(viewer, 'GET', '/admin/audit')).toMatch(/may not/);
    expect(refusal(administrator, 'GET', '/admin/users')).toBeNull();
  });

  it('lets a viewer read /cati/ but not change it, nor run an effectful GET function', () => {
    expect(refusal(viewer, 'GET', '/cati/groups?$top=10')).toBeNull();
    expect(refusal(viewer, 'POST', '/cati/groups')).toMatch(/may not change/);
    expect(refusal(viewer, 'GET', '/cati/interviewers(3)/Controller.Lock()', true)).toMatch(/may not change/);
    expect(refusal(supervisor, 'GET', '/cati/interviewers(3)/Controller.Lock()', true)).toBeNull();
    expect(refusal(viewer, 'POST', '/cati/scrubs')).toBeNull();
  });

  it('keeps the company-level opt-out list to administrators; every role reads project lists', () => {
    expect(refusal(supervisor, 'GET', '/optout/lists?projectId=')).toMatch(/company-level/);
    expect(refusal(supervisor, 'GET', '/optout/lists')).toMatch(/company-level/);
    expect(refusal(administrator, 'GET', '/optout/lists')).toBeNull();
    expect(refusal(viewer, 'GET', '/optout/lists?projectId=p123')).toBeNull();
    expect(refusal(readKey, 'GET', '/optout/lists?projectId=p123')).toMatch(/may not read/);
    expect(refusal(supervisor, 'POST', '/optout/lists')).toBeNull();
    expect(refusal(viewer, 'POST', '/optout/lists')).toMatch(/may not change/);
    expect(refusal(supervisor, 'PUT', '/optout/settings')).toMatch(/may not/);
  });

  it('never stands in the way of the session itself or the live stream', () => {
    for (const path of ['/auth/me', '/auth/logout', '/events']) expect(refusal(readKey, 'GET', path)).toBeNull();
  });
});
