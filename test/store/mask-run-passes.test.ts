import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskSpans } from '../../src/detectors/secrets/catalogue.js';
import { maskPrefix } from '../../src/store/redact.js';
import { formerMaskPrefix, formerMaskSpans } from './reference/mask-window.js';

/**
 * The masker reads a long token run (a base64 result) fewer times: the windows of one long text share the run's end
 * (`keptRunEnd`), the mask prefilter is asked once, the loose entropy rule reads a run in a loop of its own, testing
 * characters by a table. Its answers are compared with the former code (test/store/reference/mask-window.ts) on
 * base64, hex and base32 texts with secrets planted inside runs and across window edges, the preview's and the
 * body's masks asked in one turn.
 */

const AWS_ID = 'AKIAIOSFODNN7EXAMPLE';
const GHP = 'ghp_16C7e42F292c6912E7710c838347Ae178B4a';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
const SECRETS = [AWS_ID, GHP, JWT, 'sk-proj-Zx9Qw8Er7Ty6Ui5Op4As3Df2', 'password=Zx9Zx9Zx9', 'Bearer abcdef0123456789xyz', '-----BEGIN PRIVATE KEY-----\nMIIEv', 'https://me:hunter22@db.example.com'];
const encoded = (s: string): string => Buffer.from(`key ${s}`).toString('base64');

const bytes = (n: number, seed: number): Buffer => Buffer.from(Array.from({ length: n }, (_, i) => (i * 131 + seed * 17 + ((i * i) >> 3)) & 255));
const ascii = (n: number, seed: number): Buffer => Buffer.from(Array.from({ length: n }, (_, i) => 32 + ((i * 7 + seed * 13 + ((i * i) >> 4)) % 95)));
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const base32 = (b: Buffer): string => Array.from(b, (x, i) => BASE32[(x + i) & 31]).join('');

/** A run of one encoding, `n` characters. */
const run = fc
  .tuple(fc.constantFrom('base64', 'base64-text', 'base64url', 'hex', 'base32', 'base32-lower'), fc.integer({ min: 1, max: 3000 }), fc.integer({ min: 0, max: 99 }))
  .map(([kind, n, seed]) => {
    if (kind === 'base64') return bytes(n, seed).toString('base64').slice(0, n);
    if (kind === 'base64-text') return ascii(n, seed).toString('base64').slice(0, n);
    if (kind === 'base64url') return bytes(n, seed).toString('base64url').slice(0, n);
    if (kind === 'hex') return bytes(n, seed).toString('hex').slice(0, n);
    const b32 = base32(bytes(n, seed));
    return kind === 'base32' ? b32 : b32.toLowerCase();
  });

/** Where a run ends (or does not): token characters of one rule and not the other, non-ASCII, padding. */
const edge = fc.constantFrom(' ', '\n', '=', '==', '/', '+', '-', '_', '.', '"', ':', '@', '[', '`', '{', 'é', '\u3000', '\u{1F600}');
const secret = fc.constantFrom(...SECRETS, ...SECRETS.map(encoded));
const piece = fc.oneof({ weight: 4, arbitrary: run }, { weight: 3, arbitrary: edge }, { weight: 2, arbitrary: secret }, { weight: 1, arbitrary: fc.constant('the report for March ') });
/** A secret planted at `at` (inside a run, or where a window ends) of `text`. */
const plant = (text: string, s: string, at: number): string => `${text.slice(0, at)}${s}${text.slice(at)}`;

describe('the masker’s passes over a long token run', () => {
  it('maskSpans gives the former code’s spans', () => {
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 10 }), (parts) => {
        const text = parts.join('');
        expect(maskSpans(text)).toEqual(formerMaskSpans(text));
      }),
      { numRuns: 400 },
    );
  });

  it('a long text’s masks at several lengths in one turn give the former code’s answers', () => {
    // A length is a number, or `{ edge }`: the window (length + 512) ends `edge` characters from the long run's start.
    const length = fc.oneof(fc.constantFrom(1, 240, 752, 64 * 1024, Number.POSITIVE_INFINITY), fc.integer({ min: 1, max: 70_000 }), fc.record({ edge: fc.integer({ min: -700, max: 700 }) }));
    fc.assert(
      fc.property(
        fc.array(piece, { minLength: 1, maxLength: 8 }),
        fc.tuple(fc.constantFrom('base64', 'base64-text', 'hex', 'base32'), fc.integer({ min: 66_000, max: 140_000 }), fc.integer({ min: 0, max: 99 })),
        fc.tuple(secret, fc.integer({ min: 0, max: 70_000 })),
        fc.array(length, { minLength: 1, maxLength: 4 }),
        (parts, [kind, n, seed], [s, at], lengths) => {
          const long = kind === 'base64' ? bytes(n, seed).toString('base64').slice(0, n) : kind === 'base64-text' ? ascii(n, seed).toString('base64').slice(0, n) : kind === 'hex' ? bytes(n, seed).toString('hex').slice(0, n) : base32(bytes(n, seed));
          const head = parts.join('');
          const text = `${head}${plant(long, s, at)}`;
          // One turn: the preview, then the body (and other lengths), of the same text.
          for (const l of lengths) {
            const max = typeof l === 'number' ? l : Math.max(1, head.length - 512 + l.edge);
            expect(maskPrefix(text, max)).toBe(formerMaskPrefix(text, max));
          }
        },
      ),
      { numRuns: 80 },
    );
  });

  it('several long texts masked in turns within one turn (more than the memo keeps) give the former code’s answers', () => {
    // A result's preview masks its string's prefix, then the shortened payload's JSON; the body asks the string again.
    fc.assert(
      fc.property(
        fc.array(fc.tuple(secret, fc.integer({ min: 0, max: 60_000 }), fc.integer({ min: 0, max: 99 })), { minLength: 2, maxLength: 6 }),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(1, 240, 16 * 1024, 64 * 1024)), { minLength: 2, maxLength: 14 }),
        (planted, asks) => {
          const texts = planted.map(([s, at, seed]) => `note ${seed}: ${plant(ascii(70_000, seed).toString('base64'), s, at)} end`);
          for (const [k, max] of asks) {
            const text = texts[k % texts.length]!;
            expect(maskPrefix(text, max)).toBe(formerMaskPrefix(text, max));
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it('a window that ends just before a run, asked after one that ends inside it', () => {
    // The hex run holds a key (and is not random enough to be masked itself): a window that reads it masks the whole
    // text, one that stops before it does not.
    const run = Buffer.from(`${ascii(40_000, 1).toString()} key ${GHP} ${ascii(40_000, 2).toString()}`).toString('hex');
    const text = `${'a b '.repeat(2500)}${run} end`;
    const inside = 10_000 + 100 - 512;
    const before = 10_000 - 100 - 512;
    expect(maskPrefix(text, inside)).toBe(formerMaskPrefix(text, inside));
    expect(maskPrefix(text, before)).toBe(formerMaskPrefix(text, before));
    expect(formerMaskPrefix(text, inside)).toBe('[REDACTED:github_token]');
    expect(formerMaskPrefix(text, before)).toBe(`${text.slice(0, before)}…`);
  });

  it('secrets planted at the window’s edges of a base64 result', () => {
    const b64 = ascii(1_000_000, 3).toString('base64');
    for (const s of [AWS_ID, GHP, encoded(GHP)]) {
      for (const at of [0, 239, 240, 751, 752, 753, 64 * 1024 - 1, 64 * 1024 + 512, 1_200_000]) {
        const text = plant(b64, at % 2 === 0 ? ` ${s}` : s, at);
        for (const max of [240, 64 * 1024]) expect(maskPrefix(text, max)).toBe(formerMaskPrefix(text, max));
      }
    }
  });
});
