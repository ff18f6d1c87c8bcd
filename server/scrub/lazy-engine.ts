/**
 * The scrub routes' way to the job engine: loaded with the first scrub request, not at start (cold start,
 * Node keeps the loaded module), with the server's one scrub service.
 */
import type { AppContext } from '../context.ts';

export async function scrubEngine(ctx: AppContext) {
  const e = await import('./engine.ts');
  return { e, service: e.scrubService(ctx) };
}
