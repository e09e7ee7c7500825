/**
 * Red team: the data-flow check fingerprints at most 2 Mi characters of an outgoing call's text and readings. The
 * budget was spent in the order the readings were made, each field's decoded readings before the fields' own text;
 * so a large argument whose readings nest (base64 of base64 of base64: 1.7 times its length in readings), within
 * the default 1 MB argument limit, used the budget up, and private data in another argument of the same call was
 * never fingerprinted: the call was allowed (fails before). Now the fields' text comes first, readings that
 * normalise alike count once, and whatever the budget leaves unread makes a sink fail closed. Controls: a base64
 * text attachment of the same size and an unrelated send are allowed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRIVATE_MAIL as SECRET, privateReadThenSend } from './private-read.js';

const PROSE = 'The weather report for the coast says clear skies and light winds all week long. ';
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('red team: the data-flow budget spent on one argument', () => {
  let fixture: Awaited<ReturnType<typeof privateReadThenSend>>;
  const send = (args: Record<string, unknown>) => fixture.send(args);

  beforeAll(async () => {
    fixture = await privateReadThenSend();
  });
  afterAll(() => fixture.close());

  it('denies private data sent beside an argument whose nested readings fill the budget', async () => {
    const attachment = b64(b64(b64(PROSE.repeat(5150))));
    expect(JSON.stringify({ attachment, body: SECRET }).length).toBeLessThan(1_000_000);
    const d = await send({ attachment, body: `fyi: ${SECRET}` });
    expect(d.decision).toBe('deny');
    expect(d.rules).toContain('no-read-then-exfiltrate');
  });

  it('denies when readings are left unread, even without the private data in clear (fail closed)', async () => {
    // Twice nested and then once more as a second field: over 2 Mi characters of readings.
    const d = await send({ a: b64(b64(b64(PROSE.repeat(5150)))), b: b64(b64(b64(PROSE.repeat(10)))) });
    expect(d.decision).toBe('deny');
    expect(d.rules).toEqual(['no-read-then-exfiltrate']);
  });

  it('allows a large base64 text attachment and an unrelated send (controls)', async () => {
    const d = await send({ attachment: b64(PROSE.repeat(9000)), body: 'see attached' });
    expect(d.decision).toBe('allow');
    expect((await send({ body: 'Lunch tomorrow at noon?' })).decision).toBe('allow');
  });
});
