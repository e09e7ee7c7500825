import { describe, expect, it } from 'vitest';
import { makeDecision, type Decision, type Interaction } from '../../src/core/types.js';
import { LiveGuard, type GuardGeneration } from '../../src/ops/live-guard.js';

const gen = (name: string, seen: string[]): GuardGeneration<string> => ({
  guard: { check: async () => makeDecision({ decision: 'allow', rationale: name }) },
  record: async (_i: Interaction, d: Decision) => void seen.push(`${name}:${d.rationale}`),
  policyHash: name,
  extra: name,
});
const i = { kind: 'message', agent: 'a', session: 's', sender: 'a', recipient: 'b', content: 'x' } as unknown as Interaction;

describe('LiveGuard (reload)', () => {
  it('new requests get the new generation; a request started before the swap keeps its own to the end', async () => {
    const seen: string[] = [];
    const live = new LiveGuard(gen('old', seen));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const request = new AbortController().signal;
    const inflight = (async () => {
      const first = await live.guard.check(i, request);
      await gate; // the swap happens here, mid-request
      const second = await live.guard.check(i, request);
      await live.record(i, second, request);
      return [first.rationale, second.rationale, live.generationOf(request).extra];
    })();
    await Promise.resolve();
    live.swap(gen('new', seen));
    expect((await live.guard.check(i)).rationale).toBe('new');
    const fresh = (async () => (await live.guard.check(i, new AbortController().signal)).rationale)();
    release();
    expect(await inflight).toEqual(['old', 'old', 'old']);
    expect(await fresh).toBe('new');
    expect(seen).toEqual(['old:old']);
  });

  it('pins a request at its first check, not before: one checked only after the swap gets the new generation', async () => {
    const seen: string[] = [];
    const live = new LiveGuard(gen('one', seen));
    const request = new AbortController().signal;
    live.swap(gen('two', seen));
    expect((await live.guard.check(i, request)).rationale).toBe('two');
    live.swap(gen('three', seen));
    expect((await live.guard.check(i, request)).rationale).toBe('two');
    // A refusal recorded for the request goes to its own generation's recorder; one without a request to the newest.
    await live.record(i, makeDecision({ decision: 'deny', rationale: 'r' }), request);
    await live.record(i, makeDecision({ decision: 'deny', rationale: 's' }));
    expect(seen).toEqual(['two:r', 'three:s']);
  });
});
