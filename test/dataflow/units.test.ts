import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import fc from 'fast-check';
import { createFingerprinter, normaliseForFingerprint, winnow } from '../../src/core/text/fingerprint.js';
import { decodeWhole, unwrapViews } from '../../src/core/text/readings.js';
import { makeDecision, type Interaction } from '../../src/core/types.js';
import { CapabilityMap, labelsFromAnnotations } from '../../src/guard/capabilities.js';
import { DataFlowStage } from '../../src/guard/dataflow.js';
import { openStore } from '../../src/store/db.js';

const KEY = Buffer.alloc(32, 7);
const TEXT = 'The merger with Borealis Labs closes on the third of March; keep the price of 41 million to the board.';

describe('fingerprints', () => {
  it('ignore case, punctuation and spacing', () => {
    const f = createFingerprinter(KEY);
    expect(f.of(TEXT)).toEqual(f.of(TEXT.toUpperCase().replace(/ /g, '\n  ').replace(/;/g, '')));
    expect(normaliseForFingerprint('Ünïcode, ＦＵＬＬ-width!')).toBe('ünïcodefullwidth');
  });

  it('winnowing guarantees a shared fingerprint for any shared run of k + window - 1 characters', () => {
    const opts = { k: 20, window: 12 };
    const s = normaliseForFingerprint(TEXT);
    const picks = new Set(winnow(s, opts, 1).map((at) => s.slice(at, at + opts.k)));
    for (let start = 0; start + opts.k + opts.window - 1 <= s.length; start++) {
      const run = s.slice(start, start + opts.k + opts.window - 1);
      expect(winnow(run, opts, 1).some((at) => picks.has(run.slice(at, at + opts.k))), run).toBe(true);
    }
  });

  it('normalise ASCII on the fast path exactly as the Unicode path does', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii', maxLength: 200 }), (t) => {
        expect(normaliseForFingerprint(t)).toBe(t.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ''));
      }),
      { numRuns: 500 },
    );
  });

  it('bounded: a sorted subset of all fingerprints, all of them when few', () => {
    const f = createFingerprinter(KEY);
    const word = fc.constantFrom('merger', 'Borealis', 'price', 'board', '41', 'million', 'March', 'the', 'ÜBER', 'straße', '—', '\n');
    fc.assert(
      fc.property(fc.array(word, { minLength: 5, maxLength: 300 }), fc.integer({ min: 1, max: 40 }), (words, max) => {
        const text = words.join(' ');
        const all = f.of(text);
        const kept = f.ofBounded(text, max);
        expect(kept).toEqual([...kept].sort());
        expect(kept.length).toBeLessThanOrEqual(max);
        for (const h of kept) expect(all).toContain(h);
        if (all.length <= max) expect(kept).toEqual([...all].sort());
      }),
      { numRuns: 300 },
    );
  });

  it('bounded: a passage of a long read still meets the kept sample', () => {
    const f = createFingerprinter(KEY);
    let seed = 11;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const words = 'ledger harbour kernel payroll vendor forecast invoice quarter margin salary ticket upgrade'.split(' ');
    const read = Array.from({ length: 40_000 }, () => `${words[Math.floor(rand() * words.length)]} ${Math.floor(rand() * 1000)}`).join(' ');
    const kept = new Set(f.ofBounded(read, 256));
    expect(kept.size).toBe(256);
    // A tenth of the read, sent on its own, carries about a tenth of the kept sample.
    const passage = read.slice(100_000, 100_000 + read.length / 10);
    const shared = f.of(passage).filter((h) => kept.has(h)).length;
    expect(shared).toBeGreaterThanOrEqual(8);
  });

  it('depend on the key, and a short common phrase has none', () => {
    expect(createFingerprinter(KEY).of(TEXT)).not.toEqual(createFingerprinter(Buffer.alloc(32, 8)).of(TEXT));
    expect(createFingerprinter(KEY).of('Thanks, best regards')).toEqual([]);
  });
});

describe('decoded views', () => {
  it('read URLs by their decoded path and query, and base64 and hex runs', () => {
    const views = unwrapViews(`https://x.example/a%20b?q=${encodeURIComponent('hello there')}&z=${Buffer.from('secret plans here').toString('base64url')}`);
    expect(views).toEqual(expect.arrayContaining(['/a b', 'hello there', 'secret plans here']));
    expect(unwrapViews(`note ${Buffer.from('the hidden text!').toString('hex')}`)).toContain('the hidden text!');
    expect(decodeWhole(encodeURIComponent(Buffer.from('nested payload').toString('base64')))).toBe('nested payload');
    expect(decodeWhole('Reminder')).toBe('Reminder');
  });
});

describe('capability labels', () => {
  it('follow MCP annotations and their defaults', () => {
    expect(labelsFromAnnotations({ readOnlyHint: true })?.labels).toEqual(['private_source']);
    expect(labelsFromAnnotations({ readOnlyHint: true, openWorldHint: true })?.labels).toEqual(['private_source', 'network_fetch', 'untrusted_source']);
    expect(labelsFromAnnotations({ destructiveHint: true, openWorldHint: false })?.labels).toEqual(['file_write', 'deletion']);
    expect(labelsFromAnnotations({ openWorldHint: true })?.labels).toEqual(['external_send']);
    expect(labelsFromAnnotations({ destructiveHint: false })?.labels).toEqual(['external_send']);
    expect(labelsFromAnnotations({ readOnlyHint: false, openWorldHint: false })?.labels).toEqual(['file_write']);
    expect(labelsFromAnnotations({ idempotentHint: true })).toBeUndefined();
    expect(labelsFromAnnotations(undefined)).toBeUndefined();
  });

  it('come from the config, then the book, then annotations, then `unlabelled`', () => {
    const map = new CapabilityMap({ tools: [{ match: ['*__send_*'], labels: ['external_send'] }], unlabelled: ['inert'] }, [{ server: 'mail', match: 'send_internal', labels: ['inert'] }]);
    map.recordTools('hook', [{ name: 'deliver', annotations: { openWorldHint: true } }, { name: 'send_x', annotations: { readOnlyHint: true } }]);
    expect(map.labelsOf('mail', 'send_internal')).toMatchObject({ labels: ['inert'], origin: 'config' });
    expect(map.labelsOf('mail', 'send_email')).toMatchObject({ labels: ['external_send'], origin: 'book', because: '*__send_*' });
    expect(map.labelsOf('hook', 'send_x')).toMatchObject({ origin: 'book' });
    expect(map.labelsOf('hook', 'deliver')).toMatchObject({ labels: ['external_send'], origin: 'annotations' });
    expect(map.labelsOf('hook', 'unknown')).toMatchObject({ labels: ['inert'], origin: 'unlabelled' });
  });
});

describe('the data-flow stage and store', () => {
  const read = (agent: string, text: string): Interaction => ({ agent, session: 's1', profile: {}, kind: 'tool_result', server: 'mail', tool: 'read_email', content: [{ type: 'text', text }] });
  const send = (agent: string, body: string): Interaction => ({ agent, session: 's9', profile: {}, kind: 'tool_call', server: 'mail', tool: 'send_email', arguments: { to: 'x@y.example', body } });
  const allow = (auditId: string) => makeDecision({ decision: 'allow', rationale: 'ok', auditId });

  it('keeps fingerprints across a restart, and forgets them after the time to live', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qg-flow-'));
    let now = 1_000_000;
    const caps = new CapabilityMap({ tools: [{ match: ['*__read_email'], labels: ['private_source'] }, { match: ['*__send_email'], labels: ['external_send'] }], unlabelled: [] });
    try {
      let store = openStore(join(dir, 'state.db'));
      let stage = new DataFlowStage({ store: store.flow, capabilities: caps, options: { ttl_ms: 1000 }, now: () => now, logger: silentLogger() });
      await stage.record(await stage.inspect(read('a', TEXT)), allow('42'));
      await store.close();

      store = openStore(join(dir, 'state.db'));
      stage = new DataFlowStage({ store: store.flow, capabilities: caps, options: { ttl_ms: 1000 }, now: () => now, logger: silentLogger() });
      const leak = (await stage.inspect(send('a', TEXT))).flow?.leak;
      expect(leak?.source).toMatchObject({ id: '42', tool: 'read_email', session: 's1' });
      now += 1001;
      expect((await stage.inspect(send('a', TEXT))).flow?.leak).toBeUndefined();
      expect(await store.flow.sweep(now)).toBe(1);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('treats a message an agent receives as its private data, and a denied read as no read', async () => {
    const store = openStore(':memory:');
    const stage = new DataFlowStage({ store: store.flow, capabilities: new CapabilityMap(undefined), logger: silentLogger() });
    const msg: Interaction = { agent: 'a', session: 's', profile: {}, kind: 'message', sender: 'a', recipient: 'b', content: TEXT };
    await stage.record(await stage.inspect(msg), allow('7'));
    expect((await stage.inspect(send('b', TEXT))).flow?.leak?.source).toMatchObject({ id: '7', kind: 'message' });
    expect((await stage.inspect(send('a', TEXT))).flow?.leak).toBeUndefined();
    // b may quote the message back to a, who sent it, but not pass it on to c.
    const reply = (to: string): Interaction => ({ agent: 'b', session: 't', profile: {}, kind: 'message', sender: 'b', recipient: to, content: `re: ${TEXT}` });
    expect((await stage.inspect(reply('a'))).flow?.leak).toBeUndefined();
    expect((await stage.inspect(reply('c'))).flow?.leak?.source.uri).toBe('agent:a');
    await stage.record(await stage.inspect(read('c', TEXT)), makeDecision({ decision: 'deny', rationale: 'no' }));
    expect((await stage.inspect(send('c', TEXT))).flow?.leak).toBeUndefined();
    await store.close();
  });

  it('stores a re-read of the same data once, and refreshes its one row once per refresh interval', async () => {
    const store = openStore(':memory:');
    let now = 5_000_000;
    const caps = new CapabilityMap({ tools: [{ match: ['*__read_email'], labels: ['private_source'] }, { match: ['*__send_email'], labels: ['external_send'] }], unlabelled: [] });
    let writes = 0;
    let refreshes = 0;
    const counting = Object.assign(Object.create(store.flow) as typeof store.flow, {
      recordRead: async (...a: Parameters<typeof store.flow.recordRead>) => {
        writes++;
        return await store.flow.recordRead(...a);
      },
      refresh: async (...a: Parameters<typeof store.flow.refresh>) => {
        const held = await store.flow.refresh(...a);
        if (held) refreshes++;
        return held;
      },
    });
    const stage = new DataFlowStage({ store: counting, capabilities: caps, options: { ttl_ms: 3_600_000 }, now: () => now, logger: silentLogger() });
    await stage.record(await stage.inspect(read('a', TEXT)), allow('1'));
    await stage.record(await stage.inspect(read('a', TEXT)), allow('2'));
    expect([writes, refreshes]).toEqual([1, 0]);
    // Another identity, or other data, is stored at once.
    await stage.record(await stage.inspect(read('b', TEXT)), allow('3'));
    await stage.record(await stage.inspect(read('a', `${TEXT} And the second paragraph of the letter says more.`)), allow('4'));
    expect([writes, refreshes]).toEqual([3, 0]);
    now += 60_001;
    await stage.record(await stage.inspect(read('a', TEXT)), allow('5'));
    expect([writes, refreshes]).toEqual([3, 1]);
    expect((await stage.inspect(send('a', TEXT))).flow?.leak?.source.id).toBe('5');
    await store.close();
  });
});
