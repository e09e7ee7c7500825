/**
 * Where a long result's detector pass goes: each detector the default book runs on a tool result, timed alone (CPU
 * of this thread) on the 10 MB text of bench/large-result.ts and on its 1.3 MB base64 result, in book order within
 * one turn as a pool worker runs them (pool-worker.ts `evaluate`), so a cost shared through a per-turn cache (the
 * text's scan, one decode of a reading) is paid by the first detector that asks. Beside them, the pool's other jobs
 * for a long read on the same text: a private read's hashes (`readHashes`) and the audit row (`auditFields`).
 *
 *   npx tsx bench/detector-split.ts [--mb 10] [--base64-mb 1.3] [--corpus-mb 4] [--rounds 3] [--against DIR]
 *
 * `--corpus-mb` adds a third text: the injection corpus's benign texts (mails, pages, READMEs, security articles:
 * URLs, `password`, `token` and quoted phrases, look-alikes) joined to that size, the realistic worst case for the
 * readings and the secrets formats (the mixed text holds none of their hints); 0 leaves it out.
 *
 * `--against DIR` also loads DIR's sources (another checkout, e.g. main before a change) and alternates the two
 * round by round on the same texts; each detector's answer must be the same from both (else the bench fails).
 * Run under `node --cpu-prof` (`node --cpu-prof --import tsx bench/detector-split.ts`) for the functions inside.
 */
import { pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCorpus } from '../test/fixtures/injection/corpus.js';
import { mixedText, ROOT } from './common.js';

const { values } = parseArgs({
  options: { mb: { type: 'string', default: '10' }, 'base64-mb': { type: 'string', default: '1.3' }, 'corpus-mb': { type: 'string', default: '4' }, rounds: { type: 'string', default: '3' }, against: { type: 'string' } },
});
const rounds = Number(values.rounds);

interface Tree {
  label: string;
  detectors: Array<{ label: string; run: (i: unknown) => unknown }>;
  parse: (x: unknown) => unknown;
  turnEnd: () => Promise<void>;
}

/** The default book's detectors for a tool result, loaded from the sources under `root`. */
async function treeOf(root: string, label: string): Promise<Tree> {
  const mod = async <T>(p: string): Promise<T> => (await import(pathToFileURL(join(root, p)).href)) as T;
  await mod('src/detectors/index.ts');
  const { loadBook } = await mod<typeof import('../src/policy/load.js')>('src/policy/load.ts');
  const { predicateApplies } = await mod<typeof import('../src/policy/evaluate.js')>('src/policy/evaluate.ts');
  const { InteractionSchema } = await mod<typeof import('../src/core/types.js')>('src/core/types.ts');
  const { compiled } = await loadBook(join(root, 'policies', 'default'));
  const probe = InteractionSchema.parse({ agent: 'b', session: 's', profile: {}, kind: 'tool_result', server: 'fs', tool: 'read_file', content: [{ type: 'text', text: 'x' }] });
  const detectors: Tree['detectors'] = [];
  for (const p of compiled.predicates) {
    if (!predicateApplies(p, probe)) continue;
    p.detectors.forEach((d, k) => detectors.push({ label: `${p.name}[${k}] ${d.name}`, run: d as (i: unknown) => unknown }));
  }
  return { label, detectors, parse: (x) => InteractionSchema.parse(x), turnEnd: () => new Promise((r) => setImmediate(r)) };
}

const cpuMs = (f: () => unknown): [number, unknown] => {
  const t0 = process.cpuUsage();
  const out = f();
  const d = process.cpuUsage(t0);
  return [(d.user + d.system) / 1000, out];
};

const trees = [await treeOf(ROOT, 'this')];
if (values.against) trees.unshift(await treeOf(resolve(values.against), 'against'));

const text = mixedText();
const b64Chars = Math.round(Number(values['base64-mb']) * 1024 * 1024);
const cases: Array<[string, string]> = [[`${values.mb} MB mixed`, text(Number(values.mb) * 1024 * 1024 - 256)]];
if (b64Chars > 0) cases.push([`${values['base64-mb']} MB base64`, Buffer.from(text(Math.floor((b64Chars * 3) / 4)), 'utf8').toString('base64').slice(0, b64Chars)]);
const corpusChars = Math.round(Number(values['corpus-mb']) * 1024 * 1024);
if (corpusChars > 0) {
  const benign = loadCorpus('tuning').filter((r) => r.label === 'benign').map((r) => r.text);
  let corpus = '';
  for (let k = 0; corpus.length < corpusChars; k++) corpus += `${benign[k % benign.length]!}\n\n`;
  cases.push([`${values['corpus-mb']} MB corpus benign`, corpus.slice(0, corpusChars)]);
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

const raw = (t: string) => ({ agent: 'b', session: 's', profile: {}, kind: 'tool_result', server: 'fs', tool: 'read_file', content: [{ type: 'text', text: t }] });
// Warm-up: compile every detector's expressions on a small text.
for (const tree of trees) for (let r = 0; r < 5; r++) for (const d of tree.detectors) d.run(tree.parse(raw(text(64 * 1024))));

for (const [name, body] of cases) {
  const times = new Map<string, number[]>();
  for (let r = 0; r < rounds; r++) {
    // A flat copy with a round's own first line, so no per-text cache answers for it.
    const t = Buffer.from(`round ${r} ${Math.random()}\n${body}`).toString();
    const answers: string[] = [];
    for (const tree of r % 2 === 0 ? trees : [...trees].reverse()) {
      const i = tree.parse(raw(t));
      const got: string[] = [];
      let total = 0;
      for (const d of tree.detectors) {
        const [ms, out] = cpuMs(() => d.run(i));
        total += ms;
        got.push(JSON.stringify(out));
        const key = `${tree.label}\t${d.label}`;
        times.set(key, [...(times.get(key) ?? []), ms]);
      }
      times.set(`${tree.label}\tall detectors`, [...(times.get(`${tree.label}\tall detectors`) ?? []), total]);
      answers.push(got.join('\n'));
      await tree.turnEnd();
    }
    if (answers.length === 2 && answers[0] !== answers[1]) throw new Error(`${name}: the two trees' detectors answer differently`);
  }
  console.log(`${name}: CPU ms per detector, median of ${rounds} (book order, one turn)`);
  for (const [key, xs] of times) console.log(`  ${key.padEnd(60)} ${median(xs).toFixed(1).padStart(8)}   [${xs.map((x) => x.toFixed(0)).join(', ')}]`);
}
