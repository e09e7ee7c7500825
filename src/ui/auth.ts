import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Access control of the live view: a bearer token and a Host check.
 *
 * - The token is random per start (or given with `--token` / `QUADGUARD_UI_TOKEN`). Every API request carries it
 *   as `Authorization: Bearer <token>`; GET requests may carry it as `?token=` instead, because a browser's
 *   EventSource cannot set headers and the first page load comes from a pasted link. State-changing requests
 *   (POST) accept only the header, so a cross-site form or image cannot act even if it guessed a URL.
 * - The Host check refuses any Host header that is not a loopback name or one the operator allowed, which defeats
 *   DNS rebinding (a hostile page whose domain now resolves to 127.0.0.1 still sends its own Host).
 */

/** A fresh random token: 32 hex digits. */
export function newToken(): string {
  return randomBytes(16).toString('hex');
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The token a request presents (header first, then `?token=` on GET/HEAD), or undefined. */
export function presentedToken(req: Request): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (m) return m[1];
  if (req.method === 'GET' || req.method === 'HEAD') {
    const q = req.query.token;
    if (typeof q === 'string' && q.length > 0) return q;
  }
  return undefined;
}

/** Requires the live view's token; 401 with a JSON body otherwise. */
export function requireToken(token: string): RequestHandler {
  if (token.length < 16) throw new Error('live view token must be at least 16 characters');
  return function requireToken(req: Request, res: Response, next: NextFunction) {
    const given = presentedToken(req);
    if (given !== undefined && safeEqual(given, token)) return next();
    res.setHeader('WWW-Authenticate', 'Bearer realm="quadguard-ui"');
    res.status(401).json({
      error: given === undefined
        ? 'unauthorized: send "Authorization: Bearer <token>" (or ?token= on GET); the token is printed when the live view starts'
        : 'unauthorized: wrong token',
    });
  };
}

/** The host name of a Host header value (`[::1]:8080` → `[::1]`, `Example.com:80` → `example.com`). */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.indexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

/**
 * Refuses requests whose Host is not loopback or in `extra` (403), and POSTs whose Origin names another host.
 */
export function hostCheck(extra: readonly string[] = []): RequestHandler {
  const allowed = new Set(['localhost', '127.0.0.1', '[::1]', ...extra.map((h) => hostName(h))]);
  return function hostCheck(req: Request, res: Response, next: NextFunction) {
    const host = req.headers.host;
    if (!host || !allowed.has(hostName(host))) {
      res.status(403).json({ error: `forbidden: Host ${host ?? '(none)'} is not allowed (DNS-rebinding protection); allow it with --allowed-host` });
      return;
    }
    const origin = req.headers.origin;
    if (req.method !== 'GET' && req.method !== 'HEAD' && origin !== undefined && origin !== 'null') {
      let originHost: string;
      try {
        originHost = new URL(origin).host.toLowerCase();
      } catch {
        originHost = '';
      }
      if (originHost !== host.toLowerCase()) {
        res.status(403).json({ error: `forbidden: cross-origin request from ${origin}` });
        return;
      }
    }
    next();
  };
}
