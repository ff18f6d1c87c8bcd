import { computed } from 'vue';
import { useAuthStore } from '../stores/auth.ts';

/** Whether `held` grants `permission`: itself, or one that implies it (company_administrate implies all). */
export function grants(held: readonly string[], permission: string): boolean {
  if (held.includes('company_administrate') || held.includes(permission)) return true;
  return permission === 'cati_read' && held.includes('cati_administrate');
}

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
    /** Everything else: users, keys, settings, the audit log, the company opt-out list. */
    administer: computed(() => grants(held.value, 'company_administrate')),
  };
}
