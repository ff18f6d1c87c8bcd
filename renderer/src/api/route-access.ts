/**
 * What a request needs, from the caller's side (docs/screens.md#roles): the server's route table read the other
 * way round. The permissions themselves come from `GET /auth/me` (the server's one role table); this says which of
 * them a request needs, so a screen can leave out a control, and the client never sends a request the role is
 * refused (no 403 in the network log of a normal session).
 */

/** The caller as far as access goes: `GET /auth/me`'s Permissions and Role. */
export interface Holder {
  Permissions: readonly string[];
  Role: string | null;
}

/** Whether `held` grants `permission`: itself, or one that implies it (company_administrate implies all). */
export function grants(held: readonly string[], permission: string): boolean {
  if (held.includes('company_administrate') || held.includes(permission)) return true;
  return permission === 'cati_read' && held.includes('cati_administrate');
}

/**
 * Reading project opt-out lists: those who administer them, and every role (a viewer reads them: GET only).
 * API keys with only `cati_read` do not.
 */
export const readsProjectOptOut = (me: Holder): boolean => grants(me.Permissions, 'optout_administrate') || me.Role !== null;

/** The query parameter `name` of a path's query (`?a=b&c=d`), decoded; undefined when absent. */
function queryValue(path: string, name: string): string | undefined {
  const q = path.indexOf('?');
  if (q < 0) return undefined;
  for (const part of path.slice(q + 1).split('&')) {
    const [k, v = ''] = part.split('=');
    if (decodeURIComponent(k!) === name) return decodeURIComponent(v.replace(/\+/g, ' '));
  }
  return undefined;
}

/**
 * Why the caller may not send `method path` (null when it may, or when the renderer cannot tell: the server
 * decides). `change` marks a GET that changes something (`Controller.Lock()` and the like). `path` carries its
 * query (`/optout/lists?projectId=p1`).
 */
export function refusal(me: Holder, method: string, path: string, change = false): string | null {
  const held = me.Permissions;
  const need = (permission: string, what: string) => (grants(held, permission) ? null : `Your role may not ${what}.`);
  const read = (method === 'GET' || method === 'HEAD') && !change;
  const bare = path.split('?')[0]!;
  if (bare.startsWith('/auth/') || bare === '/events' || bare === '/healthz') return null;
  if (bare === '/admin/settings' && read) return null; // every signed-in person reads the company settings
  if (bare.startsWith('/admin/')) return need('company_administrate', 'administer the company');
  if (bare.startsWith('/cati/scrubs')) return grants(held, 'cati_read') || held.includes('cati_integrate') ? null : 'Your role may not scrub samples.';
  if (bare.startsWith('/cati/')) {
    if (/Controller\.Check\b/.test(bare)) return grants(held, 'cati_administrate') || held.includes('cati_integrate') ? null : 'Your role may not check numbers.';
    return read ? need('cati_read', 'read the CATI data') : need('cati_administrate', 'change the CATI data');
  }
  if (bare === '/optout/settings') return need('company_administrate', 'change the unsubscribe pages');
  if (bare === '/optout/lists' && read) {
    const project = (queryValue(path, 'projectId') ?? '').trim();
    if (!project) return need('company_administrate', 'use the company-level opt-out list');
    return readsProjectOptOut(me) ? null : 'Your role may not read opt-out lists.';
  }
  if (bare === '/optout/lists') return grants(held, 'optout_administrate') ? null : 'Your role may not change opt-out lists.';
  return null;
}
