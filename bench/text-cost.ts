/**
 * The per-byte cost of long texts in CPU time, which a loaded machine moves far less than wall time: the process's
 * CPU time (every thread) of one `GuardPipeline.check` of a long tool result, with the worker pool off so the whole
 * check is in this thread, and of its per-byte parts alone on the same text: the injection scorer, the hashes a
 * private read leaves (`readHashes`), the audit's masking of the preview and of the recorded body (`maskPrefix`).
 * For a plain result (prose, code, tables) of each size and a base64 result (a text file encoded) beside a plain one
 * of the same length. Default book, SQLite store with audit; medians of `--rounds`, each round a new text (a re-read
 * is not fingerprinted again).
 *
 *   npx tsx bench/text-cost.ts [--sizes 0.2,1,4] [--base64-mb 1.3] [--rounds 5]
 *
 * 0.2 MB is the soak mix's long read (bench/soak.ts), below the pool's 256 KiB: checked on the event loop.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { InteractionSchema, type Interaction } from '../src/core/types.js';
import { scoreInjection } from '../src/detectors/injection/index.js';
import { buildGuard } from '../src/guard/build.js';
import { createReadHashers, readHashes } from '../src/guard/read-hashes.js';
import { maskPrefix } from '../src/store/redact.js';
import { mixedText, ROOT } from './common.js';

const { values } = parseArgs({ options: { sizes: { type: 'string', default: '0.2,1,4' }, 'base64-mb': { type: 'string', default: '1.3' }, rounds: { type: 'string', default: '5' } } });
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
const fresh = (s: string, r: number): string => Buffer.from(`round ${r} ${Date.now()} ${Math.random()}\n${s}`).toString();

const dir = mkdtempSync(join(tmpdir(), 'qg-bench-text-cost-'));
try {
  const guard = await buildGuard({
    policy: join(ROOT, 'policies', 'default'),
    store: join(dir, 'state.db'),
    settings: { watcher: { quarantine: false, burst_threshold: 1_000_000_000 }, pool: { workers: 0 } },
  });
  const result = (t: string): Interaction =>
    InteractionSchema.parse({ agent: 'bench', session: 's1', profile: {}, kind: 'tool_result', server: 'fs', tool: 'read_file', content: [{ type: 'text', text: t }] });
  const hashers = createReadHashers(randomBytes(32), { k: 20, window: 12 });
  for (let i = 0; i < 20; i++) await guard.pipeline.check(result(text(64 * 1024)));
  const row = async (label: string, body: string): Promise<number> => {
    const check: number[] = [];
    const parts = { scorer: [] as number[], readHashes: [] as number[], masks: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      const i = result(fresh(body, r));
      check.push(
        await cpu(async () => {
          const d = await guard.pipeline.check(i);
          if (d.decision !== 'allow') throw new Error(`${label} not allowed: ${d.rationale}`);
        }),
      );
      const t = fresh(body, r);
      parts.scorer.push(await cpu(() => scoreInjection(t)));
      parts.readHashes.push(await cpu(() => readHashes(t, hashers, 4096)));
      parts.masks.push(await cpu(() => [maskPrefix(t, 240), maskPrefix(t, 64 * 1024)]));
    }
    const mb = body.length / 2 ** 20;
    console.log(
      `${label.padEnd(22)} check ${median(check).toFixed(1).padStart(7)} ms CPU (${(median(check) / mb).toFixed(0).padStart(4)} ms/MB);  scorer ${median(parts.scorer).toFixed(1)}, readHashes ${median(parts.readHashes).toFixed(1)}, masks ${median(parts.masks).toFixed(1)} ms`,
    );
    return median(check);
  };
  console.log(`node ${process.version}; load ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}; default book, SQLite with audit, pool off; CPU ms, medians of ${rounds}`);
  for (const mb of sizes) await row(`${mb} MB plain`, text(Math.round(mb * 2 ** 20)));
  const b64Chars = Math.round(Number(values['base64-mb']) * 2 ** 20);
  const encoded = Buffer.from(text(Math.floor((b64Chars * 3) / 4)), 'utf8').toString('base64').slice(0, b64Chars);
  const b64 = await row(`${values['base64-mb']} MB base64`, encoded);
  const plain = await row(`${values['base64-mb']} MB plain`, text(b64Chars));
  console.log(`base64 over plain of the same length: +${(b64 - plain).toFixed(1)} ms CPU`);
  await guard.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
