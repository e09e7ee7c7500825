import { AgentCard } from '@a2a-js/sdk';
import { jsonRpcHandler, restHandler, type UserBuilder } from '@a2a-js/sdk/server/express';
import { legacyAgentCardRouter } from '@a2a-js/sdk/compat/v0_3/server/express';
import express, { type Application, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Config } from '../config/schema.js';
import type { Logger } from '../core/log.js';
import type { Guard } from '../core/types.js';
import type { DecisionRecorder } from '../proxy/context.js';
import { sendJsonRpcError, type RequestIdentity } from '../proxy/http-auth.js';
import type { FrontEndHooks } from '../proxy/http-upstream.js';
import { agentPath, rewriteCard, type CardScreen } from './card.js';
import { A2ADownstream } from './downstream.js';
import { errorMessage } from '../core/errors.js';
import { Caller, GuardedAgentHandler, type A2AGuardDeps } from './handler.js';

export { answerServer } from './handler.js';
export type { CardScreen } from './card.js';

/** Options of `createA2AGateway`. */
export interface A2AGatewayOptions {
  config: Config;
  /** The proxy's one guard (the MCP proxy's: tool filter, then the policy pipeline, fail-closed). */
  guard: Guard;
  record?: DecisionRecorder | undefined;
  logger: Logger;
  /** Screens of the cards' skills and descriptions; absent without a policy (they are passed on unscreened). */
  screen?: CardScreen | undefined;
  /** Whether callers must present a bearer token (agent tokens are configured); the cards say so. */
  authenticated: boolean;
}

/** The A2A proxy's routes, mounted on the HTTP front end by its `extraRoutes` hook. */
export interface A2AGateway {
  /**
   * Mounts `/a2a/<name>/…` on `app` behind the front end's hooks, as /mcp: the drain `gate` (503 while stopping),
   * authentication `auth`, and `around` after the body is read (a trace span). A reload swaps the book for new A2A
   * requests while a running stream keeps its own (each request's checks pass its `Caller.request`: `LiveGuard`).
   */
  mount(app: Application, hooks: Partial<FrontEndHooks> & { auth: RequestHandler }): void;
}

/**
 * The A2A proxy (docs/a2a.md): each configured agent is served at `/a2a/<name>`, its card at
 * `/a2a/<name>/.well-known/agent-card.json` (rewritten to point at QuadGuard), JSON-RPC at `/a2a/<name>` and
 * HTTP+JSON at `/a2a/<name>/rest`, v0.3 callers through the SDK's compatibility layer when `a2a.v0_3` is on.
 * Every route needs the caller's bearer token, as /mcp does; an unknown agent name is a 404.
 */
export function createA2AGateway(o: A2AGatewayOptions): A2AGateway {
  const log = o.logger.child({ mod: 'a2a' });
  const a2a = o.config.a2a;
  const deps: A2AGuardDeps = {
    guard: o.guard,
    ...(o.record ? { record: o.record } : {}),
    logger: log,
    profileOf: (agent) => o.config.agents[agent]?.profile ?? {},
  };
  const legacyCompat = { enabled: a2a.v0_3 };
  // eslint-disable-next-line regexp/no-super-linear-move -- the operator's own a2a.public_url from the config, not a text an agent, a server or a peer sends
  const publicBase = a2a.public_url?.replace(/\/+$/, '');
  const userBuilder: UserBuilder = (req: Request) => {
    const who = req.res?.locals.identity as RequestIdentity | undefined;
    // The routes sit behind the front end's authentication, which always sets the identity.
    if (!who) return Promise.reject(new Error('QuadGuard: no caller identity on an A2A request'));
    return Promise.resolve(new Caller(who.agent, who.authenticated));
  };

  return {
    mount(app, hooks) {
      const pass: RequestHandler = (_req, _res, next) => next();
      const { auth, gate = pass, around = pass } = hooks;
      const json = express.json({ limit: o.config.http.body_limit, type: () => true });
      for (const [name, cfg] of Object.entries(a2a.agents)) {
        const agent = new A2ADownstream(name, cfg, log);
        const cardFor = async (base: string, screen: CardScreen | undefined) =>
          rewriteCard((await agent.connect()).card, { name, base, authenticated: o.authenticated, pushNotifications: cfg.push_notifications, v0_3: a2a.v0_3, screen });
        // The SDK checks the requested version and the agent's capabilities against the card; no screening needed.
        const servedCard = () => cardFor(publicBase ?? 'http://quadguard.invalid', undefined);
        const path = agentPath(name);
        // The card: v1.0 for callers that say `A2A-Version: 1.0` (the SDK's v1 client does), the v0.3 shape (url,
        // preferredTransport, additionalInterfaces) for v0.3 callers, who send no version (the SDK's own rule).
        app.use(`${path}/.well-known/agent-card.json`, gate, auth, async (req: Request, res: Response, next: NextFunction) => {
          if (req.method !== 'GET' || (req.path !== '/' && req.path !== '')) return next();
          let card: AgentCard;
          try {
            card = await cardFor(publicBase ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`, o.screen);
          } catch (err) {
            log.warn({ agent: name, err: errorMessage(err) }, 'a2a card not served');
            return sendJsonRpcError(res, 502, -32603, errorMessage(err));
          }
          const version = (req.get('A2A-Version') ?? '').trim();
          const legacy = version === '' || /^0\.3(\.\d+)?$/.test(version);
          res.append('Vary', 'A2A-Version');
          if (legacy && a2a.v0_3) return legacyAgentCardRouter({ agentCardProvider: () => Promise.resolve(card), cache: { maxAge: 0 } })(req, res, next);
          if (legacy && version !== '') {
            return sendJsonRpcError(res, 400, -32009, `QuadGuard serves A2A agent "${name}" to v1.0 callers only (A2A-Version: 1.0): v0.3 callers are refused by this config; set a2a.v0_3: true in the QuadGuard config to accept them.`);
          }
          res.setHeader('Cache-Control', 'no-cache');
          return void res.json(AgentCard.toJSON(card));
        });
        app.use(`${path}/rest`, gate, auth, json, around, restHandler({ requestHandler: new GuardedAgentHandler(deps, agent, 'rest', servedCard), userBuilder, legacyCompat }));
        app.use(path, gate, auth, json, around, jsonRpcHandler({ requestHandler: new GuardedAgentHandler(deps, agent, 'jsonrpc', servedCard), userBuilder, legacyCompat }));
      }
      // Anything else under /a2a: an unknown agent (after authentication, so names are not disclosed to strangers).
      app.use('/a2a', auth, (req: Request, res: Response) => {
        const name = req.path.split('/')[1] ?? '';
        if (name !== '' && Object.hasOwn(a2a.agents, name)) return sendJsonRpcError(res, 404, -32601, `Not found: ${req.method} ${req.originalUrl} (A2A agent "${name}" serves POST ${agentPath(name)}, ${agentPath(name)}/rest/… and ${agentPath(name)}/.well-known/agent-card.json)`);
        const known = Object.keys(a2a.agents);
        sendJsonRpcError(res, 404, -32601, `Not found: no A2A agent "${name}" on this QuadGuard (${known.length > 0 ? `agents: ${known.join(', ')}` : 'none configured: add a2a.agents.<name>.url to the config'}).`);
      });
      log.info({ agents: Object.keys(a2a.agents), v0_3: a2a.v0_3 }, 'a2a agents served');
    },
  };
}
