import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PATTERNS } from '../../src/detectors/injection/role-marker.js';
import { scoreInjection } from '../../src/detectors/injection/index.js';
import { expectSameOnTexts } from './support/injection-texts.js';

/**
 * The role markers' "### system" and banner forms, written so that no run is read again from each of its characters,
 * match what the former expressions (kept here) matched: on the corpora, the red-team and dev texts, and generated
 * texts of the marks, spaces, tabs, `(`, the role words and other characters.
 */
const FORMER_HASHES = /(?<!#)#{2,6}[ \t]*\(?[ \t]*(?:system|admin|developer|assistant)(?:[ _](?:message|prompt|instructions?|note|override))?\s*\)?\s*:?/gi;
const FORMER_BANNER =
  /\[\s*(?:SYSTEM|ADMIN|DEVELOPER|OPERATOR|ROOT)(?:[ _-](?:NOTICE|MESSAGE|NOTE|OVERRIDE|UPDATE|ALERT|PROMPT))?\s*\]|(?:={2,}|\*{2,}|-{3,}|~{2,})\s*(?:system|admin|developer|operator)(?: (?:message|prompt|note|notice|override))?\s*(?:={2,}|\*{2,}|-{3,}|~{2,})/gi;
const now = (detail: string): RegExp => new RegExp(PATTERNS.find((p) => p.detail === detail)!.re.source, 'gi');
const PAIRS: Array<[RegExp, RegExp]> = [
  [FORMER_HASHES, now('### system marker')],
  [FORMER_BANNER, now('[SYSTEM] banner')],
];
const matches = (re: RegExp, t: string): Array<[number, string]> => [...t.matchAll(re)].map((m) => [m.index, m[0]]);

const PIECES = ['#', '##', '###', '#######', '=', '==', '===', '*', '**', '-', '--', '---', '~', '~~', ' ', '  ', '\t', '\n', '(', ')', ':', '[', ']', 'system', 'SYSTEM', 'admin', 'developer', 'assistant', 'operator', 'root', ' message', '_prompt', ' note', '-NOTICE', 'x', '.'];
const generated = fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }).map((p) => p.join(''));

describe("the role markers' runs", () => {
  it('match what the former expressions matched', () => {
    const found = expectSameOnTexts(
      (t) => PAIRS.map(([, re]) => matches(re, t)),
      (t) => PAIRS.map(([former]) => matches(former, t)),
      generated,
      { hit: (t) => PAIRS.some(([former]) => matches(former, t).length > 0), extra: ['### (system message):', '### ( system message ):', '=== SYSTEM OVERRIDE ===', '-----developer note-----', '[ ADMIN_NOTICE ]'] },
    );
    expect(found).toBeGreaterThan(500);
  });

  it('reads long runs of marks and spaces once', () => {
    // Each took the former expressions minutes; a marker after them is still found.
    for (const run of [`## ${' '.repeat(300_000)}x`, `system ${'='.repeat(300_000)}x`, `admin ${'*'.repeat(300_000)} x`, `note ##${' \t'.repeat(150_000)}x`]) {
      expect(PAIRS.every(([, re]) => matches(re, run).length === 0)).toBe(true);
      expect(matches(now('[SYSTEM] banner'), `${run} === SYSTEM ===`)).toHaveLength(1);
    }
    expect(scoreInjection(`system ${'='.repeat(300_000)}x`).score).toBeLessThan(1);
  });
});
