/**
 * Red team: values a client sends a server outside tools/call, prompts/get and resources/read. completion/complete
 * carries the argument being typed and the arguments already given to the prompt's or template's server, and
 * resources/subscribe a URI; both were forwarded without a guard decision, so a credential, or private data read
 * from another server, reached the server through them while prompts/get and resources/read with the same values
 * were denied (fails before: each completion and subscription below was answered). End to end through the built CLI
 * (`quadguard serve`, stdio, default book) in front of the conformance fixture (Streamable HTTP), once with its own
 * names (`conf`) and once namespaced (`conf2`). Controls: ordinary completions and subscriptions are answered.
 */
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, makeSandbox, ROOT, startFixtureServer, writeConfig } from '../support/proxy-harness.js';

// Assembled at run time, so no scanner takes the test file for a leaked key.
const TOKEN = ['ghp', 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789'].join('_');

describe('red team: completions and subscriptions carry values to a server', () => {
  const sb = makeSandbox();
  let fixture: Awaited<ReturnType<typeof startFixtureServer>>;
  let client: Client;

  beforeAll(async () => {
    fixture = await startFixtureServer();
    const cfg = writeConfig(sb.dir, {
      servers: { conf: { url: fixture.url, namespace: false }, conf2: { url: fixture.url } },
      policy: join(ROOT, 'policies', 'default'),
      store: join(sb.dir, 'state.db'),
      guard: { watcher: { quarantine: false } },
    });
    client = (await connectStdio(cfg)).client;
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await fixture?.stop();
  });

  it('a completion whose value is a credential is denied', async () => {
    await expect(client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: TOKEN } })).rejects.toThrow(/no-secret-leak/);
  }, 30_000);

  it('a completion whose earlier arguments carry a credential is denied', async () => {
    await expect(
      client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg2', value: 'pa' }, context: { arguments: { arg1: TOKEN } } }),
    ).rejects.toThrow(/no-secret-leak/);
  }, 30_000);

  it("a template argument's completion carrying a credential is denied", async () => {
    await expect(client.complete({ ref: { type: 'ref/resource', uri: 'test://template/{id}/data' }, argument: { name: 'id', value: TOKEN } })).rejects.toThrow(/no-secret-leak/);
  }, 30_000);

  it('a completion carrying private data read from another server is denied; the server it came from may complete it', async () => {
    const id = 'holloway-jane-cardiology-ward-14b-hypertension-stage-two-followup-0427';
    expect((await client.readResource({ uri: `conf2+test://template/${id}/data` })).contents[0]).toMatchObject({ text: expect.stringContaining(id) });
    await expect(client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: id } })).rejects.toThrow(/no-private-data-in-requests/);
    expect((await client.complete({ ref: { type: 'ref/prompt', name: 'conf2__test_prompt_with_arguments' }, argument: { name: 'arg1', value: id } })).completion.values).toEqual([]);
  }, 30_000);

  it('a subscription to a URI carrying a credential is denied', async () => {
    await expect(client.subscribeResource({ uri: `test://template/${TOKEN}/data` })).rejects.toThrow(/no-secret-leak/);
  }, 30_000);

  it('ordinary completions and subscriptions are answered (control)', async () => {
    expect((await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'par' } })).completion.values).toEqual(['paris', 'park', 'party']);
    expect((await client.complete({ ref: { type: 'ref/resource', uri: 'test://template/{id}/data' }, argument: { name: 'id', value: 'pa' } })).completion.values).toEqual(['paris', 'park', 'party']);
    expect(await client.subscribeResource({ uri: 'test://watched-resource' })).toEqual({});
    expect(await client.unsubscribeResource({ uri: 'test://watched-resource' })).toEqual({});
  }, 30_000);
});
