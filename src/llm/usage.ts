/**
 * Accounting of model use. Every call (successful, failed or served from the cache) is counted, so the audit row
 * of an interaction and the eval report can say what the guard cost.
 */
export interface LlmUsage {
  /** HTTP requests sent, retries included. */
  calls: number;
  /** Evaluations answered from the LRU cache (no request sent). */
  cacheHits: number;
  /** Requests that were retried after a 429, 5xx, connection error or timeout. */
  retries: number;
  /** Evaluations that ended in an `LlmError`. */
  failures: number;
  promptTokens: number;
  completionTokens: number;
  /** Wall-clock milliseconds spent in the model layer (queueing, requests and back-off). */
  ms: number;
}

/** A zeroed usage record. */
export function emptyUsage(): LlmUsage {
  return { calls: 0, cacheHits: 0, retries: 0, failures: 0, promptTokens: 0, completionTokens: 0, ms: 0 };
}

/** Field-wise sum of usage records (e.g. all model calls of one interaction). */
export function sumUsage(...items: LlmUsage[]): LlmUsage {
  const out = emptyUsage();
  for (const u of items) {
    out.calls += u.calls;
    out.cacheHits += u.cacheHits;
    out.retries += u.retries;
    out.failures += u.failures;
    out.promptTokens += u.promptTokens;
    out.completionTokens += u.completionTokens;
    out.ms += u.ms;
  }
  return out;
}

/**
 * Aggregates usage per interaction, failed calls included: pass one meter in the options of every model call made
 * for an interaction, then read `total` for the audit row.
 *
 * @example
 * const meter = new UsageMeter();
 * await evaluateSemanticPredicates(client, input, { meter, signal });
 * audit.llm = meter.total;
 */
export class UsageMeter {
  #total = emptyUsage();

  /** Adds one call's usage. */
  add(u: LlmUsage): void {
    this.#total = sumUsage(this.#total, u);
  }

  /** A copy of the running total. */
  get total(): LlmUsage {
    return { ...this.#total };
  }
}
