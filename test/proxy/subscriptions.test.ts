/**
 * Resource subscriptions are held per session: the server is subscribed once while any session is, and is
 * unsubscribed when the last subscribed session leaves (the conformance fixture as a real HTTP server).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/core/log.js';
import { createProxy } from '../../src/proxy/index.js';
import { startFixtureServer, waitFor } from '../support/proxy-harness.js';

const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

describe('resource subscriptions across sessions', () => {
  let fixture: Awaited<ReturnType<typeof startFixtureServer>>;
  beforeAll(async () => {
    fixture = await startFixtureServer();
  }, 30_000);
  afterAll(async () => {
    await fixture?.stop();
  });

  it('keeps the server subscribed while one session is, and releases it when the last one leaves', async () => {
    const proxy = createProxy({ config: validateConfig({ servers: { conf: { url: fixture.url, namespace: false } } }), logger: silentLogger() });
    const connect = async (id: string) => {
      const [ct, st] = InMemoryTransport.createLinkedPair();
      await proxy.serveTransport(st, { id, agent: 'a', profile: {}, authenticated: false });
      const c = new Client({ name: id, version: '0' });
      await c.connect(ct);
      return c;
    };
    try {
      const a = await connect('a');
      const b = await connect('b');
      const touch = (c: Client) => c.callTool({ name: 'qg_touch_resource', arguments: { uri: 'test://watched-resource' } });
      await a.subscribeResource({ uri: 'test://watched-resource' });
      await b.subscribeResource({ uri: 'test://watched-resource' });
      await a.close();
      expect(text(await touch(b))).toBe('updated test://watched-resource');
      await b.unsubscribeResource({ uri: 'test://watched-resource' });
      expect(text(await touch(b))).toBe('not subscribed: test://watched-resource');
      await b.subscribeResource({ uri: 'test://watched-resource' });
      const c = await connect('c');
      await b.close();
      // b was the last subscriber: the server is unsubscribed once b's session is gone.
      await waitFor(async () => text(await touch(c)) === 'not subscribed: test://watched-resource', 10_000, 'unsubscribe after the session left');
      await c.close();
    } finally {
      await proxy.close();
    }
  }, 60_000);
});
