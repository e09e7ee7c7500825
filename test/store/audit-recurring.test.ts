/**
 * Texts that recur on many audit rows (client-chosen names, the guard's rationale) are masked through the memo
 * (`recurringPrefix`); the row must keep exactly what `maskPrefix` at the column's cap gives, memo or not, on a miss
 * and on a hit, also when the masked text is longer than the cap (a short text of secrets grows when masked).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeDecision, type Interaction } from '../../src/core/types.js';
import { auditEntryFor, auditFields } from '../../src/store/audit.js';
import { MaskMemo, recurringPrefix } from '../../src/store/audit-interaction.js';
import { maskPrefix } from '../../src/store/redact.js';
import { corpusTexts, devTexts, redteamTexts } from '../detectors/support/injection-texts.js';

// Assembled at run time so that no scanner mistakes this file for a leak.
const j = (...parts: string[]): string => parts.join('');
const SECRETS = [
  j('AKIA', 'Z7QW4K2M9XNB3VTL'),
  j('ghp_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'),
  j('sk-proj-', 'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z'),
  j('Authorization: Bearer ', 'x9F2kQ7mZ1pL4vB8nW3c'),
  'DB_PASSWORD=hunter22',
  'pwd=abcd',
  'postgres://admin:s3cretPw@db.example.com/app',
  'Zx8Kq2Lm9Wv4Rt7Yp3Nb6Hc1',
  j('-----BEGIN RSA ', 'PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----'),
];

/** Caps of the row's columns (names 200, rationale 2000) and small ones, under which masked texts outgrow the cap. */
const CAPS = [2000, 200, 120, 60, 30, 12, 1, 0];

/** Pieces of the project's corpora (hand-written, red-team, eval dev) cut to the memo's lengths, and secrets among words. */
function recurringTexts(): string[] {
  const out = new Set<string>(['', 'Allowed: no rule of the policy is violated.', ...SECRETS]);
  for (const t of [...corpusTexts(), ...redteamTexts(), ...devTexts()]) {
    for (const n of [12, 60, 199, 200, 201]) out.add(t.slice(0, n));
  }
  for (const s of SECRETS) for (const n of [0, 5, 100, 180]) out.add(`${'Denied by policy: '.slice(0, n)}${s} ${'x'.repeat(n)}`.slice(0, 200));
  // Texts made only of secrets: masked they are much longer than the text (and than the small caps).
  out.add(SECRETS.slice(0, 5).join(' ').slice(0, 200));
  out.add(Array.from({ length: 20 }, () => 'pwd=abcd').join(' ').slice(0, 200));
  return [...out];
}

describe('recurringPrefix', () => {
  it('is maskPrefix at the cap on the corpora, on a miss, on a hit and without the memo', () => {
    const texts = recurringTexts();
    expect(texts.length).toBeGreaterThan(500);
    let grew = 0;
    for (const cap of CAPS) {
      const memo = new MaskMemo();
      for (const s of texts) {
        const want = maskPrefix(s, cap);
        if (s.length <= cap && want.endsWith('…')) grew++;
        expect(recurringPrefix(s, cap, memo)).toBe(want);
        expect(recurringPrefix(s, cap, memo)).toBe(want);
        expect(recurringPrefix(s, cap, null)).toBe(want);
        expect(recurringPrefix(s, cap)).toBe(want);
      }
    }
    expect(grew).toBeGreaterThan(0); // the corpora did reach the case of a masked text longer than the cap
  });

  it('is maskPrefix at the cap on random texts of words and secrets', () => {
    const memo = new MaskMemo(8);
    const piece = fc.oneof(fc.constantFrom(...SECRETS), fc.string({ maxLength: 30 }), fc.constantFrom(' ', '\n', '"', ':', '=', 'ü', '💥'));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), fc.constantFrom(...CAPS), (pieces, cap) => {
        const s = pieces.join('');
        const want = maskPrefix(s, cap);
        expect(recurringPrefix(s, cap, memo)).toBe(want);
        expect(recurringPrefix(s, cap, memo)).toBe(want);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('the rationale column', () => {
  const call: Interaction = { kind: 'tool_call', agent: 'local', session: 's', profile: {}, server: 'ws', tool: 'read_file', arguments: { path: 'notes.txt' } };
  it('keeps the rationale as maskPrefix at 2000 characters gives it, every time', () => {
    const rationales = [...recurringTexts(), `${'Denied by policy: '.repeat(120)}${SECRETS[1]!}`, `${SECRETS[1]!} ${'y'.repeat(2100)}`];
    for (const rationale of rationales) {
      const entry = auditEntryFor(call, makeDecision({ decision: 'deny', rationale, source: 'pipeline' }));
      const want = maskPrefix(rationale, 2000);
      expect(auditFields(entry).fields.rationale).toBe(want);
      expect(auditFields({ ...entry }).fields.rationale).toBe(want);
    }
  });
});
