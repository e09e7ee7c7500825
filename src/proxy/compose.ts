import { errorMessage } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import { KINDS } from '../core/kinds.js';
import { makeDecision, serverOf, targetOf, type Decision, type Guard, type Interaction } from '../core/types.js';
import { loggedName } from './refusals.js';

/**
 * Runs guards in order; the first denial wins. An allow that carries a `replacement` is kept unless a later guard
 * denies. This is where the tool filter and the policy pipeline meet.
 */
export function composeGuards(...guards: Array<Guard | undefined>): Guard {
  const list = guards.filter((g): g is Guard => g !== undefined);
  return {
    async check(i: Interaction, signal?: AbortSignal): Promise<Decision> {
      let last: Decision | undefined;
      for (const g of list) {
        const d = await g.check(i, signal);
        if (d.decision === 'deny') return d;
        if (last?.replacement !== undefined && d.replacement === undefined) continue;
        last = d;
      }
      return last ?? makeDecision({ decision: 'allow', rationale: 'no guard configured', source: 'none' });
    },
  };
}

/** Wraps a guard so that a throw (or a non-decision) becomes a denial with source `error`: the proxy fails closed. */
export function failClosed(guard: Guard, logger: Logger): Guard {
  return {
    async check(i: Interaction, signal?: AbortSignal): Promise<Decision> {
      try {
        const d = await guard.check(i, signal);
        if (!d || (d.decision !== 'allow' && d.decision !== 'deny')) throw new Error('guard returned no decision');
        return d;
      } catch (err) {
        logger.error({ err, kind: i.kind, server: loggedName(serverOf(i)), target: loggedName(targetOf(i)) }, 'guard failed; denying (fail closed)');
        return makeDecision({
          decision: 'deny',
          rationale: `the guard could not evaluate this ${KINDS[i.kind].label} (${errorMessage(err)}), so it was blocked.`,
          remediation: 'Retry later; if it persists, ask the operator to check the QuadGuard logs.',
          source: 'error',
        });
      }
    },
  };
}

/**
 * The proxy's single guard: the per-server tool filter, then the optional policy pipeline, fail-closed.
 */
export function buildProxyGuard(filter: Guard, pipeline: Guard | undefined, logger: Logger): Guard {
  return failClosed(composeGuards(filter, pipeline), logger);
}
