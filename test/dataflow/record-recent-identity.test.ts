import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { makeDecision, type Interaction } from '../../src/core/types.js';
import { CapabilityMap } from '../../src/guard/capabilities.js';
import { DataFlowStage } from '../../src/guard/dataflow.js';
import { openStore, type FlowStore } from '../../src/store/index.js';

/**
 * The re-read skip of `DataFlowStage.record` is keyed by (identity, origin, digest of the text). The key must name
 * each part unambiguously: with a separator, identity "a\0b" reading from "c" and identity "a" reading from "b\0c"
 * shared a key, so the second identity's read of the same private text was skipped and never stored under it (and a
 * later send of that text by it went unseen). Fails before the key became self-delimiting.
 */
const TEXT = 'The merger with Borealis Labs closes on the third of March; keep the price of 41 million to the board.';

/** The store's calls, by name, around a real (in-memory SQLite) flow store. */
function counting(store: FlowStore, calls: string[]): FlowStore {
  return {
    key: () => store.key(),
    recordRead: (agent, ...rest) => (calls.push(`record ${agent}`), store.recordRead(agent, ...rest)),
    refresh: (agent, ...rest) => (calls.push(`refresh ${agent}`), store.refresh(agent, ...rest)),
    match: (...args) => store.match(...args),
    sweep: (...args) => store.sweep(...args),
  };
}

describe('data-flow record: the re-read skip', () => {
  const caps = new CapabilityMap({ tools: [{ match: ['*__read_email'], labels: ['private_source'] }], unlabelled: [] });
  const read = (agent: string, server: string, session = 's'): Interaction => ({ agent, session, profile: {}, kind: 'tool_result', server, tool: 'read_email', content: [{ type: 'text', text: TEXT }] });
  const allow = makeDecision({ decision: 'allow', rationale: 'r', auditId: '1' });

  it('stores the read for each (identity, origin), however their names split', async () => {
    const store = openStore(':memory:');
    const calls: string[] = [];
    const stage = new DataFlowStage({ store: counting(store.flow, calls), capabilities: caps, now: () => 1_000_000, logger: silentLogger() });
    await stage.record(read('a\0b', 'c'), allow);
    await stage.record(read('a', 'b\0c'), allow);
    await stage.record(read('a', 'b\0c'), allow); // a true re-read: skipped
    expect(calls).toEqual(['refresh a\0b', 'record a\0b', 'refresh a', 'record a']);
    await store.close();
  });

  it('fingerprints a text once for all sessions, then refreshes one row at most once a minute', async () => {
    const store = openStore(':memory:');
    const calls: string[] = [];
    let now = 1_000_000;
    const stage = new DataFlowStage({ store: counting(store.flow, calls), capabilities: caps, now: () => now, logger: silentLogger() });
    for (let n = 0; n < 16; n++) await stage.record(read('a', 'mail', `s${n}`), allow);
    expect(calls).toEqual(['refresh a', 'record a']);
    now += 61_000;
    for (let n = 0; n < 16; n++) await stage.record(read('a', 'mail', `s${n}`), allow);
    expect(calls).toEqual(['refresh a', 'record a', 'refresh a']);
    // A second process (another stage on the same store) finds the text held and refreshes it without fingerprinting.
    const other = new DataFlowStage({ store: counting(store.flow, calls), capabilities: caps, now: () => now, logger: silentLogger() });
    await other.record(read('a', 'mail'), allow);
    expect(calls.slice(3)).toEqual(['refresh a']);
    await store.close();
  });
});
