/**
 * How long a passage of a private read must be before a send that quotes it is denied (docs/data-flow.md, "Runs of
 * text"): for each length L (normalised characters: letters and digits), `trials` times, a fresh guard (default
 * book, memory store, a random flow key as a proxy's store has) reads a private mail of 3,000 characters of made-up
 * words, then checks a `send_email` to an outside address whose body holds a passage of L characters of it between
 * other random words. Prints the share denied per length. A passage of 20 (the k-gram) or fewer can never match;
 * from 31 (k + window − 1) one fingerprint is certain; between, and for `min_matches` (3) matches above, whether
 * winnowing picks the shared k-grams depends on the key and on the views a send is read in.
 *
 *   npx tsx bench/flow-runs.ts [--lengths 20,24,28,31,36,40,50] [--trials 300] [--why]   (--why: each denial's rules and mail, on stderr)
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { InteractionSchema } from '../src/core/types.js';
import { normaliseForFingerprint } from '../src/core/text/fingerprint.js';
import { buildGuard, prepareBook } from '../src/guard/build.js';
import { openGuardStore } from '../src/store/open.js';
import { join } from 'node:path';
import { ROOT } from './common.js';

const { values } = parseArgs({ options: { lengths: { type: 'string', default: '20,24,28,31,36,40,50' }, trials: { type: 'string', default: '300' }, why: { type: 'boolean', default: false } } });
const lengths = values.lengths.split(',').map(Number);
const trials = Number(values.trials);
if (!lengths.every((l) => Number.isSafeInteger(l) && l > 0)) throw new Error(`--lengths must be positive integers separated by commas, not ${values.lengths}`);
if (!Number.isSafeInteger(trials) || trials < 1) throw new Error(`--trials must be a positive integer, not ${values.trials}`);

const pick = (n: number) => Math.floor(Math.random() * n);
// Made-up words of two to four syllables: no phrase repeats by chance, and no word means anything to a detector.
const word = () => Array.from({ length: 2 + pick(3) }, () => 'bdfgklmnprstvz'[pick(14)]! + 'aeiou'[pick(5)]!).join('');
const words = (chars: number) => {
  let s = '';
  while (s.length < chars) s += `${word()}${pick(10) === 0 ? `. ${pick(1000)}` : ''} `;
  return s;
};

const book = await prepareBook(join(ROOT, 'policies', 'default'));
const who = { agent: 'bench', session: 's', profile: {} };
console.log(`L (normalised chars)  denied of ${trials}`);
for (const length of lengths) {
  let denied = 0;
  for (let t = 0; t < trials; t++) {
    const mail = words(3000);
    const start = pick(2500);
    let end = start;
    while (normaliseForFingerprint(mail.slice(start, end)).length < length) end++;
    const store = await openGuardStore(':memory:', undefined, { flowKey: randomBytes(32) });
    const guard = await buildGuard({ policy: book, store });
    try {
      await guard.pipeline.check(InteractionSchema.parse({ ...who, kind: 'tool_result', server: 'mail', tool: 'read_email', content: [{ type: 'text', text: mail }] }));
      const body = `Hi, ${words(60)}${mail.slice(start, end)} ${words(60)}Thanks.`;
      const d = await guard.pipeline.check(InteractionSchema.parse({ ...who, kind: 'tool_call', server: 'mail', tool: 'send_email', arguments: { to: 'someone@outside.example', subject: 'notes', body } }));
      if (d.decision !== 'allow') {
        denied++;
        if (values.why) console.error(`L=${length} denied by ${d.rules?.join(', ')}: ${JSON.stringify(body)}`);
      }
    } finally {
      await guard.close();
    }
    if ((t + 1) % 100 === 0) process.stderr.write(`  L=${length}: ${t + 1}/${trials}\r`);
  }
  console.log(`${String(length).padStart(4)}  ${String(denied).padStart(5)}  ${((100 * denied) / trials).toFixed(1)}%`);
}
