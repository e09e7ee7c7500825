import { readFileSync } from 'node:fs';
import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { JwtAuthConfig } from '../config/schema.js';
import { ConfigError } from '../core/errors.js';

/** A verified token: the agent it names and who issued it. */
export interface JwtIdentity {
  agent: string;
  issuer: string;
  /** The token's `jti`, when it has one (the audit records each token once). */
  id?: string;
}

/**
 * Why a token was refused: a bounded reason for logs and metrics. The client only hears `expired` or `invalid`
 * (RFC 6750 `invalid_token`), never which claim or key did not match.
 */
export type JwtRefusal = 'expired' | 'audience' | 'issuer' | 'signature' | 'no_key' | 'algorithm' | 'malformed' | 'claims' | 'unknown_agent' | 'jwks_unavailable';

export type JwtResult = { ok: true; identity: JwtIdentity } | { ok: false; reason: JwtRefusal };

/** Verifies bearer JWTs against one JWKS; see `JwtAuthSchema`. */
export type JwtVerifier = (token: string) => Promise<JwtResult>;

/** Whether a bearer token has the shape of a compact JWS (three base64url parts). */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}

/**
 * The JWT verifier of `http.jwt`: signature against the JWKS (a file read now, or a URL fetched on first use and
 * cached `cache_ms`), issuer, audience, expiry and not-before within `clock_skew_s`, only the listed algorithms
 * (`alg: none` never), and the agent claim naming one of `agents` (`isAgent`). A bad JWKS file stops start-up.
 *
 * A token that verified is taken again without its signature check (`VerifiedTokens`) until it expires, for at most
 * `VERIFIED_TTL_MS`, and only while the key set it was verified against is the one in use: a fetched JWKS that is
 * stale or was fetched again (a rotation: a withdrawn key) sends every token through the full check, so a key stops
 * verifying exactly when it would without the cache. Its agent is checked on every use. A client sends the same
 * token with every request of a session, and a signature check costs about as much CPU as the guard's whole check
 * of a call.
 */
export function createJwtVerifier(cfg: JwtAuthConfig, isAgent: (name: string) => boolean): JwtVerifier {
  const { keys, version }: KeySource = cfg.jwks_file !== undefined ? { keys: createLocalJWKSet(readJwksFile(cfg.jwks_file)), version: () => 0 } : remoteKeys(cfg);
  const options = { issuer: cfg.issuer, audience: cfg.audience, clockTolerance: cfg.clock_skew_s, algorithms: cfg.algorithms };
  const verified = new VerifiedTokens(VERIFIED_TTL_MS);
  return async function verifyJwt(token) {
    const keySet = version();
    const known = keySet === undefined ? undefined : verified.get(token, keySet);
    if (known !== undefined) return isAgent(known.agent) ? { ok: true, identity: known } : { ok: false, reason: 'unknown_agent' };
    let payload: Record<string, unknown>;
    try {
      payload = (await jwtVerify(token, keys, options)).payload;
    } catch (err) {
      return { ok: false, reason: refusalOf(err) };
    }
    const agent = payload[cfg.claim];
    if (typeof agent !== 'string' || !isAgent(agent)) return { ok: false, reason: 'unknown_agent' };
    const identity: JwtIdentity = Object.freeze({ agent, issuer: String(payload.iss), ...(typeof payload.jti === 'string' ? { id: payload.jti.slice(0, 200) } : {}) });
    // jose accepts a token while now < exp + tolerance (seconds); the cache keeps it no longer.
    const after = version();
    if (after !== undefined && after === keySet) verified.set(token, identity, typeof payload.exp === 'number' ? (payload.exp + cfg.clock_skew_s) * 1000 : Number.POSITIVE_INFINITY, after);
    return { ok: true, identity };
  };
}

/** How long a verified token is taken again without checking its signature, at most (ms). */
export const VERIFIED_TTL_MS = 60_000;
/** Verified tokens kept per verifier; the oldest goes first. */
export const VERIFIED_MAX = 1024;

/**
 * Tokens that verified, each until the earlier of its expiry (`expiresAt`, ms) and `ttlMs` after it verified, and
 * only for the key set (`keySet`, a version number) it was verified against. Bounded (`VERIFIED_MAX`, oldest dropped
 * first); a reload builds a new verifier, so it starts empty.
 */
export class VerifiedTokens {
  private readonly tokens = new Map<string, { identity: JwtIdentity; until: number; keySet: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = () => Date.now(),
    private readonly max = VERIFIED_MAX,
  ) {}

  /** The identity a token proved against `keySet`, while it is still good; undefined otherwise (then verify it again). */
  get(token: string, keySet: number): JwtIdentity | undefined {
    const hit = this.tokens.get(token);
    if (hit === undefined) return undefined;
    if (this.now() < hit.until && hit.keySet === keySet) return hit.identity;
    this.tokens.delete(token);
    return undefined;
  }

  set(token: string, identity: JwtIdentity, expiresAt: number, keySet: number): void {
    const until = Math.min(this.now() + this.ttlMs, expiresAt);
    if (!(this.now() < until)) return;
    if (this.tokens.size >= this.max && !this.tokens.has(token)) this.tokens.delete(this.tokens.keys().next().value!);
    this.tokens.set(token, { identity, until, keySet });
  }

  get size(): number {
    return this.tokens.size;
  }
}

/** A JWKS fetch that failed below jose (connection refused, DNS, TLS): jose passes such errors on as they are. */
class JwksFetchFailed extends Error {}

/**
 * Where the keys come from, and which key set is in use now: a number that changes whenever it may have (undefined
 * while none is fresh: then nothing verified earlier is taken again).
 */
interface KeySource {
  keys: JWTVerifyGetKey;
  version: () => number | undefined;
}

/**
 * The JWKS of a URL: fetched on first use (concurrent first requests share one fetch), used `cache_ms`, fetched
 * again at most every `refetch_ms` for a key id it lacks (a rotation); while the URL cannot be fetched, keys still
 * cached keep verifying and the others are refused (`jwks_unavailable`). A fetch restarts jose's freshness and
 * cool-down clocks, so a call after which either restarted may have fetched a new key set: its version moves on.
 */
function remoteKeys(cfg: JwtAuthConfig): KeySource {
  const remote = createRemoteJWKSet(new URL(cfg.jwks_url!), { cacheMaxAge: cfg.cache_ms, cooldownDuration: cfg.refetch_ms, timeoutDuration: 5000 });
  let version = 0;
  return {
    version: () => (remote.fresh ? version : undefined),
    keys: async (header, token) => {
      const fresh = remote.fresh;
      const coolingDown = remote.coolingDown;
      try {
        return await remote(header, token);
      } catch (err) {
        if (err instanceof errors.JOSEError) throw err;
        throw new JwksFetchFailed('the JWKS could not be fetched', { cause: err });
      } finally {
        if ((!fresh && remote.fresh) || (!coolingDown && remote.coolingDown)) version++;
      }
    },
  };
}

function refusalOf(err: unknown): JwtRefusal {
  if (err instanceof JwksFetchFailed) return 'jwks_unavailable';
  if (err instanceof errors.JWTExpired) return 'expired';
  if (err instanceof errors.JWTClaimValidationFailed) return err.claim === 'aud' ? 'audience' : err.claim === 'iss' ? 'issuer' : 'claims';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'signature';
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) return 'no_key';
  if (err instanceof errors.JOSEAlgNotAllowed || err instanceof errors.JOSENotSupported) return 'algorithm';
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid || (err as { code?: string }).code === 'ERR_JOSE_GENERIC') return 'jwks_unavailable';
  return 'malformed';
}

function readJwksFile(file: string): { keys: Array<Record<string, unknown>> } {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError('config_invalid', `http.jwt.jwks_file ${file}: cannot read it as JSON (${(err as Error).message}); it must hold a JWKS, { "keys": [ … ] }`, { cause: err });
  }
  const keys = (raw as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0) throw new ConfigError('config_invalid', `http.jwt.jwks_file ${file}: not a JWKS (expected { "keys": [ … ] } with at least one public key)`);
  if (keys.some((k) => typeof k === 'object' && k !== null && 'd' in k)) throw new ConfigError('config_insecure', `http.jwt.jwks_file ${file} holds a private key ("d"): publish only the public keys`);
  return { keys: keys as Array<Record<string, unknown>> };
}
