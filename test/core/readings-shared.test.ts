import { expect, it } from 'vitest';
import { readingsOf, SECRET_READINGS } from '../../src/core/text/readings.js';
import { encodedReadings } from '../../src/detectors/common.js';
import { InteractionSchema } from '../../src/core/types.js';

/**
 * A text is decoded once per consumer in a turn of the event loop: the secrets and PII detectors (and the masker)
 * read the same outgoing field's SECRET_READINGS views from one `readingsOf`, frozen so neither can change what the
 * other reads; the next turn decodes again.
 */
it('the detectors of one check share one decode of a field, and the next check decodes again', async () => {
  const text = `note ${Buffer.from('card 4111 1111 1111 1111 and key ghp_abcdefghijklmnopqrstuvwxyz0123456789').toString('base64')}`;
  const call = InteractionSchema.parse({ agent: 'a', session: 's', profile: {}, kind: 'tool_call', server: 'mail', tool: 'send', arguments: { body: text } });
  const first = readingsOf(text, SECRET_READINGS);
  expect(readingsOf(text, SECRET_READINGS)).toBe(first);
  expect(Object.isFrozen(first.views)).toBe(true);
  expect(() => (first.views as string[]).push('x')).toThrow();
  // What secrets and PII read (`encodedReadings`) is that decode, without the text itself.
  expect(encodedReadings(call, text).views).toEqual(first.views.slice(1));
  expect(first.views.some((v) => v.includes('ghp_'))).toBe(true);
  await new Promise((r) => setImmediate(r));
  const next = readingsOf(text, SECRET_READINGS);
  expect(next).not.toBe(first);
  expect(next).toEqual(first);
});
