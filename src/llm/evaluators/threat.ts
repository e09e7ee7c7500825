import type { Interaction } from '../../core/types.js';
import type { Severity } from '../../policy/schema.js';
import type { CallOptions, LlmClient } from '../client.js';
import type { LlmTier } from '../config.js';
import { dataMessage } from '../neutralize.js';
import { THREAT_WATCHER_SYSTEM, THREAT_WATCHER_TAG, ThreatWatcherAnswerSchema } from '../prompts/threat-watcher.js';
import { interactionView } from '../prompts/view.js';
import type { LlmUsage } from '../usage.js';

/** A violated rule as the threat watcher sees it. */
export interface ViolationSummary {
  id: string;
  text: string;
  severity: Severity;
}

export interface ThreatUpdateInput {
  agent: string;
  /** Discrete threat level 0–4 (the watcher maps τ ∈ [0, 1] to it). */
  currentLevel: number;
  interaction: Interaction;
  violations: ViolationSummary[];
  /** Short summaries of earlier interactions of the agent, oldest first (untrusted; the last 10 are sent). */
  observations?: string[];
}

export interface ThreatUpdateResult {
  /** Step to apply: never more than one level per interaction, never below 0 or above 4. */
  delta: -1 | 0 | 1;
  reason: string;
  usage: LlmUsage;
}

/**
 * The paper's threat-level update (appendix A.2 "THREAT WATCHER"): the model proposes the new level; the step is
 * clamped to ±1 and to [0, 4] whatever it answers, so a manipulated model can move an agent at most one level
 * per interaction. Light tier unless `tier` says otherwise. Rejects with `LlmError` on failure.
 */
export async function threatLevelUpdate(
  client: LlmClient,
  input: ThreatUpdateInput,
  opts: CallOptions & { tier?: LlmTier } = {},
): Promise<ThreatUpdateResult> {
  const current = Math.min(4, Math.max(0, Math.round(input.currentLevel)));
  const user = dataMessage(
    {
      agent: input.agent,
      current_level: current,
      violations: input.violations.map((v) => ({ id: v.id, text: v.text, severity: v.severity })),
    },
    { observations: (input.observations ?? []).slice(-10), interaction: interactionView(input.interaction) },
  );
  const { value, usage } = await client.chatJson(
    { tier: opts.tier ?? 'light', system: THREAT_WATCHER_SYSTEM, user, maxTokens: 120, schemaTag: THREAT_WATCHER_TAG },
    ThreatWatcherAnswerSchema,
    opts,
  );
  const raw = Math.sign(value.threat_level - current) as -1 | 0 | 1;
  const delta = (current + raw < 0 || current + raw > 4 ? 0 : raw) as -1 | 0 | 1;
  return { delta, reason: value.reason, usage };
}
