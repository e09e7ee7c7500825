import type { Severity } from '../policy/schema.js';
import { WatcherOptionsSchema, type OptionsInput, type WatcherOptions } from './options.js';

/**
 * The threat watcher (QuadSentinel §4.2): a score τ(agent) ∈ [0, 1] updated after every interaction by
 * τ ← α·τ + (1−α)·risk, where risk comes from the violations' severity and injection evidence. τ maps to a level
 * 0–4; a higher level widens the tracker's k and lowers the referee's denial threshold; level 4 quarantines. The
 * agent's request rate over a sliding window (10 s by default) is measured here too, but it is not threat: a burst
 * is slowed (stages/rate-limit.ts), never scored.
 */

/** What the watcher sees of one interaction. */
export interface ThreatEvidence {
  /** Severities of the rules this interaction violated (or attempted to). */
  violations: Severity[];
  /** Strongest injection score seen in this interaction, 0 when none. */
  injectionScore: number;
  /** Time of the interaction (ms since epoch), for the burst window. */
  now: number;
  /**
   * Whether this interaction is a request of the agent (a call, a message, a read request). The answer to a
   * request (a tool result, a read's contents) is the same interaction seen again: it is scored, not counted.
   * Default true.
   */
  counts?: boolean;
}

export interface ThreatUpdate {
  tau: number;
  level: number;
  risk: number;
  /** Requests of this agent inside the window, this one included. */
  rate: number;
  burst: boolean;
}

/** Level 0–4 for a score. */
export function levelFor(tau: number, bounds: WatcherOptions['level_bounds']): number {
  let level = 0;
  for (const b of bounds) if (tau >= b) level++;
  return level;
}

/**
 * Computes score updates (`score`, pure). The request rate comes from the store's burst window
 * (`StateApi.countRequest`), so every replica and process on one store shares one window and a restart does not
 * forget the rate.
 */
export class ThreatWatcher {
  readonly options: WatcherOptions;

  constructor(options: OptionsInput<WatcherOptions> = {}) {
    this.options = WatcherOptionsSchema.parse(options);
  }

  /**
   * Risk of one interaction in [0, 1]: the strongest of severity and injection evidence. The rate is not risk: a
   * burst (`burst`) is slowed by the rate-limit stage (a refusal with a retry-after), never scored.
   */
  riskOf(evidence: ThreatEvidence, rate: number): { risk: number; burst: boolean } {
    const o = this.options;
    let risk = 0;
    for (const s of evidence.violations) risk = Math.max(risk, o.severity_risk[s]);
    risk = Math.max(risk, Math.min(1, Math.max(0, evidence.injectionScore)));
    return { risk, burst: rate > o.burst_threshold };
  }

  /** τ ← α·τ + (1−α)·risk given the previous τ and the agent's request `rate` in the window. Pure. */
  score(previousTau: number, evidence: ThreatEvidence, rate: number): ThreatUpdate {
    const { risk, burst } = this.riskOf(evidence, rate);
    const a = this.options.alpha;
    const raw = Math.min(1, Math.max(0, a * previousTau + (1 - a) * risk));
    // A score that has decayed to noise is zero: an agent that behaves ends up trusted again, with no write per call.
    const tau = raw < 1e-4 ? 0 : raw;
    return { tau, level: levelFor(tau, this.options.level_bounds), risk, burst, rate };
  }
}

