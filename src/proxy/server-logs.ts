import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import { type ContentBlock, type Interaction, InteractionSchema } from '../core/types.js';
import { errorMessage } from '../core/errors.js';
import type { ProxyCore } from './context.js';
import { denialText } from './denial.js';
import type { Downstream } from './downstream.js';
import { decide } from './decide.js';
import { refuse } from './refusals.js';
import { messageSideFields, withMeta } from './side-fields.js';
import type { UpstreamRegistry } from './sessions.js';

/** A log message's params as servers send them. */
interface LogParams {
  level: LoggingLevel;
  logger?: string;
  data: unknown;
}

/** The fields of notifications/message the `log_message` interaction carries itself; the rest are side fields. */
const LOG_OWN = ['level', 'logger', 'data'];

/** A log's `data` as content blocks: a text as a text block, anything else as a block of its own type (every leaf read). */
function logContent(data: unknown): ContentBlock[] {
  return typeof data === 'string' ? [{ type: 'text', text: data }] : [{ type: 'log_data', value: data }];
}

/**
 * A server's log message (notifications/message), on its way to a client. It goes only to the session it concerns
 * (server-requests.ts `targetOf` with `owner`): the session of the requests the server is working on when they all
 * come from one session; with none in flight, the session that owns the server's connection (a stdio proxy serves
 * one client for its whole life), else none: a log sent between the requests of several HTTP sessions could be about
 * any of them, so it is delivered to no one and recorded as a refusal (source `routing`). A log that has a session
 * is checked by the guard as a `log_message` (its data, logger and side fields): denied, the session gets a warning
 * from QuadGuard instead; redacted, the masked text. Never throws.
 */
export async function deliverServerLog(core: ProxyCore, registry: UpstreamRegistry, d: Downstream, raw: Record<string, unknown>): Promise<void> {
  try {
    const p = raw as unknown as LogParams;
    const target = registry.targetOf(d, 'owner');
    const who = typeof target === 'string' ? { agent: 'quadguard', id: `server:${d.key}`, profile: {} } : target.session.ctx;
    const interaction: Interaction = InteractionSchema.parse({
      agent: who.agent,
      session: who.id,
      profile: who.profile,
      server: d.key,
      kind: 'log_message',
      ...(typeof p.logger === 'string' ? { logger: p.logger } : {}),
      content: logContent(p.data),
      ...withMeta(messageSideFields(raw, LOG_OWN)),
    });
    if (typeof target === 'string') {
      await refuse(core, interaction, { rationale: `server "${d.key}" sent a log message, but ${target}: it was delivered to no session.`, rules: ['log-no-session'], source: 'routing' });
      return;
    }
    const decision = await decide(core, interaction, AbortSignal.timeout(30_000));
    const logger = core.pool.namespaced(d.key) ? (p.logger ? `${d.key}/${p.logger}` : d.key) : p.logger;
    if (decision.decision === 'deny') {
      core.logger.info({ server: d.key, session: who.id, rules: decision.rules, auditId: decision.auditId }, 'server log message withheld');
      const text = denialText(decision, { what: 'log message from server', name: `"${d.key}"` });
      return registry.logTo(target.session, { level: 'warning', logger: 'quadguard', data: text }, target.origin);
    }
    const data = decision.replacement ? replacementData(decision.replacement, p.data) : p.data;
    registry.logTo(target.session, { ...p, data, ...(logger !== undefined ? { logger } : {}) }, target.origin);
  } catch (err) {
    core.logger.warn({ server: d.key, err: errorMessage(err) }, 'a server log message could not be checked; it was dropped');
  }
}

/** A redacted log's data: the masked text when the log was a text, else the masked structure. */
function replacementData(blocks: ContentBlock[], original: unknown): unknown {
  const b = blocks[0];
  if (typeof original === 'string') return typeof b?.text === 'string' ? b.text : '';
  return b && 'value' in b ? b.value : blocks;
}
