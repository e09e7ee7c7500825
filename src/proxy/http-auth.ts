import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** Name used for the agent of unauthenticated (loopback-only) HTTP sessions. */
export const ANONYMOUS_AGENT = 'anonymous';

/** The agent a request proved, set by `bearerAuth` on `res.locals.agent`. */
export interface RequestIdentity {
  agent: string;
  authenticated: boolean;
}

/** Writes a JSON-RPC error body with an HTTP status (never HTML). */
export function sendJsonRpcError(res: Response, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.status(status).json({ jsonrpc: '2.0', id: null, error: { code, message } });
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Maps `Authorization: Bearer <token>` to an agent. With no tokens configured every request is the anonymous
 * agent (the caller makes sure that only happens on loopback). A missing or unknown token gets 401 and the
 * request never reaches a downstream server.
 */
export function bearerAuth(tokens: Map<string, string>): RequestHandler {
  const entries = [...tokens.entries()];
  return function bearerAuth(req: Request, res: Response, next: NextFunction) {
    if (entries.length === 0) {
      res.locals.identity = { agent: ANONYMOUS_AGENT, authenticated: false } satisfies RequestIdentity;
      return next();
    }
    const header = req.headers.authorization ?? '';
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const agent = m?.[1] ? entries.find(([t]) => safeEqual(t, m[1]!))?.[1] : undefined;
    if (!agent) {
      return sendJsonRpcError(res, 401, -32001, m ? 'Unauthorized: unknown bearer token' : 'Unauthorized: send "Authorization: Bearer <token>" (see agents.*.token in the QuadGuard config)', {
        'WWW-Authenticate': `Bearer realm="quadguard", error="invalid_token"`,
      });
    }
    res.locals.identity = { agent, authenticated: true } satisfies RequestIdentity;
    next();
  };
}
