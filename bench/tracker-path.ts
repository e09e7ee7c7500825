/**
 * The state tracker alone on the stdio allow path: an allowed `read_file` call (its path argument resolved first as
 * the proxy resolves it, the realpath answers shared with the detectors as `serve` shares them) and its result,
 * through `createTracker` over the default book, in a hot loop. Prints the CPU time per call + result, the median of
 * blocks; with `--against DIR` (another checkout, e.g. main's, with its `node_modules`) both run in this process,
 * block by block in alternation, and the paired difference is printed. CPU per call, not wall time: the machine's
 * load moves wall time by 2–3×.
 *
 *   npx tsx bench/tracker-path.ts [calls per block=2000] [--blocks 20] [--vary N] [--two-roots] [--against DIR]
 *
 * `--vary N`: a different one of N files (and result texts) on every call. `--two-roots`: the server's roots are
 * the bench's working directory and the workspace, so the relative path names a missing file under the first (as in
 * `bench/stdio-drive.ts`, whose server runs in the repository).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ROOT } from './common.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { blocks: { type: 'string', default: '20' }, vary: { type: 'string', default: '0' }, 'two-roots': { type: 'boolean', default: false }, against: { type: 'string' }, warmup: { type: 'string', default: '3000' } },
});
const CALLS = Number(positionals[0] ?? 2000);
const BLOCKS = Number(values.blocks);
const VARY = Number(values.vary);
const WARMUP = Number(values.warmup);
for (const [name, v] of [['calls', CALLS], ['--blocks', BLOCKS], ['--vary', VARY], ['--warmup', WARMUP]] as const) {
  if (!Number.isSafeInteger(v) || v < 0) throw new Error(`${name} must be a whole number, not ${String(v)}`);
}
if (CALLS < 1 || BLOCKS < 1) throw new Error('calls and --blocks must be at least 1');

const dir = mkdtempSync(join(tmpdir(), 'qg-tracker-'));
const ws = join(dir, 'ws');
mkdirSync(ws);
const files = VARY > 0 ? Array.from({ length: VARY }, (_, k) => `notes-${k}.txt`) : ['notes.txt'];
const texts = files.map((_, k) => (VARY > 0 ? `benchmark file ${k}: minutes of week ${k % 52}, action item ${(k * 7919) % 10007}\n` : 'benchmark file: meeting notes, nothing secret\n'));
files.forEach((f, k) => writeFileSync(join(ws, f), texts[k] as string));
const roots = values['two-roots'] ? [process.cwd(), ws] : [ws];

/** One call and its result through the tracker of the checkout at `root` (its src/, loaded by tsx). */
async function runner(root: string): Promise<(n: number) => Promise<void>> {
  const load = (p: string) => import(pathToFileURL(join(root, 'src', p)).href);
  await load('detectors/index.ts');
  const [{ InteractionSchema }, { prepareBook }, { createTracker }, { sharingRealPaths }, { resolvePathArguments }] = await Promise.all(
    ['core/types.ts', 'guard/book.ts', 'guard/tracker.ts', 'detectors/real-paths.ts', 'proxy/resolved-paths.ts'].map(load),
  );
  const { book, index } = await prepareBook(join(root, 'policies', 'default'));
  const track = createTracker(book, index, {});
  const base = { agent: 'local', session: 'stdio-5b7f9c4e-2d1a-4f3b-9c8e-7a6d5e4f3b2a', server: 'ws', tool: 'read_file' };
  const server = { command: process.execPath, args: [], resolve_paths: true };
  return async (n) => {
    const k = n % files.length;
    const answers = new Map<string, string | null>();
    const pinned = resolvePathArguments(server, { path: files[k] }, ['path'], roots, answers);
    const call = InteractionSchema.parse({ ...base, kind: 'tool_call', arguments: pinned.args ?? {}, roots, pathKeys: ['path'] });
    await sharingRealPaths(call, answers, () => track(call, 0, new Map()));
    const result = InteractionSchema.parse({ ...base, kind: 'tool_result', content: [{ type: 'text', text: texts[k] }] });
    await sharingRealPaths(result, new Map(), () => track(result, 0, new Map()));
  };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return ((s[(s.length - 1) >> 1] as number) + (s[s.length >> 1] as number)) / 2;
};
const labels = ['this checkout', ...(values.against ? [values.against] : [])];
const runs = [await runner(ROOT), ...(values.against ? [await runner(resolve(values.against))] : [])];
try {
  for (const r of runs) for (let n = 0; n < WARMUP; n++) await r(n);
  const cpu = runs.map(() => [] as number[]);
  for (let b = 0; b < BLOCKS; b++) {
    const order = b % 2 === 0 ? runs.map((_, j) => j) : runs.map((_, j) => runs.length - 1 - j);
    for (const j of order) {
      const c0 = process.cpuUsage();
      for (let n = 0; n < CALLS; n++) await runs[j]!(WARMUP + b * CALLS + n);
      const c = process.cpuUsage(c0);
      cpu[j]!.push((c.user + c.system) / CALLS);
    }
  }
  console.log(`the tracker of an allowed read_file call + its result, CPU per pair (median of ${BLOCKS} blocks of ${CALLS}; ${files.length} file(s), ${roots.length} root(s)):`);
  labels.forEach((l, j) => console.log(`  ${l}: ${median(cpu[j]!).toFixed(1)} µs`));
  if (runs.length === 2) {
    const d = cpu[0]!.map((x, b) => x - (cpu[1]![b] as number));
    console.log(`  paired, this checkout − ${labels[1]}: median ${median(d).toFixed(1)} µs (${d.filter((x) => x < 0).length} of ${BLOCKS} blocks lower)`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
