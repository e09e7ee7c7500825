import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { createFingerprinter } from '../../src/core/text/fingerprint.js';
import { makeDecision, type Interaction } from '../../src/core/types.js';
import { CapabilityMap } from '../../src/guard/capabilities.js';
import { DataFlowStage } from '../../src/guard/dataflow.js';
import { openStore } from '../../src/store/index.js';

/**
 * `DataFlowStage.record` keeps a text once per identity and origin (a keyed digest of the text): a re-read, in any
 * session, is not fingerprinted again and refreshes one row at most once a minute. Against a model of what was read
 * when, over every sequence of reads: a text read within `ttl - 1 min` is held for its reader and origin (its
 * fingerprints match a read from that origin), one not read for `ttl` is not, and another identity never holds it.
 */
const TEXT = 'The merger with Borealis Labs closes on the third of March; keep the price of 41 million to the board.';
/** Texts and the group of those with the same fingerprints (the same normalised text). */
const TEXTS: Array<[string, number]> = [
  [TEXT, 0],
  [TEXT.toUpperCase(), 0], // the same fingerprints under another text (another digest)
  ['Quarterly figures: revenue 12.4 million, churn 3.1 percent, contact ops@example.org for the full sheet.', 1],
  ['ok', 2], // no fingerprints at all
  [`Another long paragraph of the letter, with more to say about Borealis and its harbour in Tromsø. `.repeat(8), 3],
];
const SERVERS = ['mail', 'files'];
const REFRESH = 60_000;

const step = fc.record({
  agent: fc.constantFrom('a', 'b'),
  session: fc.constantFrom('s1', 's2'),
  server: fc.constantFrom(...SERVERS),
  text: fc.integer({ min: 0, max: TEXTS.length - 1 }),
  dt: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 0, max: 70_000 }), fc.integer({ min: 0, max: 4_000_000 })),
  allowed: fc.boolean(),
});

describe('data-flow record: a text held once per identity and origin', () => {
  it('holds what was read within the TTL, and nothing older', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), fc.constantFrom(1_000_000, 3_600_000), async (steps, ttl) => {
        const store = openStore(':memory:');
        try {
          const caps = new CapabilityMap({ tools: [{ match: ['*__read_*'], labels: ['private_source'] }], unlabelled: [] });
          let now = 10_000_000;
          const stage = new DataFlowStage({ store: store.flow, capabilities: caps, options: { ttl_ms: ttl }, now: () => now, logger: silentLogger() });
          const fp = createFingerprinter(await store.flow.key());
          /** (agent, server, group) → when last read (allowed). */
          const last = new Map<string, number>();
          let n = 0;
          for (const s of steps) {
            now += s.dt;
            const [text, group] = TEXTS[s.text]!;
            const i: Interaction = { agent: s.agent, session: s.session, profile: {}, kind: 'tool_result', server: s.server, tool: 'read_doc', content: [{ type: 'text', text }] };
            await stage.record(i, makeDecision({ decision: s.allowed ? 'allow' : 'deny', rationale: 'r', auditId: String(++n) }));
            if (s.allowed && fp.ofBounded(text, 4096).length > 0) last.set(JSON.stringify([s.agent, s.server, group]), now);
            for (const agent of ['a', 'b']) {
              for (const server of SERVERS) {
                for (const [t, g] of TEXTS) {
                  const prints = fp.ofBounded(t, 4096);
                  if (prints.length === 0) continue;
                  const held = (await store.flow.match(agent, prints, now)).some((m) => m.source.server === server);
                  const at = last.get(JSON.stringify([agent, server, g]));
                  if (at !== undefined && now - at < ttl - REFRESH) expect(held, `${agent} ${server} ${g} read ${now - at} ms ago`).toBe(true);
                  if (at === undefined || now - at >= ttl) expect(held, `${agent} ${server} ${g} ${at === undefined ? 'never read' : `read ${now - at} ms ago`}`).toBe(false);
                }
              }
            }
          }
        } finally {
          await store.close();
        }
      }),
      { numRuns: 100 },
    );
  });
});
