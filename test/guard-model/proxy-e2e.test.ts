import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { connectStdio, makeSandbox, server, writeConfig } from '../support/proxy-harness.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { is, roleOf, updates } from './helpers.js';

const DECISION_KEY = 'io.github.quadguard/decision';
const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

/** A one-rule book over a semantic predicate of the workspace's publish tool. */
const book = {
  name: 'e2e-semantic',
  version: '1.0.0',
  predicates: [
    {
      name: 'defamatory_content',
      description: 'The text to publish makes damaging false claims about a named person.',
      keywords: ['defamation', 'slander', 'libel'],
      scope: 'action',
      tools: ['ws__publish'],
    },
  ],
  rules: [
    {
      id: 'no-defamation',
      text: 'Never publish defamatory claims about a person.',
      applies_to: ['tool_call'],
      formula: '!defamatory_content',
      severity: 'high',
      hard: true,
      remediation: 'Publish only claims you can support, or leave the person unnamed.',
    },
  ],
};

describe('quadguard serve with llm: a semantic rule decided by the model through the proxy (stdio)', () => {
  const sb = makeSandbox();
  let llm: ScriptedLlmServer;
  let client: Client;
  let stderr: () => string;

  beforeAll(async () => {
    llm = await startScriptedLlmServer();
    llm.when(is('tracker', 'light'), (body) =>
      // only the new interaction counts: the observations repeat earlier ones
      JSON.stringify(JSON.parse(body.messages[1].content).interaction).includes('is a thief') ? updates(['defamatory_content', true, 0.93]) : updates(),
    );
    const bookDir = join(sb.dir, 'book');
    mkdirSync(bookDir);
    writeFileSync(join(bookDir, 'book.yaml'), YAML.stringify(book));
    const cfg = writeConfig(sb.dir, {
      servers: { ws: server('workspace', '--root', sb.workspace) },
      policy: bookDir,
      store: join(sb.dir, 'state.db'),
      llm: { base_url: llm.baseUrl, models: { light: 'light-m', strong: 'strong-m' }, timeout_ms: 3000, max_retries: 0 },
    });
    ({ client, stderr } = await connectStdio(cfg));
  }, 30_000);
  afterAll(async () => {
    await client?.close();
    await llm?.close();
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('denies a publish the model finds defamatory and lets a harmless one through', async () => {
    const bad = (await client.callTool({ name: 'ws__publish', arguments: { name: 'post.txt', content: 'Our neighbour John Smith is a thief and a fraud.' } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/^Blocked by QuadGuard: .*no-defamation.*defamatory_content/s);
    expect(bad._meta?.[DECISION_KEY]).toMatchObject({ decision: 'deny', rules: ['no-defamation'] });
    expect(existsSync(join(sb.workspace, 'public', 'post.txt'))).toBe(false);

    const ok = (await client.callTool({ name: 'ws__publish', arguments: { name: 'hello.txt', content: 'Hello, world.' } })) as CallToolResult;
    expect(ok.isError, text(ok)).not.toBe(true);
    expect(text(ok)).toContain('published hello.txt');

    const tracker = llm.chatRequests.filter((r) => roleOf(r.body) === 'tracker');
    expect(tracker).toHaveLength(2);
    expect(tracker.every((r) => r.body.model === 'light-m')).toBe(true);
    expect(stderr()).toContain('model layer enabled');
  });
});
