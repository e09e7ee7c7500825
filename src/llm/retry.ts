import OpenAI from 'openai';
import { LlmError } from '../core/errors.js';

/**
 * Error classification and back-off for model requests. Retried: 429, 408, 409, 5xx, connection errors and
 * per-attempt timeouts. Never retried: 400/422 (`llm_refused`: the request itself was rejected), 401/403/404
 * (`llm_unavailable`: fix the key or the model name), and an abort by the caller (`llm_aborted`).
 */
export interface Classified {
  error: LlmError;
  retryable: boolean;
  /** Server-requested wait (`retry-after-ms` / `retry-after`), in ms. */
  retryAfterMs?: number;
}

/** Maps whatever an attempt threw to an `LlmError` and whether another attempt may help. */
export function classifyError(err: unknown, ctx: { timedOut: boolean; callerAborted: boolean; timeoutMs: number; what: string }): Classified {
  if (err instanceof LlmError) return { error: err, retryable: false };
  if (ctx.callerAborted) {
    return { error: new LlmError('llm_aborted', `${ctx.what}: aborted by the caller`, { cause: err }), retryable: false };
  }
  if (ctx.timedOut || err instanceof OpenAI.APIConnectionTimeoutError) {
    return { error: new LlmError('llm_timeout', `${ctx.what}: no answer within ${ctx.timeoutMs} ms`, { cause: err }), retryable: true };
  }
  if (err instanceof OpenAI.APIConnectionError) {
    return { error: new LlmError('llm_unavailable', `${ctx.what}: cannot reach the model endpoint (${err.message})`, { cause: err }), retryable: true };
  }
  if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
    const s = err.status;
    const msg = `${ctx.what}: HTTP ${s}: ${err.message}`;
    if (s === 429 || s === 408 || s === 409 || s >= 500) {
      const retryAfterMs = retryAfter(err.headers);
      return { error: new LlmError('llm_unavailable', msg, { cause: err }), retryable: true, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
    }
    if (s === 400 || s === 422) return { error: new LlmError('llm_refused', msg, { cause: err }), retryable: false };
    return { error: new LlmError('llm_unavailable', msg, { cause: err }), retryable: false };
  }
  // A body that is not JSON, or anything the SDK could not make sense of.
  const m = err instanceof Error ? err.message : String(err);
  return { error: new LlmError('llm_malformed_output', `${ctx.what}: unreadable response (${m})`, { cause: err }), retryable: false };
}

/** Reads `retry-after-ms` or `retry-after` (seconds or an HTTP date). */
export function retryAfter(headers: Headers | undefined): number | undefined {
  if (!headers) return undefined;
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.get('retry-after-ms') !== null && Number.isFinite(ms) && ms >= 0) return ms;
  const ra = headers.get('retry-after');
  if (ra === null) return undefined;
  const secs = Number(ra);
  if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
  const at = Date.parse(ra);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/**
 * Delay before retry number `attempt` (0-based): exponential, capped, with "equal jitter" (half fixed, half
 * random) so that concurrent guards do not retry in lock-step. A server's retry-after wins when longer, but is
 * capped too, so a hostile or confused endpoint cannot park the guard.
 */
export function backoffDelay(attempt: number, o: { baseMs: number; maxMs: number; random: () => number; retryAfterMs?: number }): number {
  const exp = Math.min(o.maxMs, o.baseMs * 2 ** attempt);
  const jittered = exp / 2 + (o.random() * exp) / 2;
  const wanted = o.retryAfterMs !== undefined ? Math.max(jittered, o.retryAfterMs) : jittered;
  return Math.min(o.maxMs, Math.round(wanted));
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
