import fc from 'fast-check';
import { expect, it } from 'vitest';
import { SCAN_MIN_CHARS, scannedPrefix, scanOf } from '../../src/detectors/scan.js';
import { benignTexts, corpusTexts } from './support/injection-texts.js';

/**
 * `scannedPrefix` finds the kept scan of a text that `text` is the whole of or begins. It asked `startsWith`; it now
 * compares a slice with `===`. The former lookup is kept here as the reference, over the two scans the module keeps
 * (the last two `scanOf` calls, newest first), on texts from the corpora: the texts themselves, copies of them (not the
 * same string object), prefixes of every length tried, and near misses (one character changed at the start, inside, or
 * at the prefix's very end; longer than the text; shorter than a scan's threshold).
 */

const former = (kept: readonly string[], text: string): { text: string; to: number } | undefined => {
  if (text.length < SCAN_MIN_CHARS) return undefined;
  for (const s of kept) if (s.length >= text.length && s.startsWith(text)) return { text: s, to: text.length };
  return undefined;
};
const now = (text: string): { text: string; to: number } | undefined => {
  const s = scannedPrefix(text);
  return s && { text: s.scan.text, to: s.to };
};

/** A long text made of the corpora's texts, from the `k`th on. */
const all = [...corpusTexts(), ...benignTexts()];
const longText = (k: number, n: number): string => {
  let t = '';
  for (let j = k; t.length < n; j++) t += `${all[j % all.length]}\n`;
  return t.slice(0, n);
};
const copy = (s: string): string => Buffer.from(s, 'utf16le').toString('utf16le');
const changed = (s: string, at: number): string => `${s.slice(0, at)}${s[at] === 'x' ? 'y' : 'x'}${s.slice(at + 1)}`;

it('answers as the former startsWith lookup, for prefixes, copies and near misses', () => {
  fc.assert(
    fc.property(fc.nat(all.length), fc.nat(all.length), fc.integer({ min: SCAN_MIN_CHARS, max: 5 * SCAN_MIN_CHARS }), fc.integer({ min: SCAN_MIN_CHARS, max: 5 * SCAN_MIN_CHARS }), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 6 }), (a, b, na, nb, cuts) => {
      const older = longText(a, na);
      const newer = longText(b, nb);
      scanOf(older);
      scanOf(newer);
      const kept = [newer, older];
      const asked: string[] = [older, newer, copy(older), copy(newer), `${newer}x`, newer.slice(0, SCAN_MIN_CHARS - 1)];
      for (const c of cuts) {
        for (const t of [older, newer]) {
          const n = Math.floor(SCAN_MIN_CHARS + c * (t.length - SCAN_MIN_CHARS));
          const prefix = t.slice(0, n);
          asked.push(prefix, copy(prefix), changed(prefix, 0), changed(prefix, Math.floor(n / 2)), changed(prefix, n - 1));
        }
      }
      for (const t of asked) expect(now(t), `${t.length} characters`).toEqual(former(kept, t));
    }),
    { numRuns: 60 },
  );
});

it('finds a text scanned before as well as its prefixes, and not a text that only shares its start', () => {
  const t = longText(3, 3 * SCAN_MIN_CHARS);
  scanOf(t);
  expect(now(copy(t))).toEqual({ text: t, to: t.length });
  expect(now(t.slice(0, SCAN_MIN_CHARS))).toEqual({ text: t, to: SCAN_MIN_CHARS });
  expect(now(changed(t, t.length - 1))).toBeUndefined();
  expect(now(changed(t.slice(0, SCAN_MIN_CHARS + 7), SCAN_MIN_CHARS + 6))).toBeUndefined();
});
