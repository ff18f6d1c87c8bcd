// Plain-JS entry of worker threads whose code is TypeScript (dev, test, `npm run serve`): Node 20 does not
// carry the parent's `--import tsx` loader into worker threads, so this registers tsx in the worker itself
// and then imports the real entry, whose URL is the worker's first argument (process.argv[2]).
import { register } from 'tsx/esm/api';

register();
await import(process.argv[2]);
