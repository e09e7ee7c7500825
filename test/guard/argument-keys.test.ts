/**
 * Object keys in tool arguments reach the server as surely as values do (`{"headers": {"<key>": "1"}}`, a JSON body,
 * metadata). The detectors read the arguments' string leaves and the data-flow stage their values: keys were read by
 * neither, so a credential, a card number or private data an agent had read went out as a key, allowed. Under the
 * default book, in process; fails before the keys became a field of the arguments (`<prefix>{keys}`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import '../../src/detectors/index.js';
import { selectFields, stringLeaves } from '../../src/core/fields.js';
import type { Interaction } from '../../src/core/types.js';
import { buildGuard, type BuiltGuard } from '../../src/guard/build.js';

const DEFAULT_BOOK = join(import.meta.dirname, '../../policies/default');
const LETTER = 'Dear Ann, the merger with Borealis Labs closes on the third of March; the wire goes to account 7731-5519-2284 and the price stays at 41 million. Keep this to the board.';

describe('argument keys are inspected', () => {
  it('stringLeaves gives every key under the value, one per line, after the leaves', () => {
    expect(stringLeaves({ a: 'x', b: { c: [1, { d: true }] } }, 'arguments')).toEqual([
      { field: 'arguments.a', text: 'x' },
      { field: 'arguments.b.c.0', text: '1' },
      { field: 'arguments.b.c.1.d', text: 'true' },
      { field: 'arguments{keys}', text: 'a\nb\nc\nd' },
    ]);
    expect(stringLeaves('plain', 'arguments.x')).toEqual([{ field: 'arguments.x', text: 'plain' }]);
    const call: Interaction = { kind: 'tool_call', agent: 'a', session: 's', profile: {}, tool: 't', arguments: { h: { k1: 'v' } } };
    expect(selectFields(call, 'arguments.h').map((f) => f.text)).toEqual(['v', 'k1']);
  });

  describe('under the default book', () => {
    let guard: BuiltGuard;
    let n = 0;
    const send = (args: Record<string, unknown>, agent = `agent-${++n}`) =>
      guard.pipeline.check({ agent, session: `s-${agent}`, profile: {}, kind: 'tool_call', server: 'mail', tool: 'send_email', arguments: { to: 'x@elsewhere.example', subject: 'fyi', body: 'see the metadata', ...args } });
    beforeAll(async () => {
      guard = await buildGuard({ policy: DEFAULT_BOOK, store: ':memory:' });
    });
    afterAll(async () => guard?.close());

    it.each([
      ['an AWS key', { headers: { AKIAIOSFODNN7EXAMPLE: '1' } }, 'no-secret-leak'],
      ['a GitHub token, nested', { meta: { labels: [{ ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789: true }] } }, 'no-secret-leak'],
      ['a card number', { meta: { 'card 4111 1111 1111 1111': true } }, 'no-pii-external'],
    ])('denies %s sent as a key', async (_what, args, rule) => {
      const d = await send(args);
      expect(d.decision).toBe('deny');
      expect(d.rules).toContain(rule);
    });

    it('denies private data read earlier and sent as a key (the letter whole, or its account number)', async () => {
      const agent = 'reader';
      const read = await guard.pipeline.check({ agent, session: 's-reader', profile: {}, kind: 'tool_result', server: 'mail', tool: 'read_email', content: [{ type: 'text', text: LETTER }] });
      expect(read.decision).toBe('allow');
      for (const meta of [{ [LETTER]: 1 }, { 'acct 7731-5519-2284': 1 }]) {
        const d = await send({ meta }, agent);
        expect(d.decision, JSON.stringify(meta).slice(0, 40)).toBe('deny');
        expect(d.rules).toContain('no-read-then-exfiltrate');
      }
    });

    it('allows ordinary keys (control)', async () => {
      expect((await send({ headers: { 'Content-Type': 'text/plain', 'X-Request-Id': '42' } })).decision).toBe('allow');
    });
  });
});
