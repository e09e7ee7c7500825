import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blobSpans, tokensOutsideBlobs } from '../../src/detectors/secrets/catalogue.js';

/**
 * The high-entropy rule reads the token runs outside base64 blobs, SRI hashes and `data:` URIs. `tokensOutsideBlobs`
 * passes over a blob's matches at once instead of one by one (a megabyte of base64 held ~20,000), and stops each search
 * at the next blob's start: compared here with every match of the token expression filtered by overlap, on texts whose
 * token runs cross blob borders (and reach a blob's start: a run of `=` before `sha256-`).
 */

const TOKEN = /[A-Za-z0-9+_=-]{20,}/g;
const BLOB = /(?:\bsha(?:1|256|384|512)-|;base64,)[A-Za-z0-9+/=_-]+|[A-Za-z0-9+/]{200,}={0,2}/g;

function blobsOf(text: string): Array<[number, number]> {
  return [...text.matchAll(BLOB)].map((m) => [m.index, m.index + m[0].length]);
}

function reference(text: string, blobs: Array<[number, number]>, stopAfter = Infinity): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const m of text.matchAll(TOKEN)) {
    const start = m.index;
    const end = start + m[0].length;
    if (blobs.some(([s, e]) => s < end && e > start)) continue;
    out.push([start, end]);
    if (out.length >= stopAfter) break;
  }
  return out;
}

function fast(text: string, blobs: Array<[number, number]>, stopAfter = Infinity): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  tokensOutsideBlobs(text, blobs, (start, end) => {
    out.push([start, end]);
    return out.length >= stopAfter;
  });
  return out;
}

const base64Of = (n: number, seed: number): string => Buffer.from(Array.from({ length: Math.ceil((n * 3) / 4) }, (_, i) => (i * 131 + seed * 17 + ((i * i) >> 3)) & 255)).toString('base64').slice(0, n);
const piece = fc.oneof(
  fc.tuple(fc.integer({ min: 150, max: 700 }), fc.integer({ min: 0, max: 99 })).map(([n, seed]) => base64Of(n, seed)),
  fc.tuple(fc.integer({ min: 1, max: 60 }), fc.constantFrom('A', 'z', '9', '_', '-', '=', '+', 'aB3_')).map(([n, c]) => c.repeat(n)),
  fc.constantFrom('/', '//', '==', ' ', '\n', '.', 'sha256-', ' sha512-', 'data:image/png;base64,', 'key=', 'é'),
  // A blob, then a token run that goes on past its end (`_`, `-`, `=` end a blob, not a token).
  fc
    .tuple(fc.integer({ min: 200, max: 400 }), fc.integer({ min: 0, max: 99 }), fc.constantFrom('_', '-', '=', '=='), fc.integer({ min: 10, max: 40 }))
    .map(([n, seed, stop, tail]) => `${base64Of(n, seed)}${stop}${'kQ7_'.repeat(tail).slice(0, tail)}`),
);

describe('tokensOutsideBlobs', () => {
  it('gives every token match that overlaps no blob, in order, and stops when asked', () => {
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 10 }).map((p) => p.join('')), fc.integer({ min: 1, max: 4 }), (text, stop) => {
        const blobs = blobsOf(text);
        expect(fast(text, blobs)).toEqual(reference(text, blobs));
        expect(fast(text, blobs, stop)).toEqual(reference(text, blobs, stop));
      }),
      { numRuns: 2000 },
    );
  });

  it('a token run that goes on past a blob is not read from the blob’s end', () => {
    // The blob stops at `_` (not a base64 character), the token run goes on through it.
    const text = `${base64Of(300, 3).replace(/[/+]/g, 'Q')}_${'Zx9'.repeat(10)} tail`;
    const blobs = blobsOf(text);
    expect(blobs).toHaveLength(1);
    expect(fast(text, blobs)).toEqual(reference(text, blobs));
    expect(fast(text, blobs)).toEqual([]);
  });
});

describe('blobSpans', () => {
  it('gives every match of the blob expression, the short texts it does not search included', () => {
    const short = fc.oneof(
      fc.constantFrom('sha256-', 'sha1-', 'sha512-', 'xsha384-', 'sha', 'data:text/plain;base64,', ';base64,', 'SHA256-', '/', ' ', 'key=', 'é'),
      fc.tuple(fc.integer({ min: 1, max: 60 }), fc.constantFrom('A', 'z', '9', '_', '-', '=', '+', '/', 'aB3_')).map(([n, c]) => c.repeat(n)),
    );
    fc.assert(
      fc.property(fc.oneof(fc.array(short, { maxLength: 8 }), fc.array(piece, { minLength: 1, maxLength: 6 })).map((p) => p.join('')), (text) => {
        expect(blobSpans(text)).toEqual(blobsOf(text));
      }),
      { numRuns: 3000 },
    );
    for (const text of ['', 'sha256-abc', 'x;base64,QUJD', 'A'.repeat(199), 'A'.repeat(200), `${'A'.repeat(150)} sha1-${'b'.repeat(60)}`]) expect(blobSpans(text)).toEqual(blobsOf(text));
  });
});

