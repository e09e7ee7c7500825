/**
 * No answer from an incomplete catalogue: the first tools/list, prompts/list and resources/list a client sends
 * right after connecting are complete, with four real servers (the conformance fixture over Streamable HTTP, one
 * of them answering initialize 400 ms late) and an asynchronous onToolsListed hook (as the pin check is). 50 fresh
 * proxies, each discovering from scratch, in batches of 5; the servers are started once. The discovery cap and
 * the connect timeout are raised to 60 s so that a loaded machine tests completeness, not the cap (which bounds a
 * hung server) or a timed-out connect (after which a list without that server is the correct answer). Each proxy's
 * warnings are kept: a failed listing is logged and left empty by design (catalog.ts), so an incomplete run shows
 * the server's own error with its counts.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load.js';
import { createProxy } from '../../src/proxy/index.js';
import { silentLogger } from '../../src/core/log.js';
import { alive, startFixtureServer, waitFor } from '../support/proxy-harness.js';

const RUNS = 50;
const BATCH = 5;

describe('first list after connecting', () => {
  const servers: Array<Awaited<ReturnType<typeof startFixtureServer>>> = [];

  beforeAll(async () => {
    servers.push(...(await Promise.all([startFixtureServer(), startFixtureServer(), startFixtureServer(), startFixtureServer(400)])));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  /** One fresh proxy: connect a client at once and take its first lists (and the warnings the proxy logged). */
  async function firstLists(): Promise<{ tools: number; prompts: number; resources: number; warnings: string[] }> {
    const warnings: string[] = [];
    const config = validateConfig({ discovery_timeout_ms: 60_000, servers: Object.fromEntries(servers.map((s, i) => [`s${i}`, { url: s.url, connect_timeout_ms: 60_000 }])) });
    const proxy = createProxy({
      config,
      logger: pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line.trim()) }),
      onToolsListed: async (_server, tools) => {
        await new Promise((r) => setTimeout(r, 20));
        return tools;
      },
    });
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await proxy.serveTransport(st, { id: 's', agent: 'a', profile: {}, authenticated: false });
    const client = new Client({ name: 't', version: '0' });
    try {
      await client.connect(ct);
      const [tools, prompts, resources] = await Promise.all([client.listTools(), client.listPrompts(), client.listResources()]);
      return { tools: tools.tools.length, prompts: prompts.prompts.length, resources: resources.resources.length, warnings };
    } finally {
      await client.close();
      await proxy.close();
    }
  }

  it(`is complete in ${RUNS} of ${RUNS} runs with four servers, one slow to start`, async () => {
    const results: Array<{ tools: number; prompts: number; resources: number; warnings: string[] }> = [];
    for (let i = 0; i < RUNS; i += BATCH) results.push(...(await Promise.all(Array.from({ length: BATCH }, firstLists))));
    // The fixture has 19 tools, 4 prompts and 3 resources; the proxy adds guard_check_message.
    const incomplete = results.filter((r) => r.tools !== 1 + 4 * 19 || r.prompts !== 4 * 4 || r.resources !== 4 * 3);
    expect(incomplete).toEqual([]);
    expect(results).toHaveLength(RUNS);
  }, 180_000);

  it('a server that has not answered by the discovery cap does not hold the list longer than the cap', async () => {
    const config = validateConfig({ discovery_timeout_ms: 300, servers: { fast: { url: servers[0]!.url }, hung: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] } } });
    const proxy = createProxy({ config, logger: silentLogger() });
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await proxy.serveTransport(st, { id: 's', agent: 'a', profile: {}, authenticated: false });
    const client = new Client({ name: 't', version: '0' });
    try {
      await client.connect(ct);
      // Answered once the cap has passed (the hung server never initializes), without the hung server's tools.
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('guard_check_message');
      expect(names.some((n) => n.startsWith('hung__'))).toBe(false);
    } finally {
      await client.close();
      const hung = proxy.pool.servers.get('hung')?.pid;
      await proxy.close();
      // Closing the proxy stops the server still in its initialize too (it ignores its closed stdin).
      expect(hung).toBeTypeOf('number');
      await waitFor(() => !alive(hung!), 10_000, 'the hung server to be stopped');
    }
  }, 30_000);
});
