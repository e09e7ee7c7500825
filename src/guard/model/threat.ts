import { errorMessage } from '../../core/errors.js';
import type { Logger } from '../../core/log.js';
import type { Interaction } from '../../core/types.js';
import type { LlmClient } from '../../llm/client.js';
import { threatLevelUpdate } from '../../llm/evaluators/threat.js';
import { UsageMeter } from '../../llm/usage.js';
import type { RuleOutcome } from '../referee.js';
import { callOpts, shortUsage, type ModelUsage } from './usage.js';

/** Proposes a ±1 step of the agent's threat level from one interaction. */
export type ThreatAdvisor = (input: {
  interaction: Interaction;
  /** Level after the numeric update of this interaction. */
  level: number;
  violations: RuleOutcome[];
  signal?: AbortSignal;
}) => Promise<{ delta: -1 | 0 | 1; reason: string; usage: ModelUsage }>;

/**
 * The threat watcher's complement (`guard.model.watcher: complement`): a ±1 level step proposed by the light
 * model. A failure proposes no step (the numeric level stands).
 */
export function modelThreatAdvisor(client: LlmClient, observations: (session: string) => string[], log: Logger): ThreatAdvisor {
  return async ({ interaction, level, violations, signal }) => {
    const meter = new UsageMeter();
    try {
      const r = await threatLevelUpdate(
        client,
        {
          agent: interaction.agent,
          currentLevel: level,
          interaction,
          violations: violations.map((v) => ({ id: v.id, text: v.def.text, severity: v.def.severity })),
          observations: observations(interaction.session),
        },
        callOpts(meter, signal),
      );
      return { delta: r.delta, reason: r.reason, usage: shortUsage(meter.total) };
    } catch (err) {
      log.warn({ err: errorMessage(err) }, 'model threat update failed; the numeric level stands');
      return { delta: 0, reason: 'model failed', usage: shortUsage(meter.total) };
    }
  };
}

/** τ at the lower bound of `level`'s band, so that τ and the level a model step set stay consistent. */
export function tauForLevel(level: number, bounds: readonly number[]): number {
  return level <= 0 ? 0 : (bounds[Math.min(level, bounds.length) - 1] ?? 1);
}
