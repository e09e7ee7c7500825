import type { AgentCard } from '@a2a-js/sdk';
import { Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import type { A2AAgentConfig } from '../config/schema.js';
import type { Logger } from '../core/log.js';
import { AgentUnavailableError } from './errors.js';

/** How long a downstream card (and the client built from it) is used before it is read again. */
const CARD_TTL_MS = 60_000;
/** Task owners remembered per agent (the oldest forgotten first). */
const MAX_OWNED_TASKS = 50_000;

/**
 * One downstream A2A agent: its card, read from `<url>/.well-known/agent-card.json`, and an `@a2a-js/sdk` client
 * built from it (JSON-RPC or HTTP+JSON, v1.0 or v0.3, as the card offers), every request carrying the configured
 * headers and bearer token. The card is read again after a minute, and at once after a call could not reach the
 * agent, so an agent that was down is used as soon as it is back.
 */
export class A2ADownstream {
  private current: Promise<{ client: Client; card: AgentCard; at: number }> | undefined;
  private readonly fetchImpl: typeof fetch;

  constructor(
    readonly name: string,
    readonly config: A2AAgentConfig,
    private readonly logger: Logger,
  ) {
    const extra: Record<string, string> = { ...config.headers };
    if (config.bearer_token && 'value' in config.bearer_token) extra.Authorization = `Bearer ${config.bearer_token.value}`;
    this.fetchImpl = (input, init) => {
      const headers = new Headers(init?.headers);
      for (const [k, v] of Object.entries(extra)) headers.set(k, v);
      return fetch(input, { ...init, headers });
    };
  }

  /** The client and the agent's own card; throws `AgentUnavailableError` when the card cannot be read. */
  async connect(): Promise<{ client: Client; card: AgentCard }> {
    const c = this.current;
    if (c) {
      const got = await c.catch(() => undefined);
      if (got && Date.now() - got.at < CARD_TTL_MS) return got;
      if (this.current === c) this.current = undefined;
    }
    this.current ??= this.build();
    const mine = this.current;
    try {
      return await mine;
    } catch (err) {
      if (this.current === mine) this.current = undefined;
      throw err;
    }
  }

  /**
   * Which caller each task was created for. QuadGuard reaches the agent as one client for every caller, so the
   * agent cannot keep one caller's tasks from another: QuadGuard does (a task another caller created is not found;
   * a task QuadGuard has not seen, e.g. from before a restart, is passed on).
   */
  private readonly owners = new Map<string, string>();

  /** Records `caller` as the owner of `taskId` (the first caller to see a task owns it). */
  own(taskId: string, caller: string): void {
    if (taskId === '' || this.owners.has(taskId)) return;
    this.owners.set(taskId, caller);
    if (this.owners.size > MAX_OWNED_TASKS) this.owners.delete(this.owners.keys().next().value!);
  }

  /** Whether `caller` may see `taskId`: it owns it, or no caller is known to. */
  mayUse(taskId: string, caller: string): boolean {
    const owner = this.owners.get(taskId);
    return owner === undefined || owner === caller;
  }

  /** Forgets the card and client (after a call could not reach the agent). */
  reset(): void {
    this.current = undefined;
  }

  private async build(): Promise<{ client: Client; card: AgentCard; at: number }> {
    const legacyCompat = { enabled: true };
    const resolver = new DefaultAgentCardResolver({ fetchImpl: this.fetchImpl, legacyCompat });
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl: this.fetchImpl, legacyCompat }), new RestTransportFactory({ fetchImpl: this.fetchImpl, legacyCompat })],
      cardResolver: resolver,
    });
    try {
      // The card is `.well-known/agent-card.json` under the base URL: resolved against it with a trailing slash.
      const card = await resolver.resolve(this.config.url.endsWith('/') ? this.config.url : `${this.config.url}/`);
      const client = await factory.createFromAgentCard(card);
      this.logger.info({ agent: this.name, card: card.name, transport: client.transport.protocolName }, 'a2a agent card read');
      return { client, card, at: Date.now() };
    } catch (err) {
      this.logger.warn({ agent: this.name, url: this.config.url, err: (err as Error).message }, 'a2a agent card could not be read');
      throw new AgentUnavailableError(this.name, this.config.url, err);
    }
  }
}
