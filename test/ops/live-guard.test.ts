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
    const inflight = live.run(async () => {
      const first = await live.guard.check(i);
      await gate; // the swap happens here, mid-request
      const second = await live.guard.check(i);
      await live.record(i, second);
      return [first.rationale, second.rationale, live.generation.extra];
    });
    live.swap(gen('new', seen));
    expect((await live.guard.check(i)).rationale).toBe('new');
    const fresh = live.run(async () => (await live.guard.check(i)).rationale);
    release();
    expect(await inflight).toEqual(['old', 'old', 'old']);
    expect(await fresh).toBe('new');
    expect(seen).toEqual(['old:old']);
  });

  it('pins an express request to the generation current when its handling starts', async () => {
    const live = new LiveGuard(gen('one', []));
    const seen: string[] = [];
    await new Promise<void>((done) =>
      live.pin({} as never, {} as never, () => {
        live.swap(gen('two', []));
        void live.guard.check(i).then((d) => {
          seen.push(d.rationale);
          done();
        });
      }),
    );
    expect(seen).toEqual(['one']);
    expect((await live.guard.check(i)).rationale).toBe('two');
  });
});
