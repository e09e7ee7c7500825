/**
 * The audit row's masks of a long read in CPU time: `maskPrefix` of the text at the preview's 240 characters and at
 * the recorded body's 64 KiB (what `payloadPreview` and `recordInteraction` ask of a string past the cap), one
 * pair per round, each round a new text in a turn of its own (the maskers' memos are for the turn). The text is the
 * soak mix's (bench/common.ts) with a first line of its own and no token run in it, so the masker takes a soak read's
 * path: no credential hint and no 15-character token run, so it reads the window's readings (`maskSpans` →
 * `readingsOf` under SECRET_READINGS).
 *
 * `--base64`: the text is instead the base64 of such a text (one token run after the round's line, as a 1.3 MB base64
 * result is), the masker's path through its long-run passes (the loose entropy rule, the blob and token searches).
 *
 *   npx tsx bench/audit-masks.ts [--kb 200] [--base64] [--rounds 200] [--against DIR]
 *
 * `--against DIR` loads DIR's masker (`DIR/src/store/redact.ts`, e.g. main's tree) in the same process and
 * alternates the two round by round (each its own copy of the round's text): medians of both, this tree's last.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { maskPrefix } from '../src/store/redact.js';
import { mixedText } from './common.js';

const { values } = parseArgs({ options: { kb: { type: 'string', default: '200' }, base64: { type: 'boolean', default: false }, rounds: { type: 'string', default: '200' }, against: { type: 'string' } } });
const rounds = Number(values.rounds);
const chars = Math.round(Number(values.kb) * 1000);
if (!Number.isSafeInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a positive whole number, not ${values.rounds}`);
if (!Number.isFinite(chars) || chars < 1) throw new Error(`--kb must be a positive number of kilobytes, not ${values.kb}`);
const body = values.base64 ? Buffer.from(mixedText()(Math.ceil((chars * 3) / 4)), 'utf8').toString('base64').slice(0, chars) : mixedText()(chars);

const maskers: Array<{ name: string; mask: typeof maskPrefix; ms: number[] }> = [{ name: 'this tree', mask: maskPrefix, ms: [] }];
if (values.against !== undefined) {
  const file = join(resolve(values.against), 'src', 'store', 'redact.ts');
  if (!existsSync(file)) throw new Error(`--against ${values.against}: no ${file} (give the root of a QuadGuard tree)`);
  const other = (await import(file)) as { maskPrefix: typeof maskPrefix };
  maskers.unshift({ name: values.against, mask: other.maskPrefix, ms: [] });
}

const nextTurn = () => new Promise((r) => setImmediate(r));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
// A flat copy with a line of its own: no memo answers for it (digits shorter than a token run of 15).
const fresh = (r: number, k: number): string => Buffer.from(`round ${r}.${k}\n${body}`).toString();

// The first tenth warms up and is not counted.
const warm = Math.floor(rounds / 10);
for (let r = 0; r < warm + rounds; r++) {
  for (let k = 0; k < maskers.length; k++) {
    const m = maskers[(r + k) % maskers.length]!;
    const t = fresh(r, k);
    await nextTurn();
    const t0 = process.cpuUsage();
    m.mask(t, 240);
    m.mask(t, 64 * 1024);
    const d = process.cpuUsage(t0);
    if (r >= warm) m.ms.push((d.user + d.system) / 1000);
  }
}
console.log(`node ${process.version}; ${values.kb} KB ${values.base64 ? 'base64 ' : ''}read, maskPrefix at 240 and 64 KiB, CPU ms, medians of ${rounds} rounds`);
for (const m of maskers) console.log(`${m.name.padEnd(24)} masks ${median(m.ms).toFixed(3)} ms`);
