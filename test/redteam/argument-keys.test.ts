/**
 * Red team: a credential sent as an argument key. The built CLI with the default book in front of the workspace
 * server; `publish` writes a file into the public folder. A call whose arguments carry an AWS key as a key
 * (`{"AKIA…": "1"}`) was allowed (the detectors read only the values) and the file was published; it is denied now,
 * and nothing is published. Control: the same call without the key is published. A key in prompts/get arguments or
 * in a resource URI was allowed too (the book's secret rule governed tool calls and messages only).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metaDecision } from '../e2e/helpers.js';
import { guardedWorkspace, type GuardedWorkspace } from '../support/proxy-harness.js';


describe('red team: a credential sent as an argument key', () => {
  let ws: GuardedWorkspace;
  let publicDir: string;

  beforeAll(async () => {
    ws = await guardedWorkspace('qg-arg-keys-', {}, (dir) => {
      publicDir = join(dir, 'public');
      mkdirSync(publicDir);
      return ['--public', publicDir];
    });
  }, 60_000);

  afterAll(async () => {
    await ws?.close();
  });

  it('is denied, and nothing is published', async () => {
    const r = (await ws.client.callTool({ name: 'ws__publish', arguments: { name: 'leak.txt', content: 'hello', AKIAIOSFODNN7EXAMPLE: '1' } })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(metaDecision(r)?.rules).toContain('no-secret-leak');
    expect(existsSync(join(publicDir, 'leak.txt'))).toBe(false);
  }, 60_000);

  it('a key in prompts/get arguments or in a resource URI is denied too', async () => {
    await expect(ws.client.getPrompt({ name: 'ws__summarize_file', arguments: { path: 'AKIAIOSFODNN7EXAMPLE' } })).rejects.toThrow(/no-secret-leak/);
    await expect(ws.client.readResource({ uri: 'ws+workspace://files/ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789' })).rejects.toThrow(/no-secret-leak/);
  }, 60_000);

  it('the same call without the key is published (control)', async () => {
    const r = (await ws.client.callTool({ name: 'ws__publish', arguments: { name: 'plain.txt', content: 'hello' } })) as CallToolResult;
    expect(r.isError ?? false).toBe(false);
    expect(existsSync(join(publicDir, 'plain.txt'))).toBe(true);
  }, 60_000);
});
