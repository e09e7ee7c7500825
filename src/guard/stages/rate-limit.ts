import { isResultKind } from '../../core/kinds.js';
import { makeDecision } from '../../core/types.js';
import { need, pipelineDetail, type Stage } from './context.js';

/**
 * Rate is not threat: a request above the burst threshold (`guard.watcher.burst_threshold` requests of the agent in
 * `burst_window_ms`) is refused for now with a retry-after, and nothing else follows from it: τ is not raised and
 * the agent is never quarantined for its rate (quarantine needs threat evidence: violations and injections). A
 * result is the answer to a request already let through and is never refused for rate. Runs after the quarantine
 * stage: an agent at level 4 is quarantined, whatever its rate.
 */
export const rateLimit: Stage = {
  name: 'rateLimit',
  run(ctx, env) {
    const threat = need(ctx.threat, 'the threat update');
    const i = ctx.interaction;
    if (!threat.burst || isResultKind(i.kind)) return;
    const { burst_threshold: limit, burst_window_ms: windowMs } = env.watcher.options;
    const retryAfterMs = retryAfter(threat.rate, limit, windowMs);
    const seconds = Math.ceil(retryAfterMs / 100) / 10;
    ctx.decision = makeDecision({
      decision: 'deny',
      rationale: `Rate limit: agent "${i.agent}" made ${threat.rate} requests in the last ${windowMs / 1000} s, above the limit of ${limit}; this request was not judged and may be retried in ${seconds} s.`,
      remediation: `wait ${seconds} s (retryAfterMs ${retryAfterMs}) and send the request again; spread requests out to stay under ${limit} in ${windowMs / 1000} s.`,
      source: 'rate',
      threatLevel: threat.level,
      detail: { ...pipelineDetail(ctx), retryAfterMs },
    });
    ctx.final = true;
  },
};

/**
 * How long until the window holds no more than `limit` requests if the agent stops now, at the rate it had: the
 * oldest `rate − limit` requests leave it in about `windowMs · (rate − limit) / rate`. At least one bucket of the
 * window (a tenth: it slides by buckets), at most the window.
 */
export function retryAfter(rate: number, limit: number, windowMs: number): number {
  const excess = Math.max(1, rate - limit);
  const estimate = Math.ceil((windowMs * excess) / Math.max(rate, 1));
  return Math.min(windowMs, Math.max(Math.ceil(windowMs / 10), estimate));
}
