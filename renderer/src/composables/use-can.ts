import { computed } from 'vue';
import { useAuthStore } from '../stores/auth.ts';
import { grants, readsProjectOptOut } from '../api/route-access.ts';

export { grants };

/**
 * What the signed-in caller may do, from `GET /auth/me`'s Permissions: screens offer only the controls the
 * caller may use (a viewer sees no Lock, Import or Delete).
 */
export function useCan() {
  const auth = useAuthStore();
  const held = computed(() => auth.me?.Permissions ?? []);
  return {
    /** Whether the caller holds `permission` (or one that implies it). */
    can: (permission: string) => grants(held.value, permission),
    /** Changes under /cati/ (add, edit, delete, import, Lock, assignments). */
    changeCati: computed(() => grants(held.value, 'cati_administrate')),
    /** Changes to project opt-out lists (add, import, delete). */
    changeOptOut: computed(() => grants(held.value, 'optout_administrate')),
    /** Reading project opt-out lists (every role; keys with optout_administrate). */
    readOptOut: computed(() => (auth.me ? readsProjectOptOut(auth.me) : false)),
    /** Everything else: users, keys, settings, the audit log, the company opt-out list. */
    administer: computed(() => grants(held.value, 'company_administrate')),
  };
}
