import { rmSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load.js';
import { makeDecision } from '../../src/core/types.js';
import { silentLogger } from '../../src/core/log.js';
import { createProxy, type GuardedProxy } from '../../src/proxy/index.js';
import { makeSandbox, server } from '../support/proxy-harness.js';

/**
 * A listing screen that fails hides the server's items (fail closed), and a get or read of one says the screen
 * failed, not that the item carries injected instructions (in-memory upstream, the real workspace server).
 */
describe('the listing screen failing', () => {
  const sb = makeSandbox();
  let proxy: GuardedProxy;
  let client: Client;

  beforeAll(async () => {
    const fail = async (): Promise<never> => {
      throw new Error('scorer unavailable');
    };
    proxy = createProxy({
      config: validateConfig({ servers: { ws: server('workspace', '--root', sb.workspace) } }),
      guard: { check: async () => makeDecision({ decision: 'allow', rationale: 'ok' }) },
      logger: silentLogger(),
      onListed: { prompts: fail, resources: fail, templates: fail, completions: fail },
    });
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await proxy.serveTransport(st, { id: 'sess-1', agent: 'tester', profile: {}, authenticated: false });
    client = new Client({ name: 't', version: '0' });
    await client.connect(ct);
  });
  afterAll(async () => {
    await client?.close();
    await proxy?.close();
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('hides the prompts and resources, and a get or read of one names the failed screen', async () => {
    expect((await client.listPrompts()).prompts).toEqual([]);
    expect((await client.listResources()).resources).toEqual([]);
    await expect(client.getPrompt({ name: 'ws__summarize_file', arguments: { path: 'notes.txt' } })).rejects.toThrow(/could not be screened for injected instructions/);
    await expect(client.readResource({ uri: 'ws+workspace://index' })).rejects.toThrow(/could not be screened for injected instructions/);
  });
});
