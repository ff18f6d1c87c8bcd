/**
 * What the scrub routes use of the job engine, in one module so the routes can load it with the first
 * scrub request instead of at start (cold start: the engine is a dozen modules no other route needs).
 */
export { flagField, formField, scrubFormat, sendResult, uploadedFile } from './scrub-http.ts';
export { jobAnswer } from './scrub-job.ts';
export { scrubService } from './scrub-service.ts';
