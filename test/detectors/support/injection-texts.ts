import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { expect } from 'vitest';
import { CORPUS_SETS, loadCorpus } from '../../fixtures/injection/corpus.js';

/**
 * The texts the injection scorer's gates are proved on (test/detectors/order-cues.test.ts, answer-cues.test.ts,
 * phrase-regions.test.ts): the hand-written corpora, the red-team tests' texts, the eval dev cases when ../shared is
 * there, and the pieces generated texts are made of.
 */

export const corpusTexts = (): string[] => CORPUS_SETS.flatMap((set) => loadCorpus(set).map((r) => r.text));
export const benignTexts = (): string[] => loadCorpus('tuning').filter((r) => r.label === 'benign').map((r) => r.text);

/** The string literals of the red-team tests (their injections, mails, pages and files). */
export function redteamTexts(): string[] {
  const dir = join(process.cwd(), 'test', 'redteam');
  const out: string[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
    const src = readFileSync(join(dir, f), 'utf8');
    for (const m of src.matchAll(/'((?:[^'\\\n]|\\.){20,})'|"((?:[^"\\\n]|\\.){20,})"|`([^`$]{20,})`/g)) {
      const body = m[1] ?? m[2] ?? m[3] ?? '';
      out.push(body.replace(/\\n/g, '\n').replace(/\\(['"\\])/g, '$1'));
    }
  }
  return out;
}

/** Texts of the eval dev cases (../shared/data/eval/dev), when that directory is there. */
export function devTexts(): string[] {
  const dir = join(process.cwd(), '..', 'shared', 'data', 'eval', 'dev');
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.jsonl'))) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const c = JSON.parse(line) as { steps?: { content?: unknown; arguments?: unknown }[] };
      for (const s of c.steps ?? []) {
        if (typeof s.content === 'string') out.push(s.content);
        else if (Array.isArray(s.content)) for (const b of s.content as { text?: unknown }[]) if (typeof b.text === 'string') out.push(b.text);
        if (s.arguments !== undefined) out.push(JSON.stringify(s.arguments));
      }
    }
  }
  return out;
}

/** Texts joined into chunks of about `size` characters: each text is read in the windows of a long one. */
export function joined(texts: readonly string[], size: number): string[] {
  const out: string[] = [];
  let chunk = '';
  for (const t of texts) {
    chunk += `${t}\n`;
    if (chunk.length >= size) {
      out.push(chunk);
      chunk = '';
    }
  }
  if (chunk !== '') out.push(chunk);
  return out;
}

/** What separates words, ends lines and opens them, with Unicode white space and line-break variety. */
export const BREAKS = [' ', ' ', ' ', '  ', ',', ', ', ':', ': ', ';', '; ', '. ', '! ', '? ', '.', '。', '！', '।', '॥ ', '؟ ', '۔', '።', '፧', '։ ', '။', '།', '។', '᠃ ', '｡', '. Я', '. я', '. ب', '? É', '，', '：', ' - ', ' – ', ' — ', ' -> ', ' => ', '|', ' | ', '"', '"x": "', "'", '`', '(', ')', '[', '] ', '#', '/', '*', '>', '•', '=', '~', '\t', '\u00a0', '\u2003', '\u3000', '\ufeff', '\u200b', '_', '-', ''];
export const LINE_ENDS = ['\n', '\n', '\r\n', '\\n', '\n\n', '\u2028', '\r', '\n  '];
export const PREFIXES = ['', '', '', '- ', '-- ', '1. ', '2) ', 'TODO: ', 'Note: ', '> ', '[12:00] ', '"', '| ', 'Subject: ', 'a,b,c,', '# ', '   '];

/** Lines of `word`s with breaks, a prefix and a line end; texts of up to `max` such lines and benign corpus texts. */
export function linesOf(word: fc.Arbitrary<string>, benign: readonly string[]): (max: number) => fc.Arbitrary<string> {
  const line = fc
    .tuple(fc.constantFrom(...PREFIXES), fc.array(fc.tuple(word, fc.constantFrom(...BREAKS)), { minLength: 1, maxLength: 16 }), fc.constantFrom(...LINE_ENDS))
    .map(([prefix, ws, end]) => prefix + ws.map(([w, b]) => w + b).join('') + end);
  return (max) => fc.array(fc.oneof({ weight: 4, arbitrary: line }, { weight: 1, arbitrary: fc.constantFrom(...benign.slice(0, 200)) }), { minLength: 1, maxLength: max }).map((ls) => ls.join(''));
}

/**
 * Expects `now` to give what `former` (the computation it replaced, kept in the test) gives on the corpora, the
 * red-team and dev texts, the `extra` texts, those joined into 100 KB chunks, and `runs` texts from `generated`.
 * Returns how many generated texts `hit` (what the former computation finds something in), for the test to check
 * that they reach it.
 */
export function expectSameOnTexts<T>(
  now: (t: string) => T,
  former: (t: string) => T,
  generated: fc.Arbitrary<string>,
  { hit, extra = [], runs = 20_000 }: { hit: (t: string) => boolean; extra?: readonly string[]; runs?: number },
): number {
  const same = (t: string): void => {
    expect(now(t), JSON.stringify(t)).toEqual(former(t));
  };
  const texts = [...corpusTexts(), ...redteamTexts(), ...devTexts(), ...extra];
  for (const t of [...texts, ...joined(texts, 100_000)]) same(t);
  let hits = 0;
  fc.assert(
    fc.property(generated, (t) => {
      same(t);
      if (hit(t)) hits++;
    }),
    { numRuns: runs },
  );
  return hits;
}
