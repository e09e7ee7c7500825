import { qualifiedTool } from '../../core/fields.js';
import { isResultKind } from '../../core/kinds.js';
import { makeDecision, type Decision, type Interaction } from '../../core/types.js';
import { rateCounts } from '../../detectors/rate.js';
import { need, pipelineDetail, type GuardContext, type GuardEnv, type RateWindow, type Stage } from './context.js';

/**
 * Rate is not threat: a request above the burst threshold (`guard.watcher.burst_threshold` requests of the agent in
 * `burst_window_ms`) is refused for now with a retry-after, and nothing else follows from it: τ is not raised and
 * the agent is never quarantined for its rate (quarantine needs threat evidence: violations and injections). A
 * result is the answer to a request already let through and is never refused for rate. Runs after the quarantine
 * stage: an agent at level 4 is quarantined, whatever its rate. The book's own rate rules (`rate` detectors) are
 * refused here the same way.
 */
export const rateLimit: Stage = {
  name: 'rateLimit',
  run(ctx, env) {
    const threat = need(ctx.threat, 'the threat update');
    const i = ctx.interaction;
    const byRule = rateRuleDecision(ctx, env);
    if (byRule) {
      ctx.decision = byRule;
      ctx.final = true;
      return;
    }
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

/** The store key of an identity's count in a rate window (beside the burst window's per-agent keys). */
const rateStoreKey = (agent: string, w: RateWindow) => `rate\u0000${agent}\u0000${w.key}`;

/** The book's rate windows a tool call falls in. */
function windowsOf(i: Interaction, env: GuardEnv): RateWindow[] {
  if (i.kind !== 'tool_call' || env.rateWindows.length === 0) return [];
  const name = qualifiedTool(i);
  return name === undefined ? [] : env.rateWindows.filter((w) => w.matches(name));
}

/**
 * Before the predicates: how many calls of each rate window this one would make (the identity's allowed calls in the
 * window, plus this one), for the `rate` detector.
 */
export const rateCount: Stage = {
  name: 'rateCount',
  run(ctx, env) {
    const windows = windowsOf(ctx.interaction, env);
    if (windows.length === 0) return;
    return countWindows(ctx, env, windows);
  },
};

async function countWindows(ctx: GuardContext, env: GuardEnv, windows: ReturnType<typeof windowsOf>): Promise<void> {
  const i = ctx.interaction;
  const now = env.now();
  const counts = new Map<string, number>();
  for (const w of windows) counts.set(w.key, (await env.store.state.countRequest(rateStoreKey(i.agent, w), now, w.windowMs, false)) + 1);
  rateCounts.set(i, counts);
}

/** After the audit row: an allowed call counts in its rate windows (a refused one does not). */
export const rateRecord: Stage = {
  name: 'rateRecord',
  always: true,
  tolerant: true,
  run(ctx, env) {
    if (ctx.decision?.decision !== 'allow') return;
    const windows = windowsOf(ctx.interaction, env);
    if (windows.length === 0) return;
    return recordWindows(ctx, env, windows);
  },
};

async function recordWindows(ctx: GuardContext, env: GuardEnv, windows: ReturnType<typeof windowsOf>): Promise<void> {
  const i = ctx.interaction;
  const now = env.now();
  for (const w of windows) await env.store.state.countRequest(rateStoreKey(i.agent, w), now, w.windowMs, true);
}

/**
 * A call over a rate rule of the book (and over nothing else) is refused with a retry-after, source `rate`: the
 * rule is named, τ was not moved (the watcher leaves rate rules out) and nothing else follows.
 */
function rateRuleDecision(ctx: GuardContext, env: GuardEnv): Decision | undefined {
  const violated = (ctx.outcomes ?? []).filter((o) => o.status === 'violated');
  if (violated.length === 0 || !violated.every((o) => env.rateRules.has(o.id))) return undefined;
  const counts = rateCounts.get(ctx.interaction);
  const over = violated.flatMap((o) => env.rateRules.get(o.id)!.map((w) => ({ rule: o, w, n: counts?.get(w.key) ?? w.max + 1 }))).filter((x) => x.n > x.w.max);
  if (over.length === 0) return undefined;
  const worst = over.reduce((a, b) => (retryAfter(b.n, b.w.max, b.w.windowMs) > retryAfter(a.n, a.w.max, a.w.windowMs) ? b : a));
  const retryAfterMs = retryAfter(worst.n, worst.w.max, worst.w.windowMs);
  const seconds = Math.ceil(retryAfterMs / 1000);
  const tool = qualifiedTool(ctx.interaction) ?? 'this tool';
  return makeDecision({
    decision: 'deny',
    rationale: `Rate limit (rule ${worst.rule.id}: "${worst.rule.def.text}"): this would be call ${worst.n} of ${tool} by agent "${ctx.interaction.agent}" in the last ${worst.w.per}, above the limit of ${worst.w.max}; it was not sent and may be retried in ${seconds} s.`,
    remediation: `wait ${seconds} s (retryAfterMs ${retryAfterMs}) and send the call again; stay under ${worst.w.max} per ${worst.w.per}.`,
    rules: over.map((x) => x.rule.id).filter((id, k, all) => all.indexOf(id) === k),
    source: 'rate',
    threatLevel: need(ctx.threat, 'the threat update').level,
    detail: { ...pipelineDetail(ctx), retryAfterMs },
  });
}
