import { type InteractionInput, InteractionSchema } from '../core/types.js';
import type { ProxyCore } from './context.js';
import { decide } from './decide.js';
import { denialText, GUARD_DENIED_CODE, protocolError } from './denial.js';
import type { Downstream } from './downstream.js';
import type { Target, UpstreamRegistry } from './sessions.js';
import { messageSideFields, withMeta } from './side-fields.js';

/**
 * The interaction for a client's roots/list answer going to `server`: each root as the client gave it (its `uri`,
 * `name` and whatever else it carries) under `arguments.roots`, read as every value sent to a server is; the answer's
 * other fields (its `_meta`) as side fields.
 */
export function rootsAnswerInteraction(server: string, target: Target, answer: object): InteractionInput {
  const s = target.session.ctx;
  const roots = (answer as { roots?: unknown }).roots;
  return {
    agent: s.agent,
    session: s.id,
    profile: s.profile,
    server,
    kind: 'roots_result',
    arguments: { roots: Array.isArray(roots) ? roots : [] },
    ...withMeta(messageSideFields(answer, ['roots'])),
  };
}

/**
 * The client's roots, before they go to the server that asked (#27, class 3): checked as a `roots_result` and
 * recorded. A root the sandbox does not cover is not refused: roots say where the server may look, and each call's
 * paths are checked on their own (relative ones against every root). A denied answer is never forwarded: the server
 * gets a JSON-RPC error saying QuadGuard withheld it (without the rationale, which could quote a root), the decision
 * is audited and logged, and the session gets a warning log message saying why.
 */
export async function checkRootsAnswer(core: ProxyCore, registry: UpstreamRegistry, d: Downstream, target: Target, answer: object, signal: AbortSignal): Promise<void> {
  const interaction = InteractionSchema.parse(rootsAnswerInteraction(d.key, target, answer));
  const decision = await decide(core, interaction, signal);
  if (decision.decision !== 'deny') return;
  core.logger.warn({ server: d.key, session: target.session.ctx.id, rules: decision.rules, auditId: decision.auditId }, 'roots answer denied; the server gets an error');
  const text = denialText(decision, { what: 'answer to the roots request from server', name: `"${d.key}"` });
  registry.logTo(target.session, { level: 'warning', logger: 'quadguard', data: `${text}\nThe server was told the roots were withheld.` }, target.origin);
  const ref = [`rule${decision.rules.length === 1 ? '' : 's'} ${decision.rules.join(', ')}`, ...(decision.auditId ? [`decision id ${decision.auditId}`] : [])].join('; ');
  throw protocolError(GUARD_DENIED_CODE, `The client's roots were withheld by QuadGuard: its policy does not allow them to go to this server (${ref}).`);
}
