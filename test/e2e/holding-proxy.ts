import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A pass-through HTTP proxy on 127.0.0.1 that can hold the answers to matching requests until released. */
export interface HoldingProxy {
  url: string;
  /** Holds the answer of the next request whose path matches (its body still reaches the server at once). */
  holdNext(pattern: RegExp): { reached: Promise<string>; release(): void };
  close(): Promise<void>;
}

/** Starts a proxy in front of `target` (e.g. the test server's URL). */
export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  const upstream = new URL(target);
  let hold: { pattern: RegExp; reached: (path: string) => void; released: Promise<void> } | null = null;
  const server: Server = createServer((req, res) => {
    const current = hold && hold.pattern.test(req.url ?? '') ? hold : null;
    if (current) hold = null;
    const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      current?.reached(req.url ?? '');
      void (current?.released ?? Promise.resolve()).then(() => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    holdNext(pattern) {
      let release!: () => void;
      let reached!: (path: string) => void;
      const released = new Promise<void>((r) => (release = r));
      const reachedPromise = new Promise<string>((r) => (reached = r));
      hold = { pattern, reached, released };
      return { reached: reachedPromise, release };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
