import { afterEach, describe, expect, it } from 'vitest';
import type { Decision, DecisionDetail } from '../../../src/core/types.js';
import { audit, quarantineGate, referee, stamp, tracking, watcher } from '../../../src/guard/stages/index.js';
import { envFor, interaction, through } from './support.js';

// The referee stage's decision as the former spread made it (54834e0: `{ ...verdict.decision, detail }`); withKey itself: test/core/with-key.test.ts.
const formerWithDetail = (d: Decision, detail: DecisionDetail): Decision => ({ ...d, detail });

/** Every own key (strings, integer-like ones first, and symbols), in order, with its descriptor; and the prototype. */
const shape = (o: object) => ({ proto: Object.getPrototypeOf(o) as unknown, keys: Reflect.ownKeys(o).map((k) => [k, Object.getOwnPropertyDescriptor(o, k)]) });

describe("the referee stage's decision with the pipeline's detail", () => {
  describe('through the stages', () => {
    let env: Awaited<ReturnType<typeof envFor>>;
    afterEach(() => env.close());

    it('gives the decision, stamped and recorded, the keys in the order the spread gave them', async () => {
      env = await envFor();
      for (const i of [
        interaction({ kind: 'tool_call', server: 'files', tool: 'read_file', arguments: { path: 'notes.txt' } }),
        interaction({ kind: 'tool_call', server: 'files', tool: 'delete_file', arguments: { path: '/etc/passwd' } }),
      ]) {
        const ctx = await through(env, i, [quarantineGate, tracking, watcher, referee]);
        const verdict = ctx.verdict!;
        const former = formerWithDetail(verdict.decision, ctx.decision!.detail);
        expect(shape(ctx.decision!)).toEqual(shape(former));
        await stamp.run(ctx, env);
        await audit.run(ctx, env);
        expect(Object.keys(ctx.decision!)).toEqual([...Object.keys(former), 'policy', 'elapsedMs', 'auditId']);
      }
    });
  });
});
