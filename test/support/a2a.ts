/**
 * A2A test helpers: the scripted agent (`servers/a2a-agent.ts`, built) as a child process on a free loopback port,
 * and `@a2a-js/sdk` clients to it, directly or through QuadGuard with a bearer token.
 */
import { Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { startPortServer } from './proxy-harness.js';

export interface A2AAgentProcess {
  url: string;
  port: number;
  /** Texts of every message the agent received. */
  received(): Promise<string[]>;
  stop(): Promise<void>;
}

/** Starts the scripted agent (`--poisoned-skill` adds a skill whose description carries an injection). */
export async function startA2AAgent(...args: string[]): Promise<A2AAgentProcess> {
  const { port, stop } = await startPortServer('a2a-agent', args, 'a2a agent');
  const url = `http://127.0.0.1:${port}`;
  return { url, port, received: async () => (await (await fetch(`${url}/received`)).json()) as string[], stop };
}

/** A fetch that sends `Authorization: Bearer <token>` (none without a token). */
export function bearerFetch(token?: string): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    if (token !== undefined) headers.set('Authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

/** An SDK client of the agent whose card is at `<base>/.well-known/agent-card.json`, preferring `transport`. */
export async function a2aClient(base: string, opts: { token?: string; transport?: 'JSONRPC' | 'HTTP+JSON' } = {}): Promise<Client> {
  const fetchImpl = bearerFetch(opts.token);
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    preferredTransports: [opts.transport ?? 'JSONRPC'],
  });
  return factory.createFromUrl(base);
}

/** The error `p` rejects with; throws when it resolves instead. */
export async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the call to fail');
}
