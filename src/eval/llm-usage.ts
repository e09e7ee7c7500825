import { z } from 'zod';
import type { Decision } from '../core/types.js';

/**
 * Model usage a guard reports for ONE `check` call, under `decision.detail.llm`:
 *
 *     detail.llm = { calls: number, promptTokens: number, completionTokens: number }
 *
 * `calls` counts every request sent to a model endpoint while deciding this interaction (light and strong tiers,
 * retries included); the token counts are the sums of the endpoint's `usage` fields over those calls. A guard
 * that consulted no model may omit `detail.llm` or report zeros; the harness treats an absent or malformed value
 * as "not measured" (it never guesses), which the metrics report as `null` when no step carried it at all.
 */
export const LlmUsageSchema = z.object({
  calls: z.number().int().nonnegative(),
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
});
export type LlmUsage = z.infer<typeof LlmUsageSchema>;

/** The decision's `detail.llm` when it follows the contract above, else `undefined`. */
export function llmUsageOf(decision: Decision): LlmUsage | undefined {
  const r = LlmUsageSchema.safeParse(decision.detail?.llm);
  return r.success ? r.data : undefined;
}
