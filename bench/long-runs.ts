/**
 * Texts that cost their length squared: the CPU time of the guard's check of one long run of a repeated piece (a
 * tool result and a tool call's argument), of the audit's masker (`maskSecrets`) and of the injection scorer alone,
 * at two sizes, and how much each grew. Linear work grows with the size; an expression tried at every position of a
 * run that reads the run to its end each time grows with its square (found this way: the wrapped-base64 join, the
 * leet reading's words, the `key = value` mask form). Each piece runs after a head that switches every reading on
 * (a base64 line, leet words, escapes, char codes), and with `--bare` after none.
 *
 *   npx tsx bench/long-runs.ts [--kb 16,64] [--pieces FILE.json] [--bare] [--only N]
 *
 * A row is flagged (`<<`) where a part grew more than twice the size's ratio and took over 30 ms at the larger size.
 * The pool is off, so every check runs in this thread.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { InteractionSchema } from '../src/core/types.js';
import { scoreInjection } from '../src/detectors/injection/index.js';
import { buildGuard } from '../src/guard/build.js';
import { maskSecrets } from '../src/store/redact.js';
import { ROOT } from './common.js';

const { values } = parseArgs({ options: { kb: { type: 'string', default: '16,64' }, pieces: { type: 'string' }, bare: { type: 'boolean', default: false }, only: { type: 'string' } } });
const [small, large] = values.kb.split(',').map((k) => Number(k) * 1024) as [number, number];
const HEAD = `${'Q'.repeat(41)}\npassword=hunter2 %41%42 \\x41\\x42 &#65;&#66; a b c d e f SWdub3JlIGFsbA== p4ss w0rd x12 73 110 110 \\u0041 0x41 0x42 `;
/** Characters and pieces that a reading, a secret's form or a cue reads a run of. */
const PIECES = [
  'A', 'a', '0', 'ab', 'a b ', 'A-', '-', '_', '=', '/', '+', '.', ' ', '\n', 'a\n', '1\n', '\t', '"', "'", ':', ',', '@', '$1', 'A1', '4p', 'a@', '__', 'a-b', 'a_b',
  '%41', '%2', '\\x41', '\\x', '\\u0041', '\\u00', '&#65;', '&#', '&amp;', '0x41 ', '65,', '1 ', 'QUJD\n', 'aGVsbG8=', 'aGVsbG8=\n', 'AAAA====', 'e\u0301', '\u200b', 'ａ', 'і', '中', '。',
  'password', 'pwd', 'secret', 'token', 'cookie', 'AKIA', 'ghp_', 'xoxb-', 'sk-a', 'eyJa', 'Bearer ', '-----BEGIN PRIVATE KEY-----', 'mongodb://a:b@', 'AccountKey=', 'http://a/',
  'i g n o r e ', 'ignore ', 'Ignore. ', 'I. ', '# ', '> ', '### ', '```', '<|im_start|>', '[INST]', 'SYSTEM: ', '; rm ', '$(', '`', '../',
  ')', '. \n', ' \n', '\\', 'data:a',
];
const pieces: string[] = values.pieces !== undefined ? (JSON.parse(readFileSync(values.pieces, 'utf8')) as string[]) : PIECES;
const chosen = values.only !== undefined ? pieces.slice(0, Number(values.only)) : pieces;
const head = values.bare ? '' : HEAD;

const cpu = async (f: () => unknown): Promise<number> => {
  const t0 = process.cpuUsage();
  await f();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
};

const dir = mkdtempSync(join(tmpdir(), 'qg-bench-long-runs-'));
const guard = await buildGuard({ policy: join(ROOT, 'policies', 'default'), store: join(dir, 'runs.db'), settings: { watcher: { quarantine: false, burst_threshold: 1e9 }, pool: { workers: 0 } } });
try {
  let n = 0;
  const interaction = (kind: 'tool_result' | 'tool_call', text: string) =>
    InteractionSchema.parse(
      kind === 'tool_result'
        ? { agent: 'bench', session: `s${n++}`, profile: {}, kind, server: 'fs', tool: 'read_file', content: [{ type: 'text', text }] }
        : { agent: 'bench', session: `s${n++}`, profile: {}, kind, server: 'fs', tool: 'write_file', arguments: { path: '/tmp/runs.txt', content: text } },
    );
  const parts = { result: (t: string) => guard.pipeline.check(interaction('tool_result', t)), call: (t: string) => guard.pipeline.check(interaction('tool_call', t)), mask: (t: string) => maskSecrets(t), scorer: (t: string) => scoreInjection(t) };
  // Warm up every part on ordinary text first, so a row's first size does not pay for compiling.
  for (let i = 0; i < 5; i++) for (const f of Object.values(parts)) await f(`warm up ${i}: ${HEAD} the report for March`);
  console.log(`node ${process.version}; default book, pool off; CPU ms at ${large / 1024} KB (growth from ${small / 1024} KB; linear is ${(large / small).toFixed(1)}×)${values.bare ? '; no head' : ''}`);
  console.log(`${'piece'.padEnd(30)}${['result', 'call', 'mask', 'scorer'].map((h) => h.padStart(9)).join('')}   growth: result call mask scorer`);
  const flagged: string[] = [];
  for (const piece of chosen) {
    const at: number[][] = [];
    for (const size of [small, large]) {
      const run = piece.repeat(Math.ceil(size / piece.length));
      const row: number[] = [];
      // Each part reads a text of its own: no part is answered from what another kept of the same text.
      for (const [name, f] of Object.entries(parts)) row.push(await cpu(() => f(`${head}${run} end ${name} ${n++}`)));
      at.push(row);
    }
    const growth = at[1]!.map((t, i) => t / Math.max(at[0]![i]!, 0.5));
    const flag = growth.some((g, i) => g > (2 * large) / small && at[1]![i]! > 30);
    if (flag) flagged.push(JSON.stringify(piece));
    console.log(`${JSON.stringify(piece).padEnd(30)}${at[1]!.map((t) => t.toFixed(1).padStart(9)).join('')}   ${growth.map((g) => g.toFixed(1)).join(' ')}${flag ? '  <<' : ''}`);
  }
  console.log(flagged.length === 0 ? `no piece grew faster than linear (of ${chosen.length})` : `grew faster than linear: ${flagged.join(', ')} (of ${chosen.length})`);
} finally {
  await guard.close();
  rmSync(dir, { recursive: true, force: true });
}
