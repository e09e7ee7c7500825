/**
 * Data-flow recording of large private reads (docs/data-flow.md): what `DataFlowStage.record` costs for a read of
 * 1 and 8 MB (fingerprints, short values, one store transaction), and its two text passes alone: the bounded gram
 * fingerprints (`ofBounded`, 4096 kept) and the short values (`distinctiveValues`). The text mixes prose, code and
 * tables like bench/large-result.ts; `--unicode` mixes in lines outside ASCII (the NFKC path). Medians of
 * `--rounds`, each round a different text (the stage skips a re-read of the same data). For sizes up to 2 MB, also
 * the other side: `inspect` of a send_email whose body is a text of that size (decoded views, fingerprints of the
 * first 2 MB, every piece that could be a short value, one store lookup), over the reads recorded so far.
 *
 *   npx tsx bench/flow-large.ts [--sizes 1,8] [--rounds 5] [--unicode]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createFingerprinter } from '../src/core/text/fingerprint.js';
import { distinctiveValues } from '../src/core/text/short-values.js';
import { InteractionSchema, makeDecision, type Interaction } from '../src/core/types.js';
import { buildGuard } from '../src/guard/build.js';
import { mixedText, ROOT } from './common.js';

const { values } = parseArgs({ options: { sizes: { type: 'string', default: '1,8' }, rounds: { type: 'string', default: '5' }, unicode: { type: 'boolean', default: false } } });
const sizes = values.sizes.split(',').map(Number);
const rounds = Number(values.rounds);

const text = mixedText(values.unicode ? ['Überweisung für die Filiale in Zürich: ﬁnale Zahlen folgen, Σ der Posten wie besprochen — ΟΔΟΣ 12'] : []);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const dir = mkdtempSync(join(tmpdir(), 'qg-bench-flow-large-'));
try {
  const guard = await buildGuard({ policy: join(ROOT, 'policies', 'default'), store: join(dir, 'state.db'), settings: { audit: false, watcher: { quarantine: false, burst_threshold: 1e9 } } });
  const flow = guard.pipeline.dataflow;
  const fp = createFingerprinter(await guard.store.flow.key(), { k: flow.options.k, window: flow.options.window });
  const read = (t: string): Interaction => InteractionSchema.parse({ agent: 'bench', session: 's1', profile: {}, kind: 'tool_result', server: 'mail', tool: 'read_email', content: [{ type: 'text', text: t }] });
  const send = (body: string): Interaction =>
    InteractionSchema.parse({ agent: 'bench', session: 's2', profile: {}, kind: 'tool_call', server: 'mail', tool: 'send_email', arguments: { to: 'x@partner.example', subject: 'notes', body } });
  let id = 0;
  const record = (t: string) => flow.record(read(t), makeDecision({ decision: 'allow', rationale: 'bench', auditId: `r-${id++}` }));
  for (let i = 0; i < 20; i++) await record(text(64 * 1024));
  console.log(`node ${process.version}; data-flow record of a private read (max_per_read ${flow.options.max_per_read}), ${values.unicode ? 'with' : 'no'} text outside ASCII; median of ${rounds}`);
  for (const mb of sizes) {
    const base = text(mb * 1024 * 1024);
    const times = { record: [] as number[], fingerprints: [] as number[], values: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      const t = `round ${r} of ${mb} MB ${Date.now()}\n${base}`;
      let t0 = performance.now();
      fp.ofBounded(t, flow.options.max_per_read);
      times.fingerprints.push(performance.now() - t0);
      t0 = performance.now();
      distinctiveValues(t);
      times.values.push(performance.now() - t0);
      t0 = performance.now();
      await record(t);
      times.record.push(performance.now() - t0);
    }
    const ms = median(times.record);
    console.log(
      `${String(mb).padStart(3)} MB read: record ${ms.toFixed(1).padStart(7)} ms (${(mb / (ms / 1000)).toFixed(0)} MB/s); alone: fingerprints ${median(times.fingerprints).toFixed(1)} ms, short values ${median(times.values).toFixed(1)} ms`,
    );
    if (mb > 2) continue;
    const sends: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const i = send(`send ${r} of ${mb} MB ${Date.now()}\n${base}`);
      const t0 = performance.now();
      const out = await flow.inspect(i);
      sends.push(performance.now() - t0);
      if (out.flow?.leak === undefined) throw new Error('the benchmark send, a text read before, was not found');
    }
    const sm = median(sends);
    console.log(`${String(mb).padStart(3)} MB send: inspect ${sm.toFixed(1).padStart(7)} ms (${(mb / (sm / 1000)).toFixed(0)} MB/s)`);
  }
  await guard.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
