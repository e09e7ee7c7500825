import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { createValueHasher, distinctiveValues, isValueHash, outgoingPieces } from '../../src/core/text/short-values.js';
import { makeDecision, type Interaction } from '../../src/core/types.js';
import { CapabilityMap } from '../../src/guard/capabilities.js';
import { DataFlowStage } from '../../src/guard/dataflow.js';
import { openStore } from '../../src/store/db.js';

describe('distinctive short values of a private read', () => {
  it('keeps labelled secrets, digit-heavy numbers, digit groups and mixed ids', () => {
    const v = distinctiveValues(
      'Your password: Summer!24. PIN 482913. Account 7730 5521 0498, IBAN DE89 3704 0044 0532 0130 00. Ref A7F3K9Q2, customer no. 90417735. api_key=sk_live_4f9a2b',
    );
    expect(v).toEqual(expect.arrayContaining(['summer24', '482913', '773055210498', 'de89370400440532013000', 'a7f3k9q2', '90417735', 'sklive4f9a2b']));
  });

  it('keeps a labelled value after a label ending in a period (acct.: 12345678), even one no shape rule keeps', () => {
    for (const [text, value] of [
      ['acct.: 12345678', '12345678'],
      ['acct. 12345678', '12345678'],
      ['Account No.: 12345678', '12345678'],
      ['acct no. 12345678', '12345678'],
      ['PIN.: 482913', '482913'],
      ['password.: hunter22x', 'hunter22x'],
    ] as const) {
      expect(distinctiveValues(text), text).toEqual([value]);
    }
    // A label that ends a sentence takes no plain word after it.
    expect(distinctiveValues('Check your account. Please reset the password. Thanks')).toEqual([]);
  });

  it('keeps nothing of ordinary words and numbers', () => {
    const ordinary = [
      'The password is required. Please reset your password soon; the token expired.',
      'Meeting on 2026-11-22 at 10:30 (2026-11-22T10:30:00Z), or 22/11/2026; version 1.2.3 and 10.0.0.254; total $1,234,567.89; 3.14159265',
      'Dates 20261122 and 22112026, runs 12345678 and 87654321 and 00000000 and 11112222.',
      'Code: new Float32Array(8); sha256sum; utf8mb4; windows11; iPhone15; covid19; x86_64; base64url',
      'Table | 2024 | 2025 |\n| 1200 | 1450 |; phone ext 4411; 250 mg twice daily; room 12B',
    ];
    for (const t of ordinary) expect(distinctiveValues(t), t).toEqual([]);
  });

  it('cuts outgoing text so punctuation, spacing in a short field and grouping do not hide a value', () => {
    const pieces = outgoingPieces(['FYI the code is Summer-24!', 'h u n t e r 2 0 2 4', 'acct #7730-5521-0498 ok', 'iban de89370400440532013000']);
    expect(pieces).toEqual(expect.arrayContaining(['summer24', 'hunter2024', '773055210498', 'de89370400440532013000']));
    // Plain lower-case words are never looked up.
    expect(outgoingPieces(['a perfectly ordinary sentence about lunch and documents, nothing else at all here in it'])).toEqual([]);
  });

  it('hashes under a key of its own, marked apart from gram fingerprints', () => {
    const a = createValueHasher(Buffer.alloc(32, 1));
    const b = createValueHasher(Buffer.alloc(32, 2));
    expect(a('482913')).toMatch(/^t[0-9a-f]{16}$/);
    expect(a('482913')).not.toBe(b('482913'));
    expect(isValueHash(a('482913'))).toBe(true);
    expect(isValueHash('0123456789abcdef')).toBe(false);
  });
});

describe('the data-flow stage with short values', () => {
  const caps = new CapabilityMap({ tools: [{ match: ['*__read_email'], labels: ['private_source'] }, { match: ['*__send_email'], labels: ['external_send'] }], unlabelled: [] });
  const read = (agent: string, text: string): Interaction => ({ agent, session: 's1', profile: {}, kind: 'tool_result', server: 'mail', tool: 'read_email', content: [{ type: 'text', text }] });
  const send = (agent: string, body: string): Interaction => ({ agent, session: 's2', profile: {}, kind: 'tool_call', server: 'mail', tool: 'send_email', arguments: { to: 'x@y.example', body } });
  const MAIL = 'Hi, your new PIN is 482913 and the account is 7730 5521 0498. Regards, the bank';

  it('finds one short value sent after the read, and only for the identity that read it', async () => {
    const store = openStore(':memory:');
    const stage = new DataFlowStage({ store: store.flow, capabilities: caps, logger: silentLogger() });
    await stage.record(await stage.inspect(read('a', MAIL)), makeDecision({ decision: 'allow', rationale: 'ok', auditId: '5' }));
    for (const body of ['pin: 482913', 'The account: 7730-5521-0498.', 'acct 773055210498', Buffer.from('pin 482913').toString('base64')]) {
      expect((await stage.inspect(send('a', body))).flow?.leak, body).toMatchObject({ matched: 1, source: { id: '5' } });
    }
    expect((await stage.inspect(send('b', 'pin: 482913'))).flow?.leak).toBeUndefined();
    // Other numbers, and the ordinary words of the mail, are not the data.
    for (const body of ['pin: 482914', 'Hi, your new PIN is ready. Regards, the bank', 'meeting 2026-11-22 at 10:30']) {
      expect((await stage.inspect(send('a', body))).flow?.leak, body).toBeUndefined();
    }
    await store.close();
  });

  it('finds any one account of a list of a thousand read at once, not only the first 256 (fails before)', async () => {
    const store = openStore(':memory:');
    const stage = new DataFlowStage({ store: store.flow, capabilities: caps, logger: silentLogger() });
    const account = (n: number) => String(40_000_000 + ((n * 7919) % 1_000_003) * 37).padStart(10, '7');
    const list = Array.from({ length: 1000 }, (_, n) => `customer ${n + 1}, account ${account(n)}, since 2019`).join('\n');
    await stage.record(await stage.inspect(read('a', list)), makeDecision({ decision: 'allow', rationale: 'ok', auditId: '7' }));
    for (const n of [0, 255, 500, 999]) {
      expect((await stage.inspect(send('a', `the number is ${account(n)}`))).flow?.leak, `account ${n + 1}`).toMatchObject({ matched: 1, source: { id: '7' } });
    }
    // A number the list does not hold is not its data.
    expect((await stage.inspect(send('a', 'the number is 7345678912'))).flow?.leak).toBeUndefined();
    await store.close();
  });
});
