/**
 * What the service layer adds to one guard check on the allow path, in-process (no I/O, so the figure is not lost in
 * the noise of a round trip): the metered guard (two performance.now(), a counter, a histogram observation), the
 * reload's swappable guard (a WeakMap lookup by the request's signal, set on its first check) and both together,
 * each around a guard that allows at once; the checks come in pairs (a call and its result) per request signal.
 * The budget is +0.05 ms per allowed call (issue 29).
 *
 *   npx tsx bench/metrics-cost.ts [calls=200000]
 */
import { makeDecision, type Guard, type Interaction } from '../src/core/types.js';
import { LiveGuard } from '../src/ops/live-guard.js';
import { createServiceMetrics, meteredGuard } from '../src/ops/metrics.js';

const N = Number(process.argv[2] ?? 200_000);
const allow = makeDecision({ decision: 'allow', rationale: 'ok', rules: [] });
const bare: Guard = { check: async () => allow };
const i = { kind: 'tool_call', agent: 'a', session: 's', server: 'ws', tool: 'read_file', arguments: {} } as unknown as Interaction;
const metrics = createServiceMetrics({ defaultMetrics: false });
const live = new LiveGuard({ guard: meteredGuard(bare, metrics), record: async () => {}, policyHash: 'x', extra: undefined });

async function time(name: string, g: Guard): Promise<number> {
  const run = async () => {
    let signal = new AbortController().signal;
    for (let k = 0; k < N; k++) {
      if (k % 2 === 0) signal = new AbortController().signal;
      await g.check(i, signal);
    }
  };
  await run(); // warm-up
  const t = performance.now();
  await run();
  const us = ((performance.now() - t) / N) * 1000;
  console.log(`${name.padEnd(44)} ${us.toFixed(3)} µs per check`);
  return us;
}

const base = await time('bare guard', bare);
const metered = await time('metered guard', meteredGuard(bare, metrics));
const both = await time('swappable + metered, pinned to the request', live.guard);
console.log(`added per allowed check: metrics ${(metered - base).toFixed(3)} µs, metrics + reload ${(both - base).toFixed(3)} µs (budget 50 µs)`);
