import type { DecisionInput, Interaction } from '../core/types.js';
import { makeDecision, serverOf, targetOf, type Decision } from '../core/types.js';
import { rowName } from '../store/audit-interaction.js';
import type { ProxyCore } from './context.js';

export type { DecisionRecorder } from './context.js';

/**
 * Where the proxy itself refuses (not the policy pipeline), named in the audit row's `source`:
 * `filter` (servers.<key>.tools), `hidden` (a tool the tool screen hides: changed pin, poisoned description; a prompt
 * or resource the listing screen hides),
 * `unknown` (no such tool, prompt or resource server), `limits` (argument size or depth), `invalid` (arguments
 * the proxy cannot read), `identity` (a spoofed sender in guard_check_message), `routing` (a server's log message
 * no session can be said to concern).
 */
export type RefusalSource = 'filter' | 'hidden' | 'unknown' | 'limits' | 'invalid' | 'identity' | 'routing';

/**
 * Makes sure a denial is a recorded decision, whoever decided it: denials the pipeline recorded already carry an
 * `auditId` and pass through; a denial from the tool filter or a fail-closed wrapper is recorded here. A failing
 * audit write is logged and the denial stands (it denies anyway).
 */
export async function ensureRecorded(core: Pick<ProxyCore, 'record' | 'logger'>, interaction: Interaction, decision: Decision, signal?: AbortSignal): Promise<Decision> {
  if (decision.decision !== 'deny' || decision.auditId !== undefined || !core.record) return decision;
  try {
    await core.record(interaction, decision, signal);
  } catch (err) {
    core.logger.error({ err, kind: interaction.kind, agent: interaction.agent, source: decision.source }, 'recording a refusal failed');
  }
  return decision;
}

/** The proxy's own refusal: built, recorded (see `ensureRecorded`) and logged; returns the recorded decision. */
export async function refuse(core: ProxyCore, interaction: Interaction, input: Omit<DecisionInput, 'decision' | 'source'> & { source: RefusalSource }): Promise<Decision> {
  const decision = makeDecision({ ...input, decision: 'deny' });
  await ensureRecorded(core, interaction, decision);
  core.logger.info(
    { session: interaction.session, agent: interaction.agent, kind: interaction.kind, server: loggedName(serverOf(interaction)), target: loggedName(targetOf(interaction)), source: decision.source, auditId: decision.auditId },
    'refused by the proxy',
  );
  return decision;
}

/**
 * A name the client chose (a tool, a server prefix, a resource URI), as the log shows it: masked and capped as the
 * audit row keeps it. A refused name is often one no server has, so nothing vouches for it; a credential sent as one
 * must not reach the logs in clear.
 */
export function loggedName(name: string | undefined): string | undefined {
  return name === undefined ? undefined : rowName(name);
}

/** " (decision 42-3fa9c1d2)" for messages of protocol errors, so the client can quote the audit row. */
export function auditSuffix(d: Decision): string {
  return d.auditId ? ` (decision ${d.auditId})` : '';
}
