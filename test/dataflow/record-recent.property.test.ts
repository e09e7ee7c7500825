import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { makeDecision, type Interaction } from '../../src/core/types.js';
import { CapabilityMap } from '../../src/guard/capabilities.js';
import { DataFlowStage } from '../../src/guard/dataflow.js';
import type { FlowStore } from '../../src/store/flow.js';

/**
 * `DataFlowStage.record` finds a recent read of the same text without fingerprinting it again (a map from the text
 * to the entry its fingerprints give). Against the stage that fingerprints every read (`textKeyMaxChars: 0`, the
 * computation as it was), every sequence of reads writes exactly the same reads, fingerprints and expiries.
 */
const TEXT = 'The merger with Borealis Labs closes on the third of March; keep the price of 41 million to the board.';
const TEXTS = [
  TEXT,
  TEXT.toUpperCase(), // the same fingerprints under another text
  TEXT.replace(/ /g, '  '),
  'Quarterly figures: revenue 12.4 million, churn 3.1 percent, contact ops@example.org for the full sheet.',
  'ok', // no fingerprints at all
  `${TEXT} ${'Another long paragraph of the letter, with more to say about Borealis. '.repeat(6)}`, // longer than a small text-key limit
];

function recordingStore(log: string[]): FlowStore {
  return {
    key: async () => Buffer.alloc(32, 3),
    recordRead: async (agent, source, fingerprints, expires) => {
      log.push(JSON.stringify({ agent, source, fingerprints, expires }));
    },
    match: async () => [],
    sweep: async (now) => {
      log.push(`sweep ${now}`);
      return 0;
    },
  };
}

const step = fc.record({
  agent: fc.constantFrom('a', 'b'),
  session: fc.constantFrom('s1', 's2'),
  text: fc.integer({ min: 0, max: TEXTS.length - 1 }),
  dt: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 0, max: 70_000 })),
  allowed: fc.boolean(),
});

describe('data-flow record: a re-read found by its text', () => {
  it('writes exactly what fingerprinting every read writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), fc.constantFrom(1_000, 50_000, 3_600_000), fc.constantFrom(undefined, 200), async (steps, ttl, limit) => {
        const caps = new CapabilityMap({ tools: [{ match: ['*__read_email'], labels: ['private_source'] }], unlabelled: [] });
        let now = 10_000_000;
        const want: string[] = [];
        const got: string[] = [];
        const reference = new DataFlowStage({ store: recordingStore(want), capabilities: caps, options: { ttl_ms: ttl }, now: () => now, logger: silentLogger(), textKeyMaxChars: 0 });
        const stage = new DataFlowStage({ store: recordingStore(got), capabilities: caps, options: { ttl_ms: ttl }, now: () => now, logger: silentLogger(), ...(limit !== undefined ? { textKeyMaxChars: limit } : {}) });
        let n = 0;
        for (const s of steps) {
          now += s.dt;
          const i: Interaction = { agent: s.agent, session: s.session, profile: {}, kind: 'tool_result', server: 'mail', tool: 'read_email', content: [{ type: 'text', text: TEXTS[s.text]! }] };
          const d = makeDecision({ decision: s.allowed ? 'allow' : 'deny', rationale: 'r', auditId: String(++n) });
          await reference.record(i, d);
          await stage.record(i, d);
        }
        expect(got).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });
});
