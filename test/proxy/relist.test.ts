import { rmSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, makeSandbox, server, waitFor, writeConfig } from '../support/proxy-harness.js';

/**
 * A server whose prompts/list and resources/list fail at first (the misbehaving server with MISBEHAVING_FAIL_LISTS=2:
 * twice each) is listed again on the same connection, 1 s then 2 s later, and its prompt and resource reach the
 * client with a list_changed notification, without the server restarting.
 */
describe('a resources or prompts listing that fails when a server connects (real child processes)', () => {
  const sb = makeSandbox();
  let client: Client;
  let stderr: () => string;
  const changed = { prompts: 0, resources: 0 };

  beforeAll(async () => {
    const cfg = writeConfig(sb.dir, {
      servers: { bad: { ...server('misbehaving'), env: { MISBEHAVING_FAIL_LISTS: '2' } } },
      discovery_timeout_ms: 90_000,
    });
    ({ client, stderr } = await connectStdio(cfg));
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => void changed.prompts++);
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void changed.resources++);
  });
  afterAll(async () => {
    await client?.close();
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('is listed again until it answers, and the client is told', async () => {
    const promptNames = async () => (await client.listPrompts()).prompts.map((p) => p.name);
    const resourceNames = async () => (await client.listResources()).resources.map((r) => r.name);
    await waitFor(() => stderr().includes('downstream prompts listing failed; listing again in 1.0 s'), 30_000, 'the first failure');
    await waitFor(async () => (await promptNames()).some((n) => n.endsWith('late_prompt')), 30_000, 'the prompt, listed again');
    await waitFor(async () => (await resourceNames()).includes('late'), 30_000, 'the resource, listed again');
    await waitFor(() => changed.prompts > 0 && changed.resources > 0, 10_000, 'list_changed notifications');
    expect(stderr()).toContain('downstream prompts listing failed; listing again in 1.0 s');
    expect(stderr()).toContain('downstream resources listing failed; listing again in 1.0 s');
    expect(stderr()).toMatch(/downstream prompts listed/);
    // Listed again on the same connection: the server was not restarted for it.
    expect(stderr()).not.toContain('downstream ready again');

    const prompt = (await client.listPrompts()).prompts.find((p) => p.name.endsWith('late_prompt'))!;
    const got = await client.getPrompt({ name: prompt.name });
    expect(got.messages[0]!.content).toMatchObject({ type: 'text', text: 'a late prompt' });
    const resource = (await client.listResources()).resources.find((r) => r.name === 'late')!;
    const read = await client.readResource({ uri: resource.uri });
    expect(read.contents[0]).toMatchObject({ text: 'a late resource' });
  });
});
