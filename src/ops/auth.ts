import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { LoadedConfig } from '../config/load.js';
import type { Logger } from '../core/log.js';
import { bearerAuth } from '../proxy/http-auth.js';
import { createJwtVerifier, type JwtIdentity, type JwtVerifier } from '../proxy/http-jwt.js';
import type { GuardStore } from '../store/engine.js';
import type { ServiceMetrics } from './metrics.js';

/** Tokens whose identity the audit already recorded (one admin row per token), at most this many remembered. */
const RECORDED_TOKENS_MAX = 10_000;

/** The HTTP front end's authentication, whose tokens and JWT settings a reload replaces. */
export interface ServiceAuth {
  handler: RequestHandler;
  /** Whether anyone can be refused (static tokens or JWTs configured). */
  configured(): boolean;
  /**
   * Reads the agents' tokens and the JWT settings of a re-read config (a bad JWKS file throws here, changing
   * nothing); the returned function puts them in force.
   */
  prepare(fresh: LoadedConfig): () => void;
}

/**
 * Static agent tokens and, with `http.jwt`, signed tokens; refusals counted by reason and logged without the
 * token; the first request of each JWT writes one audit row naming the agent and the token's issuer.
 */
export function createAuth(loaded: LoadedConfig, store: GuardStore | undefined, metrics: ServiceMetrics | undefined, logger: Logger): ServiceAuth {
  const log = logger.child({ mod: 'auth' });
  // A token's agent is checked against the agents of the config the verifier was built from: a reload that removes
  // an agent refuses its signed tokens from then on.
  const verifierOf = ({ config }: LoadedConfig): JwtVerifier | undefined => (config.http.jwt ? createJwtVerifier(config.http.jwt, (name) => Object.hasOwn(config.agents, name)) : undefined);
  let tokens = loaded.tokens;
  let jwt = verifierOf(loaded);
  let jwksUrl = loaded.config.http.jwt?.jwks_url;
  const recorded = new Set<string>();
  const recordJwt = (id: JwtIdentity, token: string) => {
    const key = createHash('sha256').update(token).digest('hex').slice(0, 32);
    if (recorded.has(key)) return;
    if (recorded.size >= RECORDED_TOKENS_MAX) recorded.clear();
    recorded.add(key);
    log.info({ agent: id.agent, issuer: id.issuer }, 'agent authenticated with a signed token');
    void store?.audit
      .append({ agent: id.agent, kind: 'admin', tool: 'authenticate', decision: 'allow', rationale: `authenticated with a JWT issued by ${id.issuer}${id.id ? ` (jti ${id.id})` : ''}`, source: 'auth:jwt' })
      .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'recording a signed-token identity failed'));
  };
  return {
    handler: bearerAuth({
      tokens: () => tokens,
      jwt: () => jwt,
      onRefused: (reason) => {
        metrics?.authRefused(reason);
        if (reason === 'jwks_unavailable') log.warn({ reason, jwks: jwksUrl }, 'bearer token refused: the JWKS URL cannot be fetched (keys still cached keep verifying)');
        else log.info({ reason }, 'bearer token refused');
      },
      onJwt: recordJwt,
    }),
    configured: () => tokens.size > 0 || jwt !== undefined,
    prepare(fresh) {
      const nextJwt = verifierOf(fresh);
      return () => {
        jwt = nextJwt;
        jwksUrl = fresh.config.http.jwt?.jwks_url;
        tokens = fresh.tokens;
      };
    },
  };
}

/** Whether a request comes from this host. */
function fromLoopback(req: Request): boolean {
  const a = req.socket.remoteAddress ?? '';
  return a === '::1' || a.startsWith('127.') || a.startsWith('::ffff:127.');
}

/**
 * Who may read /healthz, /readyz and /metrics: a client on this host without a token; others with an agent's
 * token (or anyone with `http.ops_access: any`).
 */
export function opsAccess(access: 'loopback' | 'any', auth: RequestHandler): RequestHandler {
  return function opsAccess(req: Request, res: Response, next: NextFunction) {
    if (access === 'any' || fromLoopback(req)) return next();
    return auth(req, res, next);
  };
}

/** The store-backed gauges: holds waiting, quarantined agents, and whether the store answers. */
export function storeGauges(store: GuardStore) {
  return {
    holdsWaiting: async () => (await store.approvals.list({ status: 'pending', limit: 10_000 })).length,
    quarantined: async () => (await store.state.listAgents()).filter((a) => a.quarantined).length,
    storeUp: async () => {
      try {
        await store.audit.tail(1);
        return true;
      } catch {
        return false;
      }
    },
  };
}
