import { randomUUID } from 'node:crypto';
import {
  CreateMessageResultSchema,
  CreateMessageResultWithToolsSchema,
  type ElicitResult,
  ElicitResultSchema,
  ErrorCode,
  ListRootsResultSchema,
  type Result,
} from '@modelcontextprotocol/sdk/types.js';
import { type ContentBlock, type InteractionInput, InteractionSchema } from '../core/types.js';
import type { ProxyCore } from './context.js';
import { denialText, GUARD_DENIED_CODE, protocolError, requestDenialError } from './denial.js';
import { decide } from './decide.js';
import { answeredDirs } from './roots.js';
import { checkRootsAnswer } from './roots-answer.js';
import type { Downstream, DownstreamPeer, ServerToClientRequest } from './downstream.js';
import type { LiveUpstream, Target, UpstreamRegistry } from './sessions.js';
import { deliverServerLog } from './server-logs.js';

/**
 * The session a server's request belongs to (`UpstreamRegistry.targetOf`): with no request in flight, the owner of
 * the connection (stdio) or the only live session.
 */
export function targetOf(d: Downstream, registry: UpstreamRegistry): Target | string {
  return registry.targetOf(d, 'only-live');
}

const text = (t: string): ContentBlock => ({ type: 'text', text: t });

/**
 * Content blocks of a sampling request's messages (one block or an array each), system prompt first, and the tools it
 * offers the client's model (their names, descriptions and schemas are text that model reads, as a tool list is: one
 * block of its own type, every string in it read).
 */
function samplingContent(params: Record<string, unknown>): ContentBlock[] {
  const blocks: ContentBlock[] = typeof params.systemPrompt === 'string' ? [text(params.systemPrompt)] : [];
  for (const m of (params.messages as Array<{ content?: unknown }> | undefined) ?? []) {
    const c = m.content;
    for (const b of Array.isArray(c) ? c : c === undefined ? [] : [c]) if (typeof b === 'object' && b !== null) blocks.push(b as ContentBlock);
  }
  if (Array.isArray(params.tools) && params.tools.length > 0) blocks.push({ type: 'sampling_tools', tools: params.tools } as ContentBlock);
  return blocks;
}

/** The interaction the guard checks for a sampling or elicitation request (a roots/list is checked on its answer: roots-answer.ts). */
export function serverRequestInteraction(d: Downstream, req: ServerToClientRequest, session: LiveUpstream['ctx']): InteractionInput | undefined {
  const who = { agent: session.agent, session: session.id, profile: session.profile, server: d.key };
  if (req.method === 'sampling/createMessage') return { ...who, kind: 'sampling_request', content: samplingContent(req.params) };
  if (req.method === 'elicitation/create') {
    const p = req.params;
    const content = [text(String(p.message ?? ''))];
    if (p.requestedSchema !== undefined) content.push(text(JSON.stringify(p.requestedSchema)));
    return { ...who, kind: 'elicitation_request', content, ...(typeof p.url === 'string' ? { uri: p.url } : {}) };
  }
  return undefined;
}

function resultSchema(req: ServerToClientRequest) {
  if (req.method === 'sampling/createMessage') return req.params.tools !== undefined ? CreateMessageResultWithToolsSchema : CreateMessageResultSchema;
  return req.method === 'elicitation/create' ? ElicitResultSchema : ListRootsResultSchema;
}

const WHAT: Record<ServerToClientRequest['method'], string> = {
  'sampling/createMessage': 'sampling request from server',
  'elicitation/create': 'elicitation request from server',
  'roots/list': 'roots request from server',
};

/**
 * The user's answer to an elicitation, before it goes back to the server: data leaving to that server, checked as an
 * `elicitation_result`. A denied answer is never forwarded: the server is told the user declined, the decision is
 * audited (by the pipeline, or `decide`) and logged, and the session gets a warning log message saying why.
 * Declines, cancels and URL-mode acceptances carry no content and pass as they are.
 */
async function checkAnswer(core: ProxyCore, registry: UpstreamRegistry, d: Downstream, target: Target, answer: ElicitResult, signal: AbortSignal): Promise<ElicitResult> {
  if (answer.action !== 'accept' || answer.content === undefined || Object.keys(answer.content).length === 0) return answer;
  const s = target.session.ctx;
  const interaction = InteractionSchema.parse({ agent: s.agent, session: s.id, profile: s.profile, server: d.key, kind: 'elicitation_result', action: 'accept', arguments: answer.content });
  const decision = await decide(core, interaction, signal);
  if (decision.decision !== 'deny') return answer;
  core.logger.warn({ server: d.key, session: s.id, rules: decision.rules, auditId: decision.auditId }, 'elicitation answer denied; the server is told the user declined');
  const text = denialText(decision, { what: 'answer to the elicitation request from server', name: `"${d.key}"` });
  registry.logTo(target.session, { level: 'warning', logger: 'quadguard', data: `${text}\nThe server was told the user declined.` }, target.origin);
  return { action: 'decline' };
}

/**
 * The client model's reply to a sampling request, before it goes back to the server: data leaving to that server
 * (with `includeContext` the client may have drawn other servers' data into it), checked as a `sampling_result`. A
 * denied reply is never forwarded: the server gets a JSON-RPC error saying QuadGuard withheld it (a client may
 * reject a sampling request), without the rationale, which could quote the reply; the decision is audited and
 * logged, and the session gets a warning log message saying why.
 */
async function checkReply(core: ProxyCore, registry: UpstreamRegistry, d: Downstream, target: Target, reply: Result, signal: AbortSignal): Promise<Result> {
  const c = (reply as { content?: unknown }).content;
  const content = (Array.isArray(c) ? c : c === undefined ? [] : [c]).filter((b): b is ContentBlock => typeof b === 'object' && b !== null);
  const s = target.session.ctx;
  const interaction = InteractionSchema.parse({ agent: s.agent, session: s.id, profile: s.profile, server: d.key, kind: 'sampling_result', content });
  const decision = await decide(core, interaction, signal);
  if (decision.decision !== 'deny') return reply;
  core.logger.warn({ server: d.key, session: s.id, rules: decision.rules, auditId: decision.auditId }, 'sampling reply denied; the server gets an error');
  const text = denialText(decision, { what: 'reply to the sampling request from server', name: `"${d.key}"` });
  registry.logTo(target.session, { level: 'warning', logger: 'quadguard', data: `${text}\nThe server was told the reply was withheld.` }, target.origin);
  const ref = [`rule${decision.rules.length === 1 ? '' : 's'} ${decision.rules.join(', ')}`, ...(decision.auditId ? [`decision id ${decision.auditId}`] : [])].join('; ');
  throw protocolError(GUARD_DENIED_CODE, `The client's reply to this sampling request was withheld by QuadGuard: its policy does not allow it to go to this server (${ref}).`);
}

/**
 * The proxy as every downstream server's client: a server's sampling, elicitation and roots requests are carried
 * to the upstream session they belong to (sampling and elicitation after the guard allowed them), the answer goes
 * back (a sampling reply or elicitation answer after the guard allowed it); log messages, resource updates and
 * URL-elicitation completions go to the sessions they concern.
 */
export function createDownstreamPeer(core: ProxyCore, registry: UpstreamRegistry): DownstreamPeer {
  return {
    async request(d, req, signal): Promise<Result> {
      if (req.method === 'roots/list') core.clientRoots.asked(d.key);
      const target = targetOf(d, registry);
      if (typeof target === 'string') throw protocolError(ErrorCode.InvalidRequest, `QuadGuard cannot carry ${req.method}: ${target}.`);
      const interaction = serverRequestInteraction(d, req, target.session.ctx);
      if (interaction) {
        const checked = InteractionSchema.parse(interaction);
        const decision = await decide(core, checked, signal);
        if (decision.decision === 'deny') {
          core.logger.info({ server: d.key, method: req.method, session: target.session.ctx.id, rules: decision.rules }, 'server request denied');
          throw requestDenialError(decision, { what: WHAT[req.method], name: `"${d.key}"` });
        }
      }
      // The client's progress on the request goes back to the server, under a token of QuadGuard's own (not the SDK's
      // onprogress: the SDK drops progress that arrives in the same read as the answer, see upstream-server.ts).
      const token = req.progressToken !== undefined ? `quadguard-progress-${randomUUID()}` : undefined;
      const params = token === undefined ? req.params : { ...req.params, _meta: { ...(req.params._meta as Record<string, unknown> | undefined), progressToken: token } };
      if (token !== undefined) core.progress.set(token, req.progress);
      const opts = { signal, timeout: d.cfg.timeout_ms };
      const message = { method: req.method, params } as never;
      try {
        const answer = await (target.origin ? target.origin.extra.sendRequest(message, resultSchema(req), opts) : target.session.server.request(message, resultSchema(req), opts));
        if (req.method === 'roots/list') {
          // Checked and recorded before they go (roots-answer.ts); then the roots the server is about to use:
          // relative paths in its tool calls resolve against them.
          await checkRootsAnswer(core, registry, d, target, answer, signal);
          core.clientRoots.delivered(d.key, target.session.ctx.id, answeredDirs(core, d.key, answer));
        }
        if (req.method === 'elicitation/create') return await checkAnswer(core, registry, d, target, answer as ElicitResult, signal);
        return req.method === 'sampling/createMessage' ? await checkReply(core, registry, d, target, answer, signal) : answer;
      } finally {
        if (token !== undefined) core.progress.delete(token);
      }
    },
    notify(d, n) {
      // A log message: checked, and delivered only to the session it concerns (server-logs.ts).
      if (n.method === 'notifications/message') return void deliverServerLog(core, registry, d, n.params);
      if (n.method === 'notifications/elicitation/complete') {
        // A URL-mode elicitation finished: tell the session the server is working for (or the only one).
        const target = targetOf(d, registry);
        if (typeof target === 'string') return void core.logger.warn({ server: d.key, why: target }, 'elicitation/complete not forwarded');
        const note = { method: n.method, params: n.params } as never;
        void (target.origin ? target.origin.extra.sendNotification(note) : target.session.server.notification(note)).catch(() => {});
        return;
      }
      const uri = String(n.params.uri ?? '');
      registry.resourceUpdated(core.pool.exposedUri(d.key, uri), n.params);
    },
  };
}
