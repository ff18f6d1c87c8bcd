/** The app's one router, for modules outside components (stores keep their filters in its query). */
import type { Router } from 'vue-router';

let current: Router | null = null;

/** Records the router made at start (routes.ts). */
export function setAppRouter(router: Router): void {
  current = router;
}

/** The app's router; throws before it was made (a store created before the app mounted). */
export function appRouter(): Router {
  if (!current) throw new Error('The router is not made yet.');
  return current;
}
