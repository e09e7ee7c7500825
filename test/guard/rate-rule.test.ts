/**
 * A rate per tool in the book (issue #28): `policy add "<tool> at most N times per minute"` writes a `rate`
 * predicate and rule; the guard counts each identity's allowed calls of that tool in a sliding window kept in the
 * store beside the burst window (a real SQLite file), refuses the call over the limit with a retry-after (source
 * `rate`), and never treats it as threat: τ stays where it was and the agent is never quarantined.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addSentence } from '../../src/cli/policy-add.js';
import { InteractionSchema } from '../../src/core/types.js';
import { prepareBook } from '../../src/guard/build.js';
import { GuardPipeline } from '../../src/guard/pipeline.js';
import { openStore, type Store } from '../../src/store/db.js';
import { ROOT } from '../support/proxy-harness.js';

let dir: string;
let store: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'qg-rate-rule-'));
  cpSync(join(ROOT, 'policies', 'default'), join(dir, 'mine'), { recursive: true });
});
afterEach(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = (agent: string, tool = 'append_note') => InteractionSchema.parse({ kind: 'tool_call', agent, session: `s-${agent}`, server: 'notes', tool, arguments: { text: 'buy milk' } });

describe('a rate per tool', () => {
  it('N calls pass, the next is refused with a retry-after and the rule named; no threat, no quarantine; each identity and tool has its own count; the window slides', async () => {
    const added = await addSentence(join(dir, 'mine'), 'notes__append_note at most 3 times per minute');
    expect(added.rule.shape).toBe('a rate per tool');
    expect(added.yaml).toContain('type: rate');
    const ruleId = added.rule.rule.id;
    const { book, index } = await prepareBook(join(dir, 'mine'));
    store = openStore(join(dir, 'state.db'));
    let clock = Date.parse('2026-11-26T10:00:00Z');
    const guard = new GuardPipeline({ book, index, store, now: () => clock });

    for (let k = 0; k < 3; k++) expect((await guard.check(call('alice'))).decision).toBe('allow');
    const over = await guard.check(call('alice'));
    expect(over.decision).toBe('deny');
    expect(over.source).toBe('rate');
    expect(over.rules).toEqual([ruleId]);
    expect(over.rationale).toMatch(/call 4 of notes__append_note by agent "alice" in the last minute, above the limit of 3; it was not sent and may be retried in \d+ s/);
    expect((over.detail as { retryAfterMs?: number }).retryAfterMs).toBeGreaterThan(0);

    // Rate is not threat: thirty more refused calls leave τ at 0 and the agent free.
    for (let k = 0; k < 30; k++) expect((await guard.check(call('alice'))).source).toBe('rate');
    const threat = await guard.store.state.getThreat('alice');
    expect(threat.tau).toBe(0);
    expect(threat.quarantined).toBe(false);

    // Another identity, and another tool of the same agent, are counted apart.
    expect((await guard.check(call('bob'))).decision).toBe('allow');
    expect((await guard.check(call('alice', 'list_notes'))).decision).toBe('allow');

    // Refused calls did not count: once the minute has passed, alice may call again.
    clock += 61_000;
    expect((await guard.check(call('alice'))).decision).toBe('allow');
  });

  it('the sentence shapes it reads, and a rate too large for its test case', async () => {
    const { compileSentence } = await import('../../src/policy/sentence.js');
    for (const [s, max, per] of [
      ['send_email at most 10 times per hour', 10, 'hour'],
      ['mail__send_email may be called no more than 5 times a minute', 5, 'minute'],
      ['At most 20 calls to github__create_issue per day', 20, 'day'],
      ['Limit search to 100 per day', 100, 'day'],
    ] as const) {
      const r = compileSentence(s);
      expect(r?.shape, s).toBe('a rate per tool');
      expect(r?.predicates[0]?.detectors).toEqual([expect.objectContaining({ type: 'rate', max, per })]);
    }
    expect(() => compileSentence('send_email at most 5000 times per day')).toThrow(/up to 500 per day[\s\S]*type: rate/);
  });
});
