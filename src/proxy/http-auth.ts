import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { withExpress } from './direct-route.js';
import { looksLikeJwt, type JwtIdentity, type JwtVerifier } from './http-jwt.js';

/** Name used for the agent of unauthenticated (loopback-only) HTTP sessions. */
export const ANONYMOUS_AGENT = 'anonymous';

/** The agent a request proved, set by `bearerAuth` on `res.locals.identity`. */
export interface RequestIdentity {
  agent: string;
  authenticated: boolean;
  /** The issuer of the JWT that proved it (absent for a static token). */
  issuer?: string;
}

/** Writes a JSON-RPC error body with an HTTP status (never HTML). */
export function sendJsonRpcError(res: Response, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  withExpress(res);
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.status(status).json({ jsonrpc: '2.0', id: null, error: { code, message } });
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Where `bearerAuth` takes identities from; read per request, so a reload swaps them. */
export interface BearerAuthOptions {
  /** Static bearer token → agent (`agents.*.token`). */
  tokens: () => Map<string, string>;
  /** Verifier of signed tokens (`http.jwt`), if configured. */
  jwt?: () => JwtVerifier | undefined;
  /** A refused request, with a bounded reason (`missing`, `unknown_token`, or a `JwtRefusal`). */
  onRefused?: (reason: string) => void;
  /** A request that proved itself with a JWT (the audit records identity and issuer once per token). */
  onJwt?: (identity: JwtIdentity, token: string) => void;
}

/**
 * Maps `Authorization: Bearer <token>` to an agent: a static token of `agents.*.token`, else (with `http.jwt`) a
 * JWT verified against the JWKS whose claim names a configured agent. With neither configured every request is
 * the anonymous agent (the caller makes sure that only happens on loopback). A missing or bad token gets 401 with
 * a reason that names no key, claim or agent, and the request never reaches a downstream server.
 */
export function bearerAuth(source: Map<string, string> | BearerAuthOptions): RequestHandler {
  const opts: BearerAuthOptions = source instanceof Map ? { tokens: () => source } : source;
  const refuse = (res: Response, reason: string, message: string, error = 'invalid_token') => {
    opts.onRefused?.(reason);
    sendJsonRpcError(res, 401, -32001, message, { 'WWW-Authenticate': `Bearer realm="quadguard", error="${error}"` });
  };
  return function bearerAuth(req: Request, res: Response, next: NextFunction) {
    const tokens = opts.tokens();
    const jwt = opts.jwt?.();
    if (tokens.size === 0 && !jwt) {
      res.locals.identity = { agent: ANONYMOUS_AGENT, authenticated: false } satisfies RequestIdentity;
      return next();
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    const token = m?.[1];
    if (!token) return refuse(res, 'missing', 'Unauthorized: send "Authorization: Bearer <token>" (see agents.*.token or http.jwt in the QuadGuard config)', 'invalid_request');
    let agent: string | undefined;
    for (const [t, a] of tokens) if (safeEqual(t, token)) agent = a;
    if (agent) {
      res.locals.identity = { agent, authenticated: true } satisfies RequestIdentity;
      return next();
    }
    if (!jwt || !looksLikeJwt(token)) return refuse(res, 'unknown_token', 'Unauthorized: unknown bearer token');
    jwt(token).then(
      (r) => {
        if (!r.ok) return refuse(res, r.reason, r.reason === 'expired' ? 'Unauthorized: the token has expired' : 'Unauthorized: the token was not accepted');
        opts.onJwt?.(r.identity, token);
        res.locals.identity = { agent: r.identity.agent, authenticated: true, issuer: r.identity.issuer } satisfies RequestIdentity;
        next();
      },
      () => refuse(res, 'error', 'Unauthorized: the token was not accepted'),
    );
  };
}
