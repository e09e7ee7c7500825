import type { LlmUsage, UsageMeter } from '../../llm/usage.js';

/** Model accounting of one hook call, as it appears in `Decision.detail.llm` (the pipeline always measures ms). */
export type ModelUsage = {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  ms: number;
};

/** Any usage record a hook or a guard reports (fields may be missing). */
export type UsagePart = { [K in keyof ModelUsage]?: number | undefined };

/** Sums hook usages (absent ones skipped); `undefined` when none was given. */
export function addUsage(...items: Array<UsagePart | undefined>): ModelUsage | undefined {
  const present = items.filter((u) => u !== undefined);
  if (present.length === 0) return undefined;
  const out: ModelUsage = { calls: 0, promptTokens: 0, completionTokens: 0, ms: 0 };
  for (const u of present) for (const k of ['calls', 'promptTokens', 'completionTokens', 'ms'] as const) out[k] += u[k] ?? 0;
  return out;
}

/** A signal that aborts when `signal` does or after `ms` (the per-interaction model budget). */
export function budgetSignal(signal: AbortSignal | undefined, ms: number): AbortSignal {
  const deadline = AbortSignal.timeout(ms);
  return signal ? AbortSignal.any([signal, deadline]) : deadline;
}

/** The options of one model call: its meter and, when there is one, the interaction's signal. */
export function callOpts(meter: UsageMeter, signal: AbortSignal | undefined): { meter: UsageMeter; signal?: AbortSignal } {
  return signal ? { meter, signal } : { meter };
}

/** The part of the model layer's usage record that decisions carry. */
export function shortUsage(u: LlmUsage): ModelUsage {
  return { calls: u.calls, promptTokens: u.promptTokens, completionTokens: u.completionTokens, ms: u.ms };
}
