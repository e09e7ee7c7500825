/**
 * The per-byte cost of long texts in CPU time, which a loaded machine moves far less than wall time: the process's
 * CPU time (every thread) of one `GuardPipeline.check` of a long tool result, with the worker pool off so the whole
 * check is in this thread, and of its per-byte parts alone on the same text: the injection scorer, the hashes a
 * private read leaves (`readHashes`), the audit's masking of the preview and of the recorded body (`maskPrefix`).
 * For a plain result (prose, code, tables) of each size and a base64 result (a text file encoded) beside a plain one
 * of the same length. Default book, SQLite store with audit; medians of `--rounds`, each round a new text (a re-read
 * is not fingerprinted again).
 *
 *   npx tsx bench/text-cost.ts [--sizes 0.2,1,4] [--base64-mb 1.3] [--rounds 5] [--against DIR]
 *
 * `--against DIR` also loads DIR's sources (another checkout, e.g. main before a change: its guard, scorer, hashes and
 * masker, on a store of its own) and alternates the two round by round on the same texts; each row then prints both,
 * and the check's decision and the scorer's answer must be the same from both (else the bench fails).
 *
 * 0.2 MB is the soak mix's long read (bench/soak.ts), below the pool's 256 KiB: checked on the event loop.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { mixedText, ROOT } from './common.js';

const { values } = parseArgs({ options: { sizes: { type: 'string', default: '0.2,1,4' }, 'base64-mb': { type: 'string', default: '1.3' }, rounds: { type: 'string', default: '5' }, against: { type: 'string' } } });
const sizes = values.sizes.split(',').map(Number);
const rounds = Number(values.rounds);
const text = mixedText();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** CPU milliseconds (user + system, every thread of the process) that `f` takes. */
async function cpu(f: () => unknown): Promise<number> {
  const t0 = process.cpuUsage();
  await f();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
}

/** A flat copy of `s` with a round's own first line: no cache answers for it, and no part pays for flattening it. */
const fresh = (s: string, r: number, stamp = `${Date.now()} ${Math.random()}`): string => Buffer.from(`round ${r} ${stamp}\n${s}`).toString();

interface Tree {
  label: string;
  check: (t: string) => Promise<{ decision: string; rationale: string }>;
  scorer: (t: string) => { score: number };
  readHashes: (t: string) => unknown;
  masks: (t: string) => unknown;
  close: () => Promise<void>;
}

/** The guard (default book, SQLite store with audit, pool off) and the per-byte parts, loaded from the sources under `root`. */
async function treeOf(root: string, label: string, dir: string): Promise<Tree> {
  const mod = async <T>(p: string): Promise<T> => (await import(pathToFileURL(join(root, p)).href)) as T;
  const { InteractionSchema } = await mod<typeof import('../src/core/types.js')>('src/core/types.ts');
  const { scoreInjection } = await mod<typeof import('../src/detectors/injection/index.js')>('src/detectors/injection/index.ts');
  const { buildGuard } = await mod<typeof import('../src/guard/build.js')>('src/guard/build.ts');
  const { createReadHashers, readHashes } = await mod<typeof import('../src/guard/read-hashes.js')>('src/guard/read-hashes.ts');
  const { maskPrefix } = await mod<typeof import('../src/store/redact.js')>('src/store/redact.ts');
  const guard = await buildGuard({
    policy: join(root, 'policies', 'default'),
    store: join(dir, `${label}.db`),
    settings: { watcher: { quarantine: false, burst_threshold: 1_000_000_000 }, pool: { workers: 0 } },
  });
  const result = (t: string) =>
    InteractionSchema.parse({ agent: 'bench', session: 's1', profile: {}, kind: 'tool_result', server: 'fs', tool: 'read_file', content: [{ type: 'text', text: t }] });
  const hashers = createReadHashers(randomBytes(32), { k: 20, window: 12 });
  for (let i = 0; i < 20; i++) await guard.pipeline.check(result(text(64 * 1024)));
  return {
    label,
    check: (t) => guard.pipeline.check(result(t)),
    scorer: (t) => scoreInjection(t),
    readHashes: (t) => readHashes(t, hashers, 4096),
    masks: (t) => [maskPrefix(t, 240), maskPrefix(t, 64 * 1024)],
    close: () => Promise.resolve(guard.close()),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'qg-bench-text-cost-'));
try {
  const trees = [await treeOf(ROOT, 'this', dir)];
  if (values.against !== undefined) trees.unshift(await treeOf(resolve(values.against), 'against', dir));
  const row = async (label: string, body: string): Promise<number[]> => {
    const check = trees.map(() => [] as number[]);
    const parts = trees.map(() => ({ scorer: [] as number[], readHashes: [] as number[], masks: [] as number[] }));
    for (let r = 0; r < rounds; r++) {
      // Both trees read the same texts (each its own flat copy), in turns whose order alternates round by round.
      const stamp = `${Date.now()} ${Math.random()}`;
      const answers: string[] = [];
      for (const k of r % 2 === 0 ? trees.keys() : [...trees.keys()].reverse()) {
        const tree = trees[k]!;
        let decision = '';
        check[k]!.push(
          await cpu(async () => {
            const d = await tree.check(fresh(body, r, stamp));
            if (d.decision !== 'allow') throw new Error(`${label} not allowed: ${d.rationale}`);
            decision = d.decision;
          }),
        );
        const t = fresh(body, r, stamp);
        let score = 0;
        parts[k]!.scorer.push(await cpu(() => (score = tree.scorer(t).score)));
        parts[k]!.readHashes.push(await cpu(() => tree.readHashes(t)));
        parts[k]!.masks.push(await cpu(() => tree.masks(t)));
        answers.push(`${decision} ${score}`);
      }
      if (answers.length === 2 && answers[0] !== answers[1]) throw new Error(`${label}: the two trees answer differently (${answers.join(' / ')})`);
    }
    const mb = body.length / 2 ** 20;
    trees.forEach((tree, k) =>
      console.log(
        `${label.padEnd(22)}${trees.length > 1 ? ` ${tree.label.padEnd(8)}` : ''} check ${median(check[k]!).toFixed(1).padStart(7)} ms CPU (${(median(check[k]!) / mb).toFixed(0).padStart(4)} ms/MB);  scorer ${median(parts[k]!.scorer).toFixed(1)}, readHashes ${median(parts[k]!.readHashes).toFixed(1)}, masks ${median(parts[k]!.masks).toFixed(1)} ms`,
      ),
    );
    return check.map(median);
  };
  console.log(`node ${process.version}; load ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}; default book, SQLite with audit, pool off; CPU ms, medians of ${rounds}`);
  for (const mb of sizes) await row(`${mb} MB plain`, text(Math.round(mb * 2 ** 20)));
  const b64Chars = Math.round(Number(values['base64-mb']) * 2 ** 20);
  const encoded = Buffer.from(text(Math.floor((b64Chars * 3) / 4)), 'utf8').toString('base64').slice(0, b64Chars);
  const b64 = await row(`${values['base64-mb']} MB base64`, encoded);
  const plain = await row(`${values['base64-mb']} MB plain`, text(b64Chars));
  trees.forEach((tree, k) => console.log(`base64 over plain of the same length${trees.length > 1 ? ` (${tree.label})` : ''}: +${(b64[k]! - plain[k]!).toFixed(1)} ms CPU`));
  for (const tree of trees) await tree.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
