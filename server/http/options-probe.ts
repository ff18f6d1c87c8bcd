/**
 * `OPTIONS *` and `OPTIONS /`: what the server as a whole allows (RFC 9110 §9.3.7). Load balancers probe with
 * them — HAProxy's default `option httpchk` sends `OPTIONS / HTTP/1.0` without Host and counts any 2xx/3xx
 * as up — so they answer 200 with `Allow`, no key and no body, like `GET /healthz`.
 */
import type { NextFunction, Request, Response } from 'express';

/** Express middleware answering the server-wide OPTIONS probes; every other request goes on. */
export function optionsProbe(req: Request, res: Response, next: NextFunction): void {
  if (req.method !== 'OPTIONS' || (req.url !== '*' && req.url !== '/')) return next();
  res.status(200).set({ Allow: 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS', 'Content-Length': '0' }).end();
}
