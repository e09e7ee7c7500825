/**
 * Provenance at its bounds (docs/provenance.md), in process over a SQLite file: what `record` costs for an untrusted
 * read of a 20 KB page against a catalogue of 500 tools (the `max_tools` bound; stems and the embedder signal), for a
 * read with 2,048 steering values (the `max_values_per_read` bound) and for one with 100,000 (past it: kept up to the
 * bound, the identity marked overflowed), and what a consequential call costs after them: the whole pipeline, with
 * provenance on and, beside it, the same book with provenance off (the difference is what provenance adds). Medians
 * of `--rounds`, each round a different text (a new session and agent). Whether past-the-bound reads fail closed is
 * checked by test/provenance/provenance.test.ts, not here.
 *
 *   npx tsx bench/provenance.ts [--rounds 5]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Interaction } from '../src/core/types.js';
import { buildGuard } from '../src/guard/build.js';
import { ROOT } from './common.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
const rounds = Number(values.rounds);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const VERBS = ['send', 'update', 'delete', 'grant', 'transfer', 'create', 'invite', 'post', 'schedule', 'cancel'];
const OBJECTS = ['message', 'invoice', 'repository', 'calendar event', 'guest access', 'payment', 'ticket', 'note', 'file share', 'order'];

const dir = mkdtempSync(join(tmpdir(), 'qg-bench-provenance-'));
try {
  const guard = async (name: string, enabled: boolean) => {
    const g = await buildGuard({ policy: join(ROOT, 'policies', 'default'), store: join(dir, `${name}.db`), settings: { watcher: { quarantine: false, burst_threshold: 1e9 }, provenance: { enabled } } as never });
    // 500 tools: the max_tools bound, each with a verb, an object and a one-line description.
    g.capabilities.recordTools(
      'svc',
      Array.from({ length: 500 }, (_, k) => {
        const verb = VERBS[k % VERBS.length]!;
        const object = OBJECTS[Math.floor(k / VERBS.length) % OBJECTS.length]!;
        return { name: `${verb}_${object.replace(/ /g, '_')}_${k}`, description: `${verb[0]!.toUpperCase()}${verb.slice(1)}s a ${object} in workspace ${k}.`, inputSchema: { type: 'object', properties: { target: {}, note: {} } } };
      }),
    );
    return g;
  };
  const on = await guard('on', true);
  const off = await guard('off', false);
  const page = (r: number) =>
    Array.from({ length: 160 }, (_, k) => `Paragraph ${k} of round ${r}: the team reviewed the ${OBJECTS[k % OBJECTS.length]} and will ${VERBS[k % VERBS.length]} it next week, see ref-${r}-${k}.`).join(' ');
  const listing = (r: number, n: number) => Array.from({ length: n }, (_, k) => `ref${r}x${k}_q`).join(' ');
  const time = async (g: typeof on, i: Interaction): Promise<number> => {
    const t = performance.now();
    await g.pipeline.check(i);
    return performance.now() - t;
  };
  const read = (r: number, name: string, text: string): Interaction => ({ kind: 'tool_result', agent: `a${r}-${name}`, session: `s${r}-${name}`, profile: {}, server: 'web', tool: 'fetch', content: [{ type: 'text', text }] });
  const call = (r: number, name: string): Interaction => ({ kind: 'tool_call', agent: `a${r}-${name}`, session: `s${r}-${name}`, profile: {}, server: 'mail', tool: 'send_email', arguments: { to: `carol${r}@team.example`, subject: 'x', body: 'y' } });
  const cases: Array<[string, (r: number) => string]> = [
    ['20 KB page, 500-tool catalogue', (r) => page(r)],
    ['2,048 values (the bound)', (r) => listing(r, 2048)],
    ['100,000 values (past the bound)', (r) => listing(r, 100_000)],
  ];
  console.log(`node ${process.version}; the whole pipeline (default book) per interaction, median of ${rounds} rounds; shared machine, figures are noisy`);
  for (const [name, text] of cases) {
    const ms = { readOn: [] as number[], readOff: [] as number[], callOn: [] as number[], callOff: [] as number[] };
    let steered = '';
    for (let r = 0; r < rounds; r++) {
      // Taking turns, so a slow moment of the machine falls on both alike.
      ms.readOff.push(await time(off, read(r, name, text(r))));
      ms.readOn.push(await time(on, read(r, name, text(r))));
      ms.callOff.push(await time(off, call(r, name)));
      const t = performance.now();
      const d = await on.pipeline.check(call(r, name));
      ms.callOn.push(performance.now() - t);
      steered = (d.detail.provenance as { by?: string } | undefined)?.by ?? 'none';
    }
    const f = (xs: number[]) => median(xs).toFixed(1).padStart(7);
    console.log(`${name.padEnd(34)} read ${f(ms.readOn)} ms (off ${f(ms.readOff)})   then a send ${f(ms.callOn)} ms (off ${f(ms.callOff)}); provenance finding: ${steered}`);
  }
  await on.close();
  await off.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
