import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import '../../src/detectors/index.js';
import { AnyInteractionSchema, type Interaction } from '../../src/core/types.js';
import { SCAN_MIN_CHARS } from '../../src/detectors/scan.js';
import { evaluateHere } from '../../src/guard/tracker.js';
import type { CompiledBook, CompiledPredicate } from '../../src/policy/compiled.js';
import { evaluatePredicate, predicateApplies, type PredicateValue } from '../../src/policy/evaluate.js';
import { loadBook } from '../../src/policy/load.js';
import { benignTexts, corpusTexts, devTexts, redteamTexts } from '../detectors/support/injection-texts.js';

/**
 * The tracker evaluates the predicates with a scanning detector (the injection scorer) first, so the secrets
 * prefilter of a long text asks the scorer's scan (src/guard/scan-first.ts). The values must be those of the former
 * loop (each predicate in the candidates' order, kept here as the reference), keyed in the same order, on the default
 * book, for results, calls and messages of every corpus, long ones among them.
 */

const former = (predicates: readonly CompiledPredicate[], i: Interaction): Map<string, PredicateValue> => {
  const values = new Map<string, PredicateValue>();
  for (const p of predicates) values.set(p.name, evaluatePredicate(p, i));
  return values;
};

let book: CompiledBook;
beforeAll(async () => {
  book = (await loadBook(join(import.meta.dirname, '../../policies/default'))).compiled;
});

const SECRETS = ['AKIAIOSFODNN7EXAMPLE', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'password=hunter2hunter2', 'postgres://user:s3cretpass@db.example.com', 'Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0'];

/** Texts of every corpus, and long ones (past the scan's threshold) made of them, some with a secret planted. */
function texts(): string[] {
  const all = [...corpusTexts(), ...redteamTexts(), ...devTexts().slice(0, 400)];
  const long: string[] = [];
  const benign = benignTexts();
  for (let k = 0; k < 24; k++) {
    let t = '';
    for (let j = k; t.length < SCAN_MIN_CHARS * (1 + (k % 4)); j++) t += `${all[(j * 7919) % all.length]}\n${j % 5 === 0 ? benign[j % benign.length] : ''}\n`;
    const at = (k * 1031) % t.length;
    long.push(k % 3 === 0 ? t : `${t.slice(0, at)} ${SECRETS[k % SECRETS.length]} ${t.slice(at)}`);
  }
  return [...all, ...long];
}

const interactions = (t: string, n: number): Interaction[] =>
  [
    { kind: 'tool_result', server: 'files', tool: 'read_file', content: [{ type: 'text', text: t }] },
    { kind: 'tool_call', server: 'mail', tool: 'send', arguments: { to: 'bob@example.com', body: t } },
    { kind: 'message', sender: 'a', recipient: 'b', content: t },
  ].map((x) => AnyInteractionSchema.parse({ agent: 'agent-1', session: `s${n}`, ...x }) as Interaction);

it('the default book puts a predicate without a scanning detector before one with it (the order is changed)', () => {
  const scans = (p: CompiledPredicate) => p.def.detectors.some((d) => d.type === 'injection');
  const first = book.predicates.findIndex(scans);
  expect(first).toBeGreaterThan(0);
  expect(book.predicates.slice(0, first).some((p) => p.def.detectors.some((d) => d.type === 'secrets'))).toBe(true);
});

it('every value, in the candidates order, is the former loop\'s', () => {
  let n = 0;
  let long = 0;
  for (const t of texts()) {
    for (const i of interactions(t, n++)) {
      const predicates = book.predicates.filter((p) => predicateApplies(p, i));
      // In both orders: either may run first and leave its caches to the other.
      const got = [...evaluateHere(predicates, i)];
      expect(got, `${i.kind} ${t.slice(0, 60)}`).toEqual([...former(predicates, i)]);
      expect([...evaluateHere([...predicates].reverse(), i)]).toEqual([...former([...predicates].reverse(), i)]);
      if (t.length >= SCAN_MIN_CHARS) long++;
    }
  }
  expect(long).toBeGreaterThanOrEqual(24 * 3);
}, 240_000);
