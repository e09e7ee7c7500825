import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { makeDecision, type Interaction } from '../../src/core/types.js';
import { CapabilityMap } from '../../src/guard/capabilities.js';
import { DataFlowStage } from '../../src/guard/dataflow.js';
import type { FlowStore } from '../../src/store/flow.js';

/**
 * The re-read skip of `DataFlowStage.record` is keyed by (identity, session, text or fingerprints). The key must
 * name each part unambiguously: with a separator, identity "a\0b" in session "c" and identity "a" in session
 * "b\0c" shared a key, so the second identity's read of the same private text was skipped and never stored under
 * it (and a later send of that text by it went unseen). Fails before the key became self-delimiting.
 */
const TEXT = 'The merger with Borealis Labs closes on the third of March; keep the price of 41 million to the board.';

describe('data-flow record: the re-read skip is per identity and session', () => {
  it.each([0, undefined])('stores the read for each (identity, session), however their names split (text key limit %s)', async (limit) => {
    const stored: string[] = [];
    const store: FlowStore = {
      key: async () => Buffer.alloc(32, 3),
      recordRead: async (agent) => void stored.push(agent),
      match: async () => [],
      sweep: async () => 0,
    };
    const caps = new CapabilityMap({ tools: [{ match: ['*__read_email'], labels: ['private_source'] }], unlabelled: [] });
    const stage = new DataFlowStage({ store, capabilities: caps, now: () => 1_000_000, logger: silentLogger(), ...(limit !== undefined ? { textKeyMaxChars: limit } : {}) });
    const read = (agent: string, session: string): Interaction => ({ agent, session, profile: {}, kind: 'tool_result', server: 'mail', tool: 'read_email', content: [{ type: 'text', text: TEXT }] });
    const allow = makeDecision({ decision: 'allow', rationale: 'r', auditId: '1' });
    await stage.record(read('a\0b', 'c'), allow);
    await stage.record(read('a', 'b\0c'), allow);
    await stage.record(read('a', 'b\0c'), allow); // a true re-read: skipped
    expect(stored).toEqual(['a\0b', 'a']);
  });
});
